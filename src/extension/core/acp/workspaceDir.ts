// Where a directory an agent names (a terminal's cwd) really is, relative to the workspace folder: decided by
// the same walk as every file path (workspaceBoundary.ts), so `..`, `/`, symlinked folders that resolve outside,
// dangling links and missing folders count as outside, with one definition of "inside" for files and cwds.

import { promises as fs } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { VigilError } from '../common/errors';
import { isInside, locatePath } from './workspaceBoundary';

export interface DirectoryPlace {
  /** The directory that will be used: its real path (no symlinks left), or where it would be when missing. */
  path: string;
  inside: boolean;
  /** Why it cannot simply be used: it does not exist, or it is not a folder. */
  problem?: 'missing' | 'notFolder';
}

/** Resolves `dir` (absolute, or relative to `root`; none means `root`) and says whether it is inside `root`. */
export async function placeDirectory(root: string, dir: string | null | undefined): Promise<DirectoryPlace> {
  if (dir !== undefined && dir !== null && (typeof dir !== 'string' || dir.includes('\0'))) {
    throw new VigilError('INVALID_INPUT', 'The terminal cwd must be a folder path without NUL characters.');
  }
  const where = await locatePath(root, dir || resolve(root));
  // A missing folder is never "inside": there is nothing there yet to run in, so the person is asked.
  if (where.kind === 'missing') return { path: where.real, inside: false, problem: 'missing' };
  if (where.kind !== 'folder') return { path: where.real, inside: where.inside, problem: 'notFolder' };
  return { path: where.real, inside: where.inside };
}

/**
 * A file a link names (e.g. in model markdown), if it is a regular file whose real path is inside one
 * of `roots`; otherwise why not, in words for the person.
 */
export async function placeLinkedFile(roots: readonly string[], file: string): Promise<{ path: string } | { refused: string }> {
  if (file.includes('\0') || !isAbsolute(file)) return { refused: `“${file.slice(0, 200)}” is not an absolute file path.` };
  const real = await fs.realpath(file).catch(() => undefined);
  if (real === undefined) return { refused: `${file} does not exist.` };
  const realRoots = await Promise.all(roots.map((r) => fs.realpath(r).catch(() => resolve(r))));
  if (!realRoots.some((root) => isInside(root, real))) return { refused: `${file} is outside the workspace${real !== resolve(file) ? ` (it leads to ${real})` : ''}, so Vigil does not open it from a link.` };
  const stat = await fs.stat(real).catch(() => undefined);
  if (!stat?.isFile()) return { refused: `${file} is not a regular file.` };
  return { path: real };
}
