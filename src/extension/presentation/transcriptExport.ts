// What an export needs besides the Markdown: the view entries of a whole durable transcript (the same
// fold the session view makes), and a file name from a session title that any file system takes.

import { emptySnapshot, type EntryView, type HostEvent } from '../../shared/sessionView';
import { applyHostEvent, toolEntryId } from '../../shared/sessionViewReducer';
import type { TranscriptRecord } from '../core/store/transcriptRecords';
import { TranscriptTranslator } from './transcriptTranslator';

/** Entries the fold keeps in its snapshot; older ones are set aside, so a long transcript folds in linear time. */
const foldWindow = 64;

/**
 * The entries the session view would show for these records. The view's reducer copies its entry list
 * on every event (it renders by identity); folding a whole long transcript that way is quadratic, so
 * only the recent entries stay in the snapshot and an event for an older one is applied to it alone.
 */
export function transcriptEntries(records: Iterable<TranscriptRecord>): EntryView[] {
  const translator = new TranscriptTranslator();
  const settled: EntryView[] = [];
  const settledAt = new Map<string, number>();
  let state = emptySnapshot();
  for (const record of records) {
    for (const event of translator.translate(record)) {
      const id = targetId(event);
      const old = id !== undefined ? settledAt.get(id) : undefined;
      if (old !== undefined) {
        const folded = applyHostEvent({ ...emptySnapshot(), entries: [settled[old]] }, event).entries;
        if (folded.length === 1 && folded[0].id === id) {
          settled[old] = folded[0];
          continue;
        }
      }
      state = applyHostEvent(state, event);
      if (state.entries.length > foldWindow * 2) {
        for (const entry of state.entries.slice(0, foldWindow)) {
          settledAt.set(entry.id, settled.length);
          settled.push(entry);
        }
        state = { ...state, entries: state.entries.slice(foldWindow) };
      }
    }
  }
  return settled.concat(state.entries);
}

/** The entry an event changes in place, if it names one. */
function targetId(event: HostEvent): string | undefined {
  switch (event.type) {
    case 'entryAppended':
      return event.entry.id;
    case 'chunkAppended':
    case 'streamEnded':
    case 'planUpdated':
      return event.entryId;
    case 'toolCallCreated':
      return toolEntryId(event.toolCall.toolCallId);
    case 'toolCallUpdated':
      return toolEntryId(event.toolCallId);
    default:
      return undefined;
  }
}

const reservedWindowsNames = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

/** "Fix the build: step 2/3" → "Fix-the-build-step-2-3.md"; never empty, never a path, at most 80 characters before ".md". */
export function exportFileName(title: string): string {
  const base = title
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/[\\/:*?"<>|#%{}^~[\]`']+/g, ' ')
    .replace(/\s+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  let name = Array.from(base).slice(0, 80).join('').replace(/[-.]+$/g, '');
  if (name === '' || reservedWindowsNames.test(name)) name = name === '' ? 'session' : `${name}-session`;
  return `${name}.md`;
}
