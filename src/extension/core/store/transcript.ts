// A session transcript: batched, fenced, durable appends, and reads of the tail or the whole file.

import { promises as fs } from 'node:fs';
import { appendJsonl, readJsonl, type CorruptLine, type JsonlReadResult, type OpenForAppend } from './jsonl';
import { storageError } from './atomicFile';
import { parseTranscriptRecord, type RecordInput, type TranscriptRecord } from './transcriptRecords';

/**
 * Runs one durable write; the lease supplies one that refuses the write when the turn's
 * fencing epoch is no longer current (and the supervisor adds a commit barrier around it).
 */
export type WriteGuard = <T>(write: () => Promise<T>) => Promise<T>;

/** Records waiting for the next write; every append in it settles with the one write. */
interface Batch {
  records: TranscriptRecord[];
  done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

export interface TranscriptWriterOptions {
  guard?: WriteGuard;
  /** Records per write; one fsync per batch is what makes durable appends cheap. */
  maxBatch?: number;
  fsync?: boolean;
  /** How the file is opened for each batch (a test injects a full disk here). */
  open?: OpenForAppend;
  now?: () => number;
  /** Called with each batch once it is durable, so views show exactly what the transcript holds. */
  onWritten?: (records: readonly TranscriptRecord[]) => void;
}

/**
 * Coalesces appends made in the same tick (and while a batch is being written) into one write.
 * Appends that share a batch share one promise: no allocation per record beyond the record.
 */
export class TranscriptWriter {
  private batches: Batch[] = [];
  private running: Promise<void> | undefined;

  constructor(
    readonly file: string,
    private readonly options: TranscriptWriterOptions = {},
  ) {}

  /** Resolves once the records are durable; rejects (e.g. STALE_EPOCH) if their batch was refused. */
  append(input: RecordInput | readonly RecordInput[]): Promise<void> {
    const now = this.options.now ?? Date.now;
    const max = this.options.maxBatch ?? 4096;
    let batch = this.batches[this.batches.length - 1];
    if (!batch || batch.records.length >= max) batch = this.newBatch();
    if (Array.isArray(input)) {
      for (const r of input as readonly RecordInput[]) batch.records.push({ ...r, at: r.at ?? now() } as TranscriptRecord);
    } else {
      const r = input as RecordInput;
      batch.records.push({ ...r, at: r.at ?? now() } as TranscriptRecord);
    }
    if (!this.running) this.running = this.drain();
    return batch.done;
  }

  /** Resolves when everything appended so far was written (or refused). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private newBatch(): Batch {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // A caller that drops the promise must not cause an unhandled rejection; callers that await still see it.
    done.catch(() => undefined);
    const batch = { records: [], done, resolve, reject };
    this.batches.push(batch);
    return batch;
  }

  private async drain(): Promise<void> {
    // Let the current tick's appends join the first batch.
    await Promise.resolve();
    try {
      while (this.batches.length > 0) {
        const batch = this.batches.shift()!;
        const write = () => appendJsonl(this.file, batch.records, { fsync: this.options.fsync !== false, open: this.options.open });
        try {
          await (this.options.guard ? this.options.guard(write) : write());
          batch.resolve();
          this.notifyWritten(batch.records);
        } catch (error) {
          batch.reject(error);
        }
      }
    } finally {
      this.running = undefined;
    }
  }

  private notifyWritten(records: TranscriptRecord[]): void {
    try {
      this.options.onWritten?.(records);
    } catch {
      // A listener's failure must never fail a durable write that already happened.
      return;
    }
  }
}

/** Every record, streamed; corrupt lines are quarantined and reported, a torn tail ignored. */
export function readTranscript(file: string): Promise<JsonlReadResult<TranscriptRecord>> {
  return readJsonl(file, parseTranscriptRecord);
}

export interface TailResult {
  records: TranscriptRecord[];
  corrupt: CorruptLine[];
}

/** The last `count` records, reading backwards from the end in chunks: cost is independent of file size. */
export async function readTranscriptTail(file: string, count: number, chunkSize = 64 * 1024): Promise<TailResult> {
  const result: TailResult = { records: [], corrupt: [] };
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
    let position = size;
    let tail = Buffer.alloc(0);
    let newlines = 0;
    // Lines wanted: one per record asked, plus every corrupt line met on the way, plus one more
    // so that the first kept line is known to be complete.
    let needed = count;
    for (;;) {
      while (position > 0 && newlines <= needed) {
        const length = Math.min(chunkSize, position);
        position -= length;
        const chunk = Buffer.alloc(length);
        await handle.read(chunk, 0, length, position);
        for (const byte of chunk) if (byte === 0x0a) newlines += 1;
        tail = Buffer.concat([chunk, tail]);
      }
      const lines = splitLines(tail);
      // A last line without its newline is a torn write in progress or interrupted: not a record yet.
      if (tail.length > 0 && tail[tail.length - 1] !== 0x0a) lines.pop();
      if (position > 0) lines.shift();
      result.records = [];
      result.corrupt = [];
      for (let i = lines.length - 1; i >= 0 && result.records.length < count; i -= 1) {
        if (lines[i].trim() === '') continue;
        const record = parseLine(lines[i]);
        if (record) result.records.push(record);
        else result.corrupt.push({ file, lineNumber: -1, text: lines[i] });
      }
      if (result.records.length >= count || position === 0) break;
      needed = count + result.corrupt.length + (lines.length - result.records.length - result.corrupt.length);
      if (needed < newlines) needed = newlines;
    }
    result.records.reverse();
    result.corrupt.reverse();
    return result;
  } catch (error) {
    throw storageError(file, error);
  } finally {
    await handle.close();
  }
}

function splitLines(buffer: Buffer): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < buffer.length; i += 1) {
    if (buffer[i] === 0x0a) {
      lines.push(buffer.subarray(start, i).toString('utf8'));
      start = i + 1;
    }
  }
  if (start < buffer.length) lines.push(buffer.subarray(start).toString('utf8'));
  return lines;
}

function parseLine(text: string): TranscriptRecord | undefined {
  try {
    return parseTranscriptRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
}
