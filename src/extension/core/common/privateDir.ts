// A folder only this user can enter, for a Unix socket and its secret (the task server's, an agent relay's).

import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Makes `dir` (0700) or takes the one there if it is ours: a real folder, not a symlink, owned by this user.
 * Anything else there is not ours to put a socket in: `notPrivate` says what to do about it.
 */
export async function ensurePrivateDir(dir: string, notPrivate: (dir: string) => Error): Promise<void> {
  await fs.mkdir(path.dirname(dir), { recursive: true });
  await fs.mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  // Not followed: a symlink or a folder someone else made there is not ours.
  const stat = await fs.lstat(dir);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || stat.isSymbolicLink() || (uid !== undefined && stat.uid !== uid)) throw notPrivate(dir);
  await fs.chmod(dir, 0o700);
}
