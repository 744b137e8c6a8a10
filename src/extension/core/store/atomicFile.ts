// Durable file primitives: atomic replace (temp + fsync + rename + dir fsync) and JSON helpers.

import * as fsCallbacks from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { VigilError } from '../common/errors';

/** Replaces `file` with `data` so that a reader sees either the old or the new content, never a mix. */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  return writeFilesAtomic([{ file, data }], options);
}

export interface AtomicWriteOptions {
  /**
   * False: still atomic for every reader, but not synced to the disk, so a power cut may bring the old content
   * back. Only for a record whose older version is safe to find after a crash (default true).
   */
  durable?: boolean;
}

/**
 * Replaces several files of one folder, each atomically, renamed in the given order, with their fsyncs made
 * together: the temporary files are synced in parallel and the folder once, instead of one after another
 * (two durable files cost about as much as one). A failure before the renames changes none of them.
 */
export async function writeFilesAtomic(entries: ReadonlyArray<{ file: string; data: string | Uint8Array }>, options: AtomicWriteOptions = {}): Promise<void> {
  const durable = options.durable !== false;
  const dirs = new Set(entries.map((e) => path.dirname(e.file)));
  if (dirs.size !== 1) throw new Error('writeFilesAtomic: the files must share one folder');
  const [dir] = dirs;
  const staged = entries.map((e) => ({ ...e, tmp: path.join(dir, `.${path.basename(e.file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`) }));
  if (staged.every((e) => byteLength(e.data) <= SMALL)) return writeSmall(dir, staged, durable);
  let current = dir;
  try {
    await fs.mkdir(dir, { recursive: true });
    await Promise.all(
      staged.map(async (e) => {
        try {
          const handle = await fs.open(e.tmp, 'w');
          try {
            await handle.writeFile(e.data);
            if (durable) await handle.sync();
          } finally {
            await handle.close();
          }
        } catch (error) {
          throw storageError(e.file, error);
        }
      }),
    );
    for (const e of staged) {
      current = e.file;
      await fs.rename(e.tmp, e.file);
    }
    if (durable) await fsyncDir(dir);
  } catch (error) {
    await Promise.all(staged.map((e) => fs.rm(e.tmp, { force: true }).catch(() => undefined)));
    throw error instanceof VigilError ? error : storageError(current, error);
  }
}

/**
 * Up to this size a record is written and read with synchronous calls, and only its fsyncs go to Node's thread
 * pool: each asynchronous call is a hop to a pool thread and back, which on a loaded machine waits its turn (a
 * wakeup made some twenty of them one after another), while the copy into the page cache takes microseconds.
 */
export const SMALL = 64 * 1024;

const byteLength = (data: string | Uint8Array): number => (typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength);
/** fsync of a descriptor, on the thread pool. */
export function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsCallbacks.fsync(fd, (error) => (error ? reject(error) : resolve())));
}

/** writeFilesAtomic for small files: the same steps and order, synchronous but for the fsyncs (made together). */
async function writeSmall(dir: string, staged: ReadonlyArray<{ file: string; data: string | Uint8Array; tmp: string }>, durable: boolean): Promise<void> {
  let current = dir;
  try {
    fsCallbacks.mkdirSync(dir, { recursive: true });
    await Promise.all(
      staged.map(async (e) => {
        try {
          const fd = fsCallbacks.openSync(e.tmp, 'w');
          try {
            fsCallbacks.writeFileSync(fd, e.data);
            if (durable) await fsyncFd(fd);
          } finally {
            fsCallbacks.closeSync(fd);
          }
        } catch (error) {
          throw storageError(e.file, error);
        }
      }),
    );
    for (const e of staged) {
      current = e.file;
      fsCallbacks.renameSync(e.tmp, e.file);
    }
    if (durable) await fsyncDir(dir);
  } catch (error) {
    for (const e of staged) {
      try {
        fsCallbacks.rmSync(e.tmp, { force: true });
      } catch {
        // The write's own error is the one to report.
      }
    }
    throw error instanceof VigilError ? error : storageError(current, error);
  }
}

/** The text every JSON file of the store is written as. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, jsonText(value));
}

/** Reads a JSON file; `undefined` when it does not exist. A corrupt file throws CORRUPT_RECORD. */
export async function readJson<T>(file: string): Promise<T | undefined> {
  let text: string;
  try {
    text = readSmall(file) ?? (await fs.readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw storageError(file, error);
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new VigilError('CORRUPT_RECORD', `${file} is not valid JSON`, { cause: error });
  }
}

/** A file of at most SMALL bytes, read synchronously; undefined for a larger one (read it asynchronously). */
function readSmall(file: string): string | undefined {
  const fd = fsCallbacks.openSync(file, 'r');
  try {
    const { size } = fsCallbacks.fstatSync(fd);
    if (size > SMALL) return undefined;
    return fsCallbacks.readFileSync(fd, 'utf8');
  } finally {
    fsCallbacks.closeSync(fd);
  }
}

async function fsyncDir(dir: string): Promise<void> {
  // Directory fsync makes the rename itself durable; some file systems refuse it, which is harmless.
  let fd: number;
  try {
    fd = fsCallbacks.openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    await fsyncFd(fd);
  } catch {
    return;
  } finally {
    fsCallbacks.closeSync(fd);
  }
}

/** Wraps an fs error in a VigilError that names the path and what to do. */
export function storageError(file: string, error: unknown): VigilError {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new VigilError('STORAGE_UNWRITABLE', `Vigil cannot write to ${file} (${code}). Make the folder writable or free the disk; nothing was lost.`, { cause: error });
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new VigilError('STORAGE_UNWRITABLE', `The disk holding ${file} is full (${code}). Free some space; nothing already stored was lost.`, { cause: error });
  }
  if (error instanceof VigilError) return error;
  return new VigilError('STORAGE_UNWRITABLE', `Storage error on ${file}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}
