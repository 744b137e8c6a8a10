// A turn's checkpoint record as the view shows it: a Restore action when the turn changed files, and a
// plain line when the checkpoint left files out or could not be taken.

import type { EntryView } from '../../shared/sessionView';
import type { TranscriptRecord } from '../core/store/transcriptRecords';

type CheckpointRecord = Extract<TranscriptRecord, { type: 'checkpoint' }>;

export function checkpointEntry(record: CheckpointRecord, id: string): EntryView | undefined {
  if (!record.turnId) return undefined;
  const restorable = record.before !== undefined && record.after !== undefined && record.before !== record.after;
  const note = checkpointNote(record);
  if (!restorable && note === undefined) return undefined;
  return { kind: 'checkpoint', id, at: record.at, turnId: record.turnId, restorable, ...(note !== undefined ? { note } : {}) };
}

/** What a checkpoint left out, or why there is none. */
export function checkpointNote(record: Pick<CheckpointRecord, 'unavailable' | 'skipped' | 'skippedCount'>): string | undefined {
  if (record.unavailable) return record.unavailable;
  if (!record.skippedCount) return undefined;
  const named = (record.skipped ?? []).slice(0, 3).map((s) => (s.bytes !== undefined ? `${s.path} (${size(s.bytes)})` : s.path));
  const more = record.skippedCount - named.length;
  return `Not in the checkpoint, so Restore cannot bring back: ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''} (larger than 5 MB, not a regular file, or a folder with its own git repository).`;
}

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
