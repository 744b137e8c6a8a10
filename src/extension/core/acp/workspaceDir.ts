// Where a directory an agent names (a terminal's cwd) really is, relative to the workspace folder:
// judged on real paths, so `..`, `/` and symlinked folders that resolve outside all count as outside.
// Small and standalone on purpose: the file boundary (workspaceFs) may replace it later.

import { promises as fs } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { VigilError } from '../common/errors';

export interface DirectoryPlace {
  /** The directory that will be used: its real path (no symlinks left), or the resolved path when missing. */
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
  const realRoot = await fs.realpath(root).catch(() => resolve(root));
  const wanted = !dir ? root : isAbsolute(dir) ? resolve(dir) : resolve(root, dir);
  let real: string;
  try {
    real = await fs.realpath(wanted);
  } catch {
    // Missing: judge by the real path of what exists, so a missing folder under a symlink is placed where the link points.
    return { path: await realpathOfExistingPrefix(wanted), inside: false, problem: 'missing' };
  }
  const stat = await fs.stat(real).catch(() => undefined);
  if (!stat) return { path: real, inside: false, problem: 'missing' };
  const inside = isWithin(realRoot, real);
  return stat.isDirectory() ? { path: real, inside } : { path: real, inside, problem: 'notFolder' };
}

function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  // `..env` is a name inside; only a `..` component leaves.
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${'/'}`) && !rel.startsWith('..\\'));
}

async function realpathOfExistingPrefix(abs: string): Promise<string> {
  const rest: string[] = [];
  let current = abs;
  for (;;) {
    const parent = dirname(current);
    if (parent === current) return abs;
    rest.unshift(current.slice(parent.length).replace(/^[\\/]/, ''));
    current = parent;
    const real = await fs.realpath(current).catch(() => undefined);
    if (real !== undefined) return join(real, ...rest);
  }
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
  if (!realRoots.some((root) => isWithin(root, real))) return { refused: `${file} is outside the workspace${real !== resolve(file) ? ` (it leads to ${real})` : ''}, so Vigil does not open it from a link.` };
  const stat = await fs.stat(real).catch(() => undefined);
  if (!stat?.isFile()) return { refused: `${file} is not a regular file.` };
  return { path: real };
}
