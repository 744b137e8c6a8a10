// Reads what a file holds before the agent's write replaces it, for the diff: only a regular file at the located
// place (opened without following links and proved to be that object), only up to a bound, and only valid UTF-8 text.

import { openFileVerified } from './boundaryOpen';
import type { EditSide } from './editJournal';
import type { Location } from './workspaceBoundary';

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** A NUL byte in the first bytes marks a binary file, as git decides. */
const binarySniffBytes = 8_000;

/** `undefined` when there is nothing to compare: the write will be refused for what the path is (a folder, a FIFO…). */
export async function captureBefore(where: Location, maxBytes: number): Promise<EditSide | undefined> {
  if (where.kind === 'missing') return { kind: 'missing' };
  if (where.kind !== 'file') return undefined;
  const { handle, stat } = await openFileVerified(where.real, where.real, where.abs, 'read');
  try {
    if (stat.size > maxBytes) return { kind: 'tooLarge', bytes: stat.size };
    // Read one byte past the bound: a file that grew since the stat is still caught.
    const buffer = Buffer.alloc(Math.min(maxBytes + 1, stat.size + 1));
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) return { kind: 'tooLarge', bytes: length };
    const bytes = buffer.subarray(0, length);
    if (bytes.subarray(0, binarySniffBytes).includes(0)) return { kind: 'binary' };
    try {
      return { kind: 'text', text: utf8.decode(bytes) };
    } catch {
      // Not UTF-8: a diff of its decoded text would show changes that are not there.
      return { kind: 'binary' };
    }
  } finally {
    await handle.close();
  }
}

/** Whether the file still holds what was captured (a reviewed write must replace what the person saw). */
export function sameSide(a: EditSide, b: EditSide): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'text' && b.kind === 'text') return a.text === b.text;
  if (a.kind === 'tooLarge' && b.kind === 'tooLarge') return a.bytes === b.bytes;
  // Missing, or binary (whose bytes are not kept: the review showed no diff of them).
  return true;
}
