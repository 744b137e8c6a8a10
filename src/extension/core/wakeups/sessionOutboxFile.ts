// One session's outbox file: folds its lines incrementally, appends transitions under a cross-window lock, compacts.

import * as fsCallbacks from 'node:fs';
import { promises as fs } from 'node:fs';
import { promisify } from 'node:util';
import { withFileLock } from '../common/fileLock';
import type { Logger } from '../ports/logger';
import { SMALL, storageError, writeFileAtomic } from '../store/atomicFile';
import { appendJsonl } from '../store/jsonl';
import { applyOp, entryToOp, opSchema, type OutboxEntry, type OutboxOp } from './outboxTypes';

const readAt = promisify(fsCallbacks.read);

/** Delivered keys are remembered this long so a late duplicate completion is still recognised. */
const DELIVERED_MEMORY_MS = 7 * 24 * 3600 * 1000;

export class SessionOutboxFile {
  readonly entries = new Map<string, OutboxEntry>();
  private offset = 0;
  private ino = -1;
  private lines = 0;
  private corrupt: Array<{ lineNumber: number; text: string }> = [];
  /** Size and inode seen by the last fold, so an idle sweep can skip unchanged files without locking. */
  private seen = { ino: -1, size: -1 };

  constructor(
    readonly sessionId: string,
    readonly file: string,
    private readonly logger: Logger,
  ) {}

  /** Runs `fn` holding the session's file lock, with the state refreshed from disk first. */
  async locked<T>(fn: () => Promise<T>): Promise<T> {
    return withFileLock(
      this.file,
      `${this.file}.lock`,
      this.logger,
      async () => {
        await this.refresh(true);
        return fn();
      },
      { retries: { retries: 200, minTimeout: 2, maxTimeout: 50, factor: 1.3 }, busyCode: 'STORAGE_UNWRITABLE', what: `the wakeup outbox ${this.file}`, createFolder: false },
    );
  }

  /** Appends transitions durably (one write, one fsync), then folds them. Call inside `locked`. */
  async append(ops: OutboxOp[]): Promise<void> {
    if (ops.length === 0) return;
    await appendJsonl(this.file, ops);
    await this.refresh(true);
    await this.compactIfWorthIt();
  }

  /** Whether the file changed since the last fold (another window wrote). */
  async changedOnDisk(): Promise<boolean> {
    try {
      const st = await fs.stat(this.file);
      return st.ino !== this.seen.ino || st.size !== this.seen.size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.seen.size > 0;
      throw storageError(this.file, error);
    }
  }

  /** Folds lines appended since the last call; a replaced file (compaction elsewhere) is folded from scratch. */
  private async refresh(holdingLock: boolean): Promise<void> {
    // Synchronous calls but for a large read (a first fold): see SMALL in atomicFile.ts.
    let fd: number;
    try {
      fd = fsCallbacks.openSync(this.file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.reset(-1);
        this.seen = { ino: -1, size: 0 };
        return;
      }
      throw storageError(this.file, error);
    }
    try {
      const st = fsCallbacks.fstatSync(fd);
      if (st.ino !== this.ino || st.size < this.offset) this.reset(st.ino);
      const length = st.size - this.offset;
      if (length > 0) {
        const buf = Buffer.alloc(length);
        const read = length <= SMALL ? async (at: number) => fsCallbacks.readSync(fd, buf, at, length - at, this.offset + at) : async (at: number) => (await readAt(fd, buf, at, length - at, this.offset + at)).bytesRead;
        let got = 0;
        while (got < length) {
          const bytesRead = await read(got);
          if (bytesRead === 0) break;
          got += bytesRead;
        }
        // Only whole lines: a line still being written (or torn by a crash) waits for its newline.
        const end = buf.lastIndexOf(0x0a, got - 1);
        if (end >= 0) {
          this.fold(buf.subarray(0, end + 1).toString('utf8'));
          this.offset += end + 1;
        }
      }
      this.seen = { ino: st.ino, size: st.size };
    } finally {
      fsCallbacks.closeSync(fd);
    }
    if (holdingLock && this.corrupt.length > 0) await this.quarantineAndCompact();
  }

  private reset(ino: number): void {
    this.entries.clear();
    this.offset = 0;
    this.lines = 0;
    this.ino = ino;
  }

  private fold(text: string): void {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      this.lines += 1;
      let parsed: OutboxOp | undefined;
      try {
        const result = opSchema.safeParse(JSON.parse(line));
        parsed = result.success ? result.data : undefined;
      } catch {
        parsed = undefined;
      }
      if (parsed) applyOp(this.entries, parsed);
      else this.corrupt.push({ lineNumber: this.lines, text: line });
    }
  }

  private async quarantineAndCompact(): Promise<void> {
    const bad = this.corrupt.splice(0);
    const body = bad.map((l) => JSON.stringify({ lineNumber: l.lineNumber, text: l.text, at: new Date().toISOString() })).join('\n') + '\n';
    try {
      await fs.appendFile(`${this.file}.quarantine`, body, 'utf8');
    } catch (error) {
      throw storageError(`${this.file}.quarantine`, error);
    }
    this.logger.error(`wakeup outbox ${this.file}: ${bad.length} corrupt line(s) moved to ${this.file}.quarantine; the other records are kept`);
    await this.compact();
  }

  /** Compacts once the file is more than about twice what a compacted copy would hold. */
  private async compactIfWorthIt(): Promise<void> {
    let estimate = 0;
    for (const e of this.entries.values()) estimate += e.completion ? e.completion.output.length + e.completion.command.length + 400 : 120;
    if (this.offset > 2 * estimate + 128 * 1024) await this.compact();
  }

  /** Rewrites the file as one line per entry (atomic rename), forgetting long-delivered keys. */
  private async compact(): Promise<void> {
    const cutoff = Date.now() - DELIVERED_MEMORY_MS;
    const ops = [...this.entries.values()].filter((e) => e.state !== 'delivered' || (e.deliveredAt ?? 0) >= cutoff).map(entryToOp);
    const body = ops.map((o) => JSON.stringify(o)).join('\n') + (ops.length > 0 ? '\n' : '');
    await writeFileAtomic(this.file, body);
    this.reset(-1);
    await this.refresh(true);
  }
}
