// Opens exactly the object a walk checked, and proves it from the descriptor: O_NOFOLLOW (a symlink swapped in fails),
// O_NONBLOCK (a FIFO cannot block the open), fstat for the type, and the descriptor's place from /proc/self/fd on Linux
// (elsewhere: dev/ino against a fresh lstat, a best-effort fallback). Folders are opened the same way, and on Linux
// names inside them are reached through /proc/self/fd/N/<name>, so a swapped parent cannot redirect them.

import { constants, promises as fs, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { VigilError } from '../common/errors';
import { changedError, kindOf, type FileKind } from './workspaceBoundary';

export { changedError } from './workspaceBoundary';

// Absent on Windows: there the flags are 0 and the fallback checks carry the weight.
const noFollow = constants.O_NOFOLLOW ?? 0;
const nonBlock = constants.O_NONBLOCK ?? 0;
const noCtty = constants.O_NOCTTY ?? 0;
const directory = constants.O_DIRECTORY ?? 0;
export const readFlags = constants.O_RDONLY | noFollow | nonBlock | noCtty;
export const createFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | noFollow | noCtty;
const dirFlags = constants.O_RDONLY | directory | noFollow | nonBlock;
const windows = process.platform === 'win32';
const foldsCase = windows || process.platform === 'darwin';

let procFd: Promise<boolean> | undefined;

/** Whether descriptors can name their own place (Linux /proc). Checked once. */
export function hasProcFd(): Promise<boolean> {
  procFd ??= process.platform === 'linux' ? fs.readlink('/proc/self/fd/0').then(() => true, () => fs.stat('/proc/self/fd').then((s) => s.isDirectory(), () => false)) : Promise.resolve(false);
  return procFd;
}

/** Test hook: pretend /proc is absent, to exercise the fallback on Linux. */
export function forceNoProcFdForTests(off: boolean): void {
  procFd = off ? Promise.resolve(false) : undefined;
}

export function samePath(a: string, b: string): boolean {
  return foldsCase ? a.toLowerCase() === b.toLowerCase() : a === b;
}

export function notRegularError(abs: string, kind: FileKind, action: string): VigilError {
  if (kind === 'folder') return new VigilError('INVALID_INPUT', `Cannot ${action} ${abs}: it is a folder. Name a file, or list the folder instead.`);
  return new VigilError('INVALID_INPUT', `Cannot ${action} ${abs}: it is a ${kind}, not a regular file. Vigil only reads and writes regular files.`);
}

/** Maps an errno from an open on a checked path to what it means here. */
export function openError(action: string, abs: string, error: unknown): VigilError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'ENOTDIR') return changedError(abs, error);
  if (code === 'ENOENT') return new VigilError('NOT_FOUND', `Cannot ${action} ${abs}: no such file or folder.`, { cause: error });
  if (code === 'ENXIO') return new VigilError('INVALID_INPUT', `Cannot ${action} ${abs}: it is a socket or a device without a reader, not a regular file.`, { cause: error });
  if (code === 'EISDIR') return notRegularError(abs, 'folder', action);
  if (code === 'EACCES' || code === 'EPERM') return new VigilError('INVALID_INPUT', `Cannot ${action} ${abs}: permission denied.`, { cause: error });
  if (code === 'ENOSPC' || code === 'EDQUOT') return new VigilError('INVALID_INPUT', `Cannot ${action} ${abs}: the disk is full. Free some space and try again.`, { cause: error });
  return new VigilError('INVALID_INPUT', `Cannot ${action} ${abs}: ${(error as Error).message}`, { cause: error });
}

/** The descriptor's own place, or undefined where the platform cannot tell. A deleted object has no place. */
async function placeOf(handle: FileHandle): Promise<string | undefined> {
  if (!(await hasProcFd())) return undefined;
  const place = await fs.readlink(`/proc/self/fd/${handle.fd}`);
  return place.endsWith(' (deleted)') ? '' : place;
}

/** Proves the open descriptor is the object whose real path is `expected`. */
async function verifyPlace(handle: FileHandle, stat: Stats, expected: string, abs: string): Promise<void> {
  const place = await placeOf(handle);
  if (place !== undefined) {
    if (!samePath(place, expected)) throw changedError(abs);
    return;
  }
  await verifyIdentity(stat, expected, abs);
}

