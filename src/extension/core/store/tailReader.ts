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
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw storageError(file, error);
  }
  try {
    const { size } = await handle.stat();
    const lines = new TailLines(file, count, options, result);
    // The file's last byte: a newline ends the last line; anything else is a torn line to skip.
    let position = size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] === 0x0a) position = size - 1;
      else lines.skipFirst();
    }
    await readBackwards(handle, file, position, options.chunkSize ?? 64 * 1024, lines);
    result.records.reverse();
    result.corrupt.reverse();
    return result;
  } catch (error) {
    throw storageError(file, error);
  } finally {
    await handle.close();
  }
}

/** Feeds the file's bytes before `position` to `lines`, last chunk first, until it has enough. */
async function readBackwards(handle: fs.FileHandle, file: string, position: number, baseChunk: number, lines: TailLines): Promise<void> {
  while (position > 0) {
    // Grows while one long line is crossed, so a 100 MB line costs ~100 reads, not 1,600.
    const want = Math.min(position, Math.max(baseChunk, Math.min(lines.pending, 8 * 1024 * 1024)));
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
        lines.add(chunk.subarray(0, end));
        break;
      }
      lines.add(chunk.subarray(nl + 1, end));
      if (lines.finish(position + nl + 1)) return;
      end = nl;
    }
  }
  if (lines.pending > 0) lines.finish(0);
}

/** Assembles lines from chunks read back to front, and turns each finished one into a record of `result`. */
class TailLines {
  /** The line being assembled, as chunks from its end towards its start. */
  private parts: Buffer[] = [];
  private length = 0;
  private tooLong = false;
  private lineTail: Buffer | undefined;
  /** The bytes after the file's last newline: a write in progress or torn by a crash, not a record yet. */
  private torn = false;
  private kept = 0;
  private readonly maxBytes: number;
  private readonly maxLine: number;

  constructor(
    private readonly file: string,
    private readonly count: number,
    options: TailOptions,
    private readonly result: TailResult,
  ) {
    this.maxBytes = options.maxBytes ?? TAIL_BYTE_BUDGET;
    this.maxLine = options.maxLineBytes ?? MAX_LINE_BYTES;
  }

  /** Bytes of the line being assembled. */
  get pending(): number {
    return this.length;
  }

  skipFirst(): void {
    this.torn = true;
  }

  add(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.lineTail ??= Buffer.from(chunk.subarray(Math.max(0, chunk.length - EDGE)));
    this.length += chunk.length;
    if (this.tooLong) {
      this.parts = [chunk.subarray(0, Math.min(EDGE, chunk.length))];
      return;
    }
    this.parts.push(chunk);
    if (this.length > this.maxLine) {
      this.tooLong = true;
      this.parts = [chunk.subarray(0, Math.min(EDGE, chunk.length))];
    }
  }

  /** Ends the line that starts at byte `start`; true once enough records are read (or the budget is spent). */
  finish(start: number): boolean {
    const { parts, length, tooLong, lineTail, torn } = this;
    this.parts = [];
    this.length = 0;
    this.tooLong = false;
    this.lineTail = undefined;
    this.torn = false;
    if (torn || length === 0) return false;
    const { result } = this;
    if (tooLong) {
      const head = parts[parts.length - 1] ?? Buffer.alloc(0);
      result.records.push(placeholder(this.file, start, length, head, lineTail ?? Buffer.alloc(0), this.maxLine));
      return result.records.length >= this.count;
    }
    if (this.kept + length > this.maxBytes && result.records.length > 0) {
      result.olderOmitted = true;
      return true;
    }
    this.kept += length;
    const text = (parts.length === 1 ? parts[0] : Buffer.concat(parts.reverse(), length)).toString('utf8');
    if (text.trim() === '') return false;
    const record = parseLine(text);
    if (record) result.records.push(record);
    else result.corrupt.push({ file: this.file, lineNumber: -1, text: text.length > 1024 ? `${text.slice(0, 1024)}… (${formatBytes(length)})` : text });
    return result.records.length >= this.count;
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
