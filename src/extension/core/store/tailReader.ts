// Reads the last records of a JSONL transcript backwards in linear time, whatever the shape of the file.

import { promises as fs } from 'node:fs';
import { storageError } from './atomicFile';
import type { CorruptLine } from './jsonl';
import { formatBytes, MAX_LINE_BYTES } from './recordBound';
import { parseTranscriptRecord, type TranscriptRecord } from './transcriptRecords';

export interface TailResult {
  records: TranscriptRecord[];
  /** Complete lines that did not parse (their text cut to 1 KB): the caller reports and moves them. */
  corrupt: CorruptLine[];
  /** True when older records exist that were not read because the byte budget was spent. */
  olderOmitted: boolean;
}

export interface TailOptions {
  /** First read size; grows while one long line is crossed, so a 100 MB line costs ~100 reads. */
  chunkSize?: number;
  /** Budget of line bytes kept for parsing: a first paint never parses more than this. */
  maxBytes?: number;
  /** A line longer than this is not parsed; a placeholder notice says where it stays. */
  maxLineBytes?: number;
}

export const TAIL_BYTE_BUDGET = 16 * 1024 * 1024;
const EDGE = 512;

/**
 * The last `count` records of `file`. Each byte is read once and lines are assembled from the
 * chunks that hold them (no buffer regrown per chunk), so the cost is linear in what is read:
 * at most `maxBytes` of lines, plus a scan past any over-long line without keeping it.
 */
export async function readTail(file: string, count: number, options: TailOptions = {}): Promise<TailResult> {
  const result: TailResult = { records: [], corrupt: [], olderOmitted: false };
  if (count <= 0) return result;
  const maxBytes = options.maxBytes ?? TAIL_BYTE_BUDGET;
  const maxLine = options.maxLineBytes ?? MAX_LINE_BYTES;
  const baseChunk = options.chunkSize ?? 64 * 1024;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw storageError(file, error);
  }
  try {
    const { size } = await handle.stat();
    // The line being assembled, as chunks from its end towards its start.
    let parts: Buffer[] = [];
    let length = 0;
    let tooLong = false;
    let lineTail: Buffer | undefined;
    let first = true;
    let kept = 0;
    const finishLine = (start: number): boolean => {
      const isTorn = first && size > 0;
      first = false;
      const lineParts = parts;
      const lineLength = length;
      const wasTooLong = tooLong;
      const tailBytes = lineTail;
      parts = [];
      length = 0;
      tooLong = false;
      lineTail = undefined;
      // The bytes after the last newline are a write in progress or torn by a crash: not a record yet.
      if (isTorn) return false;
      if (lineLength === 0) return false;
      if (wasTooLong) {
        const head = lineParts[lineParts.length - 1] ?? Buffer.alloc(0);
        result.records.push(placeholder(file, start, lineLength, head, tailBytes ?? Buffer.alloc(0), maxLine));
        return result.records.length >= count;
      }
      if (kept + lineLength > maxBytes && result.records.length > 0) {
        result.olderOmitted = true;
        return true;
      }
      kept += lineLength;
      const bytes = lineParts.length === 1 ? lineParts[0] : Buffer.concat(lineParts.reverse(), lineLength);
      const text = bytes.toString('utf8');
      if (text.trim() === '') return false;
      const record = parseLine(text);
      if (record) result.records.push(record);
      else result.corrupt.push({ file, lineNumber: -1, text: text.length > 1024 ? `${text.slice(0, 1024)}… (${formatBytes(lineLength)})` : text });
      return result.records.length >= count;
    };
    const addPart = (chunk: Buffer) => {
      if (chunk.length === 0) return;
      lineTail ??= Buffer.from(chunk.subarray(Math.max(0, chunk.length - EDGE)));
      length += chunk.length;
      if (tooLong) {
        parts = [chunk.subarray(0, Math.min(EDGE, chunk.length))];
        return;
      }
      parts.push(chunk);
      if (length > maxLine) {
        tooLong = true;
        parts = [chunk.subarray(0, Math.min(EDGE, chunk.length))];
      }
    };
    // The file's last byte: a newline ends the last line; anything else is a torn line to skip.
    let position = size;
    let done = false;
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] === 0x0a) {
        first = false;
        position = size - 1;
      }
    }
    while (position > 0 && !done) {
      const want = Math.min(position, Math.max(baseChunk, Math.min(length, 8 * 1024 * 1024)));
      position -= want;
      const chunk = Buffer.allocUnsafe(want);
      let got = 0;
      while (got < want) {
        const { bytesRead } = await handle.read(chunk, got, want - got, position + got);
        if (bytesRead === 0) throw new Error(`${file} shrank while it was read`);
        got += bytesRead;
      }
      let end = want;
      for (;;) {
        const nl = end > 0 ? chunk.lastIndexOf(0x0a, end - 1) : -1;
        if (nl < 0) {
          addPart(chunk.subarray(0, end));
          break;
        }
        addPart(chunk.subarray(nl + 1, end));
        if (finishLine(position + nl + 1)) {
          done = true;
          break;
        }
        end = nl;
      }
    }
    if (!done && length > 0) finishLine(0);
    result.records.reverse();
    result.corrupt.reverse();
    return result;
  } catch (error) {
    throw storageError(file, error);
  } finally {
    await handle.close();
  }
}

/** Stands in for a line too long to parse at open: says how big it is and where it stays. */
function placeholder(file: string, start: number, length: number, head: Buffer, tail: Buffer, maxLine: number): TranscriptRecord {
  const headText = head.toString('utf8');
  const at = /"at":(\d+)\}\s*$/.exec(tail.toString('utf8'))?.[1];
  const type = /^\{"type":"([A-Za-z]+)"/.exec(headText)?.[1] ?? 'unknown';
  const turnId = /"turnId":"([^"]{1,100})"/.exec(headText)?.[1];
  return {
    type: 'notice',
    level: 'warning',
    at: at ? Number(at) : 0,
    ...(turnId ? { turnId } : {}),
    text: `A stored ${type} record of ${formatBytes(length)} is too large to show (the limit is ${formatBytes(maxLine)}); it is kept unchanged in ${file} at byte ${start}.`,
  };
}

function parseLine(text: string): TranscriptRecord | undefined {
  try {
    return parseTranscriptRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
}