/**
 * Fallback proof: the path names the same object (dev/ino) with no symlink on it, checked between two realpaths.
 * Without a descriptor's own place this narrows the window of a folder swapped and swapped back but cannot close it
 * (measured: about 1 leak in 1,000 reads against a tight flipping loop); on Linux /proc closes it.
 */
export async function verifyIdentity(stat: Pick<Stats, 'dev' | 'ino'>, expected: string, abs: string): Promise<void> {
  const clean = async () => samePath(await fs.realpath(expected).catch(() => ''), expected);
  if (!(await clean())) throw changedError(abs);
  const now = await fs.lstat(expected).catch(() => undefined);
  if (!now || now.isSymbolicLink()) throw changedError(abs);
  // Some Windows file systems report no inode numbers; the path checks are all there is then.
  if (now.dev !== stat.dev || (now.ino !== stat.ino && stat.ino !== 0)) throw changedError(abs);
  if (!(await clean())) throw changedError(abs);
}

export interface OpenedFile {
  handle: FileHandle;
  stat: Stats;
}

/**
 * Opens a regular file for reading at `via` (a path or a /proc/self/fd child path) and proves it is the object at
 * `expected`. Anything but a regular file is closed unread and refused, naming its kind.
 */
export async function openFileVerified(via: string, expected: string, abs: string, action = 'read'): Promise<OpenedFile> {
  let handle: FileHandle;
  try {
    handle = await fs.open(via, readFlags);
  } catch (error) {
    throw openError(action, abs, error);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notRegularError(abs, kindOf(stat), action);
    await verifyPlace(handle, stat, expected, abs);
    return { handle, stat };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** An opened, verified folder. On Linux its children are named through the descriptor, not through the path. */
export class VerifiedDir {
  private constructor(
    readonly real: string,
    private readonly handle: FileHandle | undefined,
    private readonly identity: Pick<Stats, 'dev' | 'ino'>,
    /** True when children are reached through the descriptor (Linux), so the path cannot redirect them. */
    readonly anchored: boolean,
  ) {}

  /**
   * Opens the folder whose real path is `real`, or throws (NOT_FOUND when it does not exist). `via` may name it
   * through a held parent's descriptor (`parent.child(name)`), so no path above it is walked again.
   */
  static async open(real: string, abs: string, action: string, via = real): Promise<VerifiedDir> {
    if (windows) {
      // Folders cannot be opened as files on Windows: check the path and remember its identity instead.
      const stat = await fs.lstat(real).catch((e: unknown) => Promise.reject(openError(action, abs, e)));
      if (!stat.isDirectory()) throw stat.isSymbolicLink() ? changedError(abs) : new VigilError('INVALID_INPUT', `Cannot ${action} ${abs}: it is a ${kindOf(stat)}, not a folder.`);
      await verifyIdentity(stat, real, abs);
      return new VerifiedDir(real, undefined, stat, false);
    }
    let handle: FileHandle;
    try {
      handle = await fs.open(via, dirFlags);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR here means the last name is not a folder (or a symlink swapped in: O_NOFOLLOW + O_DIRECTORY).
      if (code === 'ENOTDIR') throw new VigilError('INVALID_INPUT', `Cannot ${action} ${abs}: it is not a folder (or it was just replaced).`, { cause: error });
      throw openError(action, abs, error);
    }
    try {
      const stat = await handle.stat();
      if (!stat.isDirectory()) throw new VigilError('INVALID_INPUT', `Cannot ${action} ${abs}: it is a ${kindOf(stat)}, not a folder.`);
      await verifyPlace(handle, stat, real, abs);
      return new VerifiedDir(real, handle, stat, await hasProcFd());
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The path to hand to a syscall for the folder itself. */
  get path(): string {
    return this.anchored ? `/proc/self/fd/${this.handle!.fd}` : this.real;
  }

  /** The path to hand to a syscall for one name inside the folder. */
  child(name: string): string {
    return this.anchored ? `/proc/self/fd/${this.handle!.fd}/${name}` : join(this.real, name);
  }

  /** Re-proves the folder is still the one opened, at the same place (around a rename). */
  async reverify(abs: string): Promise<void> {
    if (this.handle) {
      const place = await placeOf(this.handle);
      if (place !== undefined) {
        if (!samePath(place, this.real)) throw changedError(abs);
        return;
      }
    }
    await verifyIdentity(this.identity, this.real, abs);
  }

  /** Makes a rename inside this folder durable; a file system that cannot fsync a folder is not an error. */
  async sync(): Promise<void> {
    await this.handle?.sync().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.handle?.close();
  }
}
