// A turn's checkpoint record as the view shows it: the files the turn changed (from the checkpoint's trees, whatever
// tool wrote them) with their diffs and Restore, and a plain line when the checkpoint left files out or could not be
// taken: then no diff of the turn is available, and the line says so.

import type { EntryView } from '../../shared/sessionView';
import type { TranscriptRecord } from '../core/store/transcriptRecords';

type CheckpointRecord = Extract<TranscriptRecord, { type: 'checkpoint' }>;

/** Said after why a turn has no checkpoint, unless Vigil's own record of the agent's writes gives their diffs. */
export const NO_TURN_DIFF = 'No diff of what this turn changed is available, and Restore cannot undo it.';

/** `ownEdits`: the turn has a list of the writes Vigil made for the agent (the built-in agent's edit journal). */
export function checkpointEntry(record: CheckpointRecord, id: string, ownEdits = false): EntryView | undefined {
  if (!record.turnId) return undefined;
  const restorable = record.before !== undefined && record.after !== undefined && record.before !== record.after;
  const incomplete = record.before === undefined || record.after === undefined;
  const why = checkpointNote(record);
  const note = why !== undefined && incomplete && !ownEdits ? `${why} ${NO_TURN_DIFF}` : why;
  if (!restorable && note === undefined) return undefined;
  const changes = restorable && record.changes && record.changes.count > 0 ? record.changes : undefined;
  return { kind: 'checkpoint', id, at: record.at, turnId: record.turnId, restorable, ...(note !== undefined ? { note } : {}), ...(changes ? { changes } : {}) };
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
