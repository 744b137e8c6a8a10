// The exit record: the one description of what both task wrappers write when the command ends (taskWrapper.pl
// and taskWrapper.ts) and of how the host reads it. One line of JSON, the fields in this order:
//   exitCode     the command's exit code, or null when a signal ended it (an exit status above 128 is a code)
//   signal       "SIG…" of the signal that ended it, or null
//   endedAt      when it ended, in ms since the epoch
//   droppedBytes output the wrapper could not write to the log
//   signalsSeen  how many TERM/INT/HUP the wrapper counted instead of dying of them
// The same text goes first to `<exit>.notice` (renamed into place, not synced), then durably to `<exit>`
// (docs/background-tasks.md, "The exit notice"). The wrappers' test holds both to this and to readExitFile.

import { promises as fs } from 'node:fs';

/** The record as a wrapper writes it. */
export interface WrittenExitRecord {
  exitCode: number | null;
  signal: string | null;
  endedAt: number;
  droppedBytes: number;
  signalsSeen: number;
}

/** The record's fields in the order both wrappers write them. */
export const exitRecordFields = ['exitCode', 'signal', 'endedAt', 'droppedBytes', 'signalsSeen'] as const satisfies ReadonlyArray<keyof WrittenExitRecord>;

/** What the host takes from the record: how and when the command ended. */
export type ExitFile = Pick<WrittenExitRecord, 'exitCode' | 'signal' | 'endedAt'>;

/** The exit record as found on disk: there, not (yet) there, or there but unreadable. */
export type ExitRecord = { kind: 'exited'; exit: ExitFile } | { kind: 'none' } | { kind: 'unreadable'; reason: string };

/**
 * Reads the wrapper's exit record. An empty or corrupt one is reported, never thrown: the wrapper
 * replaces it atomically, so such a file means a crash or a damaged disk, and the task must still end.
 */
export async function readExitFile(file: string): Promise<ExitRecord> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unreadable', reason: `${(error as NodeJS.ErrnoException).code ?? 'error'}: ${(error as Error).message}` };
  }
  if (text.trim() === '') return { kind: 'unreadable', reason: 'it is empty' };
  let value: Partial<ExitFile> | null;
  try {
    value = JSON.parse(text) as Partial<ExitFile> | null;
  } catch {
    return { kind: 'unreadable', reason: `it is not valid JSON (${text.length} bytes)` };
  }
  if (value === null || typeof value !== 'object' || (typeof value.exitCode !== 'number' && typeof value.signal !== 'string' && typeof value.endedAt !== 'number')) {
    return { kind: 'unreadable', reason: 'it holds no exit code, signal or end time' };
  }
  return {
    kind: 'exited',
    exit: {
      exitCode: typeof value.exitCode === 'number' ? value.exitCode : null,
      signal: typeof value.signal === 'string' ? value.signal : null,
      endedAt: typeof value.endedAt === 'number' ? value.endedAt : Date.now(),
    },
  };
}
