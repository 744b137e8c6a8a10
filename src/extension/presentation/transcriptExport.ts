// What an export needs besides the Markdown: the view entries of a whole durable transcript (the same
// fold the session view makes), and a file name from a session title that any file system takes.

import { emptySnapshot, type EntryView } from '../../shared/sessionView';
import { applyHostEvent } from '../../shared/sessionViewReducer';
import type { TranscriptRecord } from '../core/store/transcriptRecords';
import { TranscriptTranslator } from './transcriptTranslator';

export function transcriptEntries(records: Iterable<TranscriptRecord>): EntryView[] {
  const translator = new TranscriptTranslator();
  let state = emptySnapshot();
  for (const record of records) for (const event of translator.translate(record)) state = applyHostEvent(state, event);
  return state.entries;
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
