// Follows a task's log file as the wrapper appends and rotates it (`log` → `log.1`), decoding UTF-8 across reads.
// Only the task's wrapper rotates its log (taskWrapper.pl / taskWrapper.ts, whether or not a window
// follows it); the follower only reads. A log cut short in place (truncated by something else) is read
// on from its new start.

import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { CoalescingRun } from '../common/coalescingRun';

const READ_BYTES = 64 * 1024;

export class LogFollower {
  private handle: FileHandle | undefined;
  private ino = -1;
  private pos = 0;
  private decoder = new StringDecoder('utf8');
  private readonly reads = new CoalescingRun(() => this.readAvailable(), () => this.closed);
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly onText: (text: string) => void,
  ) {}

  /** Opens the log at its current end (re-attach) or start (a fresh task); returns the start position. */
  async open(at: 'start' | 'end'): Promise<{ ino: number; size: number }> {
    this.handle = await fs.open(this.file, 'r');
    const st = await this.handle.stat();
    this.ino = st.ino;
    this.pos = at === 'end' ? st.size : 0;
    return { ino: st.ino, size: st.size };
  }

  /** Reads whatever was appended since the last call; concurrent calls coalesce into one more pass. */
  poke(): Promise<void> {
    return this.reads.request();
  }

  /** Flushes a trailing partial character (end of output). */
  flush(): void {
    const rest = this.decoder.end();
    if (rest) this.onText(rest);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.reads.current?.catch(() => undefined);
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  private async readAvailable(): Promise<void> {
    for (;;) {
      if (this.closed || !this.handle) return;
      // Stat the path before draining: if it already names a new file, the wrapper closed the old
      // one before renaming it, so what we drain from our handle afterwards is all it will ever hold.
      let pathIno = this.ino;
      try {
        pathIno = (await fs.stat(this.file)).ino;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      await this.drainHandle();
      if (pathIno === this.ino) return;
      const old = this.handle;
      try {
        this.handle = await fs.open(this.file, 'r');
      } catch (error) {
        // Mid-rotation: the new file is not there yet; the next poke picks it up.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      await old.close();
      this.ino = (await this.handle.stat()).ino;
      this.pos = 0;
    }
  }

  private async drainHandle(): Promise<void> {
    const buf = Buffer.allocUnsafe(READ_BYTES);
    for (;;) {
      if (this.closed || !this.handle) return;
      const { bytesRead } = await this.handle.read(buf, 0, READ_BYTES, this.pos);
      if (bytesRead === 0) {
        if (this.pos > 0 && (await this.handle.stat()).size < this.pos) {
          this.pos = 0;
          continue;
        }
        return;
      }
      this.pos += bytesRead;
      const text = this.decoder.write(buf.subarray(0, bytesRead));
      if (text) this.onText(text);
    }
  }
}

/**
 * Reads up to `maxBytes` of the end of a task's output from `log.1` + `log` (the first `logSize`
 * bytes of `log`), starting on a character boundary. `truncated` says whether anything before it exists.
 */
export async function readLogTail(file: string, logSize: number, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const parts: Buffer[] = [];
  let truncated = false;
  const fromCurrent = Math.min(logSize, maxBytes);
  if (fromCurrent < maxBytes) {
    const older = await readRange(`${file}.1`, maxBytes - fromCurrent, true);
    if (older) {
      parts.push(older.data);
      truncated = older.hadMore;
    }
  } else if (logSize > maxBytes) {
    truncated = true;
  } else {
    truncated = await exists(`${file}.1`);
  }
  const current = await readRange(file, fromCurrent, false, logSize);
  if (current) parts.push(current.data);
  let data = Buffer.concat(parts);
  let start = 0;
  while (start < data.length && (data[start] & 0xc0) === 0x80) start += 1;
  if (start > 0) {
    data = data.subarray(start);
    truncated = true;
  }
  return { text: data.toString('utf8'), truncated };
}

async function readRange(file: string, maxBytes: number, fromEnd: boolean, endAt?: number): Promise<{ data: Buffer; hadMore: boolean } | undefined> {
  let handle: FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = endAt ?? (await handle.stat()).size;
    const length = Math.min(size, maxBytes);
    const start = fromEnd || endAt !== undefined ? size - length : 0;
    const data = Buffer.alloc(length);
    let off = 0;
    while (off < length) {
      const { bytesRead } = await handle.read(data, off, length - off, start + off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    return { data: data.subarray(0, off), hadMore: start > 0 };
  } finally {
    await handle.close();
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
