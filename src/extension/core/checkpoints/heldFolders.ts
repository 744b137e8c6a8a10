// The folders a restore works in, held by descriptor as the agent boundary holds them (acp/boundaryOpen.ts): the
// workspace root is opened once, and each folder below it is opened through the folder above it (O_NOFOLLOW,
// O_DIRECTORY, on Linux by /proc/self/fd/N/<name>) and proved to be at its place. A folder swapped for a link is
// refused, never followed; a missing one is created inside the held folder above it.

import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, isVigilError, VigilError } from '../common/errors';
import { openError, VerifiedDir } from '../acp/boundaryOpen';
import { kindOf } from '../acp/workspaceBoundary';

/** One planned path split into its folders and its name, or why it cannot be restored. */
export interface Place {
  dirs: string[];
  name: string;
}

/** Splits a stored path and refuses any that could leave the folder. */
export function placeOf(rel: string): Place {
  const parts = rel.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p === '.git' || p.includes('\0'))) {
    throw new VigilError('OUTSIDE_WORKSPACE', `refused: the path "${rel.slice(0, 200)}" is not a plain path inside the folder`);
  }
  return { dirs: parts.slice(0, -1), name: parts[parts.length - 1]! };
}

/** Opens the workspace folder itself; everything a restore touches is reached through it. */
export async function holdRoot(folder: string): Promise<VerifiedDir> {
  const real = await fs.realpath(folder).catch((e: unknown) => Promise.reject(openError('restore into', folder, e)));
  return VerifiedDir.open(real, folder, 'restore into');
}

/**
 * The folder `dirs` below the held `root`, held open (the caller closes it unless it is `root`); undefined when a
 * folder on the way is missing and `create` is false. Throws, naming the folder, when one is not a folder now.
 */
export async function holdFolder(root: VerifiedDir, dirs: string[], create: boolean): Promise<VerifiedDir | undefined> {
  let current = root;
  for (let i = 0; i < dirs.length; i += 1) {
    const parent = current;
    let next: VerifiedDir | undefined;
    try {
      next = await openChild(parent, dirs.slice(0, i + 1), create);
    } finally {
      if (parent !== root) await parent.close();
    }
    if (!next) return undefined;
    current = next;
  }
  return current;
}

async function openChild(parent: VerifiedDir, rel: string[], create: boolean): Promise<VerifiedDir | undefined> {
  const name = rel[rel.length - 1]!;
  const shown = rel.join('/');
  const open = () => VerifiedDir.open(join(parent.real, name), shown, 'restore into', parent.child(name));
  try {
    return await open();
  } catch (error) {
    if (!isVigilError(error, 'NOT_FOUND')) throw await notAFolder(parent, name, shown, error);
    if (!create) return undefined;
  }
  // The folder above must still be in place: the new folder is made in it, by its descriptor where there is one.
  await parent.reverify(shown).catch((e: unknown) => Promise.reject(replacedError(rel.slice(0, -1).join('/'), e)));
  await fs.mkdir(parent.child(name)).catch((e: unknown) => {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw openError('create', shown, e);
  });
  try {
    return await open();
  } catch (error) {
    throw await notAFolder(parent, name, shown, error);
  }
}

/** Why `name` in `parent` could not be opened as a folder, in words that name it. */
async function notAFolder(parent: VerifiedDir, name: string, shown: string, error: unknown): Promise<VigilError> {
  const code = ((isVigilError(error) ? error.cause : error) as NodeJS.ErrnoException | undefined)?.code;
  // No errno: opened, but not at its place. ELOOP, ENOTDIR: a link or a file has the name (O_NOFOLLOW, O_DIRECTORY).
  // ENOENT: gone again right after it was made.
  if (code !== undefined && code !== 'ELOOP' && code !== 'ENOTDIR' && code !== 'ENOENT') {
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : errorMessage(error);
    return new VigilError('INVALID_INPUT', `not restored: the folder ${shown} cannot be opened (${why})`, { cause: error });
  }
  const now = await fs.lstat(parent.child(name)).catch(() => undefined);
  if (now?.isSymbolicLink()) return new VigilError('OUTSIDE_WORKSPACE', `not restored: ${shown} is now a symbolic link, not a folder; nothing was written through it`, { cause: error });
  if (now && !now.isDirectory()) return new VigilError('INVALID_INPUT', `not restored: ${shown} is now a ${kindOf(now)}, not a folder`, { cause: error });
  return replacedError(shown, error);
}

/** The held folder is no longer at its place (moved, or swapped while the restore ran). */
export function replacedError(shown: string, cause?: unknown): VigilError {
  return new VigilError('OUTSIDE_WORKSPACE', `not restored: ${shown ? `the folder ${shown}` : 'the workspace folder'} was replaced or moved while restoring; nothing was written there. Check it and restore again.`, { cause });
}

/** Files worked on at once: the disk is busy, the event loop is not blocked by thousands of open files. */
const inFlight = 16;

interface Group {
  dirs: string[];
  /** Opened (without creating anything) by the first of its files to run, closed by the last to finish. */
  held?: Promise<VerifiedDir | undefined>;
  /** Made, when a file needs it and it is missing. */
  made?: Promise<VerifiedDir | undefined>;
  left: number;
}

/** Puts a file in a folder that may be missing: makes it (and any missing above it) inside the held ones. */
export type MakeFolder = () => Promise<VerifiedDir>;

/**
 * Runs `fn` for each file with its folder held (undefined when missing; `make` creates it), `inFlight` files at a time
 * in folder order, so few folders are held at once. A file whose path or folder is refused goes to `fail` with why,
 * and the others carry on.
 */
export async function forEachHeld<T extends { path: string }>(
  root: VerifiedDir,
  files: T[],
  fn: (file: T, dir: VerifiedDir | undefined, place: Place, make: MakeFolder) => Promise<void>,
  fail: (file: T, error: unknown) => void,
): Promise<void> {
  const groups = new Map<string, Group>();
  const work: { file: T; place: Place; key: string; group: Group }[] = [];
  for (const file of files) {
    let place: Place;
    try {
      place = placeOf(file.path);
    } catch (error) {
      fail(file, error);
      continue;
    }
    const key = place.dirs.join('/');
    const group = groups.get(key) ?? { dirs: place.dirs, left: 0 };
    groups.set(key, group);
    group.left += 1;
    work.push({ file, place, key, group });
  }
  work.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const one = async ({ file, place, group }: (typeof work)[number]): Promise<void> => {
    try {
      group.held ??= holdFolder(root, group.dirs, false);
      const make = async () => (await (group.made ??= holdFolder(root, group.dirs, true)))!;
      await fn(file, await group.held, place, make);
    } catch (error) {
      fail(file, error);
    } finally {
      group.left -= 1;
      if (group.left === 0) await release(root, group);
    }
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < work.length) await one(work[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, work.length) }, worker));
}

async function release(root: VerifiedDir, group: Group): Promise<void> {
  for (const held of [group.held, group.made]) {
    const dir = await held?.catch(() => undefined);
    if (dir && dir !== root) await dir.close();
  }
}
