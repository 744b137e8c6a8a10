// Reads what other processes append to a transcript, from a byte offset on: complete lines only
// (a torn last line waits for its newline), each record validated; a rewrite (shorter file) resets.

import { promises as fs } from 'node:fs';
import { parseTranscriptRecord, type TranscriptRecord } from '../store/transcriptRecords';

/** A follower never reads more than this per pass; the rest comes on the next pass. */
const MAX_READ = 8 * 1024 * 1024;

export async function fileSize(file: string): Promise<number> {
  return (await fileIdentity(file)).size;
}

/** Size and inode: a quarantine move replaces the file, which a size check alone can miss once appends outgrow the old offset. */
async function fileIdentity(file: string): Promise<{ size: number; ino: number }> {
  try {
    const stat = await fs.stat(file);
    return { size: stat.size, ino: stat.ino };
  } catch {
    return { size: 0, ino: 0 };
  }
}

export class TranscriptFollower {
  private first = true;
  private ino: number | undefined;

  constructor(
    private readonly file: string,
    private offset: number,
    /** The records the view already has, to drop the overlap of the first read. */
    private readonly tail: readonly TranscriptRecord[] = [],
  ) {}

  /** New complete records since the last read; `reset` when the file was rewritten underneath. */
  async read(): Promise<{ records: TranscriptRecord[]; reset: boolean }> {
    const { size, ino } = await fileIdentity(this.file);
    const replaced = this.ino !== undefined && ino !== this.ino;
    this.ino = ino;
    if (replaced || size < this.offset) return { records: [], reset: true };
    if (size === this.offset) return { records: [], reset: false };
    const length = Math.min(size - this.offset, MAX_READ);
    const buffer = Buffer.alloc(length);
    const handle = await fs.open(this.file, 'r');
    let got: number;
    try {
      ({ bytesRead: got } = await handle.read(buffer, 0, length, this.offset));
    } finally {
      await handle.close();
    }
    const end = buffer.subarray(0, got).lastIndexOf(0x0a);
    if (end < 0) {
      // One record longer than a pass: skip it (the view is told through the tail read on reopen).
      if (length === MAX_READ) this.offset += got;
      return { records: [], reset: false };
    }
    const text = buffer.subarray(0, end).toString('utf8');
    this.offset += end + 1;
    const records: TranscriptRecord[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const record = parseTranscriptRecord(JSON.parse(line));
        if (record) records.push(record);
      } catch {
        continue;
      }
    }
    if (this.first) {
      this.first = false;
      return { records: dropOverlap(this.tail, records), reset: false };
    }
    return { records, reset: false };
  }

  /** Skips what this window appended itself (it already showed it). */
  async skipToEnd(): Promise<void> {
    const { size, ino } = await fileIdentity(this.file);
    this.offset = size;
    this.ino = ino;
    this.first = false;
  }
}

/** `next` minus its longest prefix that is also a suffix of `tail`. */
export function dropOverlap(tail: readonly TranscriptRecord[], next: TranscriptRecord[]): TranscriptRecord[] {
  const key = (r: TranscriptRecord) => JSON.stringify(r);
  for (let overlap = Math.min(tail.length, next.length); overlap > 0; overlap -= 1) {
    let same = true;
    for (let i = 0; i < overlap && same; i += 1) same = key(tail[tail.length - overlap + i]) === key(next[i]);
    if (same) return next.slice(overlap);
  }
  return next;
}
