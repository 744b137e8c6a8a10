// Append-only JSON Lines files: tolerant reading (torn last line, corrupt lines quarantined) and appends.

import * as fsCallbacks from 'node:fs';
import { promises as fs, createReadStream } from 'node:fs';
import * as readline from 'node:readline';
import { VigilError } from '../common/errors';
import { fsyncFd, SMALL, storageError } from './atomicFile';

export interface CorruptLine {
  file: string;
  lineNumber: number;
  text: string;
}

export interface JsonlReadResult<T> {
  records: T[];
  /** Complete lines that did not parse; skipped here, moved out by the caller (store/quarantine.ts). */
  corrupt: CorruptLine[];
  /** True when the last line had no newline and did not parse (a torn write); it is ignored. */
  tornTail: boolean;
}

/**
 * Streams a JSONL file record by record without loading it whole. `validate` may reject a parsed
 * value (return undefined) so that a record of the wrong shape is quarantined like a corrupt one.
 */
export async function readJsonl<T>(
  file: string,
  validate: (value: unknown) => T | undefined = (v) => v as T,
): Promise<JsonlReadResult<T>> {
  const result: JsonlReadResult<T> = { records: [], corrupt: [], tornTail: false };
  let endsWithNewline = true;
  try {
    const stat = await fs.stat(file);
    if (stat.size === 0) return result;
    const handle = await fs.open(file, 'r');
    try {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, stat.size - 1);
      endsWithNewline = last[0] === 0x0a;
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw storageError(file, error);
  }

  const lines = readline.createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let lineNumber = 0;
  let pending: { text: string; lineNumber: number } | undefined;
  const consume = (text: string, n: number, isLast: boolean) => {
    if (text.trim() === '') return;
    let value: T | undefined;
    try {
      value = validate(JSON.parse(text));
    } catch {
      value = undefined;
    }
    if (value !== undefined) {
      result.records.push(value);
    } else if (isLast && !endsWithNewline) {
      result.tornTail = true;
    } else {
      result.corrupt.push({ file, lineNumber: n, text });
    }
  };
  for await (const line of lines) {
    lineNumber += 1;
    if (pending) consume(pending.text, pending.lineNumber, false);
    pending = { text: line, lineNumber };
  }
  if (pending) consume(pending.text, pending.lineNumber, true);

  return result;
}

/** The part of a file handle an append needs; a test wraps a real one to inject ENOSPC mid-write. */
export interface AppendHandle {
  stat(): Promise<{ size: number }>;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  appendFile(data: string, encoding: 'utf8'): Promise<void>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

/** Opens a file for appending: the seam through which tests inject a full disk. */
export type OpenForAppend = (file: string) => Promise<AppendHandle>;

export const openForAppend: OpenForAppend = (file) => fs.open(file, 'a+');

/** For a small append: synchronous calls on the descriptor but for the fsync (see SMALL in atomicFile.ts). */
const openSmallForAppend: OpenForAppend = async (file) => {
  const fd = fsCallbacks.openSync(file, 'a+');
  return {
    stat: async () => fsCallbacks.fstatSync(fd),
    read: async (buffer, offset, length, position) => ({ bytesRead: fsCallbacks.readSync(fd, buffer, offset, length, position) }),
    appendFile: async (data, encoding) => fsCallbacks.writeFileSync(fd, data, encoding),
    sync: () => fsyncFd(fd),
    truncate: async (length) => fsCallbacks.ftruncateSync(fd, length),
    close: async () => fsCallbacks.closeSync(fd),
  };
};

export interface AppendOptions {
  fsync?: boolean;
  /** The records are already JSON lines (the transcript serialises them once, to bound their size). */
  serialized?: boolean;
  open?: OpenForAppend;
}

/**
 * Appends records as lines with one write and one fsync. If the file ends in a torn line,
 * a newline is written first so the new records never merge into it. All or nothing: when the
 * write or the fsync fails (a full disk), the file is cut back to its size before the append,
 * so a rejected batch leaves no record behind. Callers hold the file's lock, so no other
 * append can land between the size read and the cut.
 */
export async function appendJsonl(file: string, records: readonly unknown[], options: AppendOptions = {}): Promise<void> {
  if (records.length === 0) return;
  const body = (options.serialized ? (records as readonly string[]) : records.map((r) => JSON.stringify(r))).join('\n') + '\n';
  let handle: AppendHandle;
  try {
    handle = await (options.open ?? (Buffer.byteLength(body) <= SMALL ? openSmallForAppend : openForAppend))(file);
  } catch (error) {
    throw storageError(file, error);
  }
  let before = -1;
  try {
    const { size } = await handle.stat();
    before = size;
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    await handle.appendFile(prefix + body, 'utf8');
    if (options.fsync !== false) await handle.sync();
  } catch (error) {
    if (before >= 0) await cutBack(handle, file, before, error);
    throw storageError(file, error);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Removes whatever part of a failed append reached the file; if even that fails, says so in the error. */
async function cutBack(handle: AppendHandle, file: string, size: number, cause: unknown): Promise<void> {
  try {
    await handle.truncate(size);
    await handle.sync().catch(() => undefined);
  } catch (error) {
    const wrapped = storageError(file, cause);
    throw new VigilError(
      'STORAGE_UNWRITABLE',
      `${wrapped.message} The partly written records could not be removed (${(error as Error).message}); they may show up after a reload.`,
      { cause },
    );
  }
}
