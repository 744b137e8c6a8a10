// A session transcript: batched, fenced, durable appends, and reads of the tail or the whole file.

import { appendJsonl, readJsonl, type JsonlReadResult, type OpenForAppend } from './jsonl';
import { writeFileAtomic } from './atomicFile';
import { boundRecord } from './recordBound';
import { oversizePath } from './storePaths';
import { readTail, type TailOptions, type TailResult } from './tailReader';
import { parseTranscriptRecord, type RecordInput, type TranscriptRecord } from './transcriptRecords';
import type { Redactor } from '../common/redactor';
import { RecordRedaction } from './recordRedaction';

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
  /** Secrets to cut out of every record before it is written or shown. */
  redactor?: Redactor;
}

/**
 * Coalesces appends made in the same tick (and while a batch is being written) into one write.
 * Appends that share a batch share one promise: no allocation per record beyond the record.
 */
export class TranscriptWriter {
  private batches: Batch[] = [];
  private running: Promise<void> | undefined;
  private readonly redaction: RecordRedaction | undefined;

  constructor(
    readonly file: string,
    private readonly options: TranscriptWriterOptions = {},
  ) {
    this.redaction = options.redactor ? new RecordRedaction(options.redactor) : undefined;
  }

  /** Resolves once the records are durable; rejects (e.g. STALE_EPOCH) if their batch was refused. */
  append(input: RecordInput | readonly RecordInput[]): Promise<void> {
    // Secrets out first: what is written, and so what any view is shown, never holds one.
    if (this.redaction) input = this.redaction.apply(input);
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
        const write = () => this.writeBatch(batch.records);
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

  /**
   * One batch, bounded: a record over the size bound is stored cut, and its whole line is first
   * written (durably) beside the transcript, so the marker in the cut record never points at nothing.
   */
  private async writeBatch(records: TranscriptRecord[]): Promise<void> {
    const lines: string[] = [];
    for (let i = 0; i < records.length; i += 1) {
      const bounded = boundRecord(records[i], () => oversizePath(this.file, records[i].at));
      if (bounded.full !== undefined) {
        const where = (bounded.record as TranscriptRecord).truncated?.fullRecord ?? oversizePath(this.file, records[i].at);
        await writeFileAtomic(where, bounded.full + '\n');
        records[i] = bounded.record as TranscriptRecord;
      }
      lines.push(bounded.line);
    }
    await appendJsonl(this.file, lines, { fsync: this.options.fsync !== false, open: this.options.open, serialized: true });
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

export type { TailResult, TailOptions } from './tailReader';

/** The last `count` records, read backwards from the end: cost is linear in what is read, never in the file. */
export function readTranscriptTail(file: string, count: number, options: number | TailOptions = {}): Promise<TailResult> {
  return readTail(file, count, typeof options === 'number' ? { chunkSize: options } : options);
}
