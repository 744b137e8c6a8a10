// Reads an open file as ACP asks (whole, or `line`/`limit`) in fixed chunks through one reused buffer, so memory
// stays bounded by what is returned, never by the file's size. Both bounds below are documented in core/acp/README.md.

import type { FileHandle } from 'node:fs/promises';
import { VigilError } from '../common/errors';

/** A whole-file read above this is refused with "read a range": an agent's context cannot use more anyway. */
export const maxWholeReadBytes = 8 * 1024 * 1024;
/** The text one ranged read may return (lines selected by `line`/`limit`). */
export const maxRangeBytes = 8 * 1024 * 1024;
const chunkBytes = 256 * 1024;
const newline = 0x0a;

export interface LineRange {
  line?: number | null;
  limit?: number | null;
}

/** `line` is 1-based; `limit` 0 or absent means "to the end". Anything else is refused before any I/O. */
export function checkRange(range: LineRange): { first: number; count: number } {
  for (const [name, value] of [['line', range.line], ['limit', range.limit]] as const) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new VigilError('INVALID_INPUT', `"${name}" must be a whole number ≥ 0 (got ${String(value)}).`);
    }
  }
  return { first: Math.max(1, range.line ?? 1), count: range.limit ? range.limit : Infinity };
}

function mb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Reads the selected lines of an open regular file of `size` bytes (at open time; growth is bounded too). */
export async function readRange(handle: FileHandle, size: number, range: LineRange, abs: string, signal?: AbortSignal): Promise<string> {
  const { first, count } = checkRange(range);
  const whole = first === 1 && count === Infinity;
  if (whole && size > maxWholeReadBytes) {
    throw new VigilError('INVALID_INPUT', `File too large (${mb(size)}): ${abs}. Read a range with "line" and "limit" (at most ${mb(maxRangeBytes)} per read).`);
  }
  const cap = whole ? maxWholeReadBytes : maxRangeBytes;
  const buffer = Buffer.allocUnsafe(chunkBytes);
  const parts: Buffer[] = [];
  let kept = 0;
  let newlines = 0; // newlines passed so far; line k starts after k-1 of them
  const startAfter = first - 1;
  const endAt = startAfter + count; // the newline that ends the last wanted line (not returned)
  let position = 0;
  for (;;) {
    if (signal?.aborted) throw new VigilError('CANCELLED', `Reading ${abs} was cancelled.`);
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    let i = 0;
    let done = false;
    while (i < bytesRead) {
      if (newlines < startAfter) {
        const j = chunk.indexOf(newline, i);
        if (j < 0) break;
        newlines += 1;
        i = j + 1;
        continue;
      }
      // Collecting: one copy per chunk (never one per line, which would cost an object per short line).
      let end = -1;
      for (let k = i; ; ) {
        const j = chunk.indexOf(newline, k);
        if (j < 0) break;
        if (newlines + 1 >= endAt) {
          end = j;
          break;
        }
        newlines += 1;
        k = j + 1;
      }
      const piece = chunk.subarray(i, end >= 0 ? end : bytesRead);
      kept += piece.length;
      if (kept > cap) throw tooLong(abs, first, count, cap, whole);
      parts.push(Buffer.from(piece)); // a copy: the buffer is reused for the next chunk
      done = end >= 0;
      break;
    }
    if (done) break;
  }
  return Buffer.concat(parts, kept).toString('utf8');
}

function tooLong(abs: string, first: number, count: number, cap: number, whole: boolean): VigilError {
  if (whole) return new VigilError('INVALID_INPUT', `File too large (it grew past ${mb(cap)} while being read): ${abs}. Read a range with "line" and "limit".`);
  const what = count === Infinity ? `the lines from ${first} to the end` : count === 1 ? `line ${first}` : `lines ${first}–${first + count - 1}`;
  return new VigilError('INVALID_INPUT', `Range too large: ${what} of ${abs} hold more than ${mb(cap)}. Ask for fewer lines with "limit"${count === 1 ? ' (this one line is longer than that; the file is likely not text)' : ''}.`);
}
