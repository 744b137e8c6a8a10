// A session that has no workspace folder works in an empty folder of its own: private (0700), one per session, and
// beside Vigil's storage rather than in it, so an agent in a window without a folder never sees other sessions'
// transcripts, checkpoints or task logs.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { VigilError } from '../common/errors';
import { checkSessionId } from '../store/storePaths';

/** The folder holding every folder-less session's own folder: a sibling of the storage root, never inside it. */
export function folderlessRoot(storageRoot: string): string {
  const root = path.resolve(storageRoot);
  return path.join(path.dirname(root), `${path.basename(root)}-folderless`);
}

/** The session's own folder, created (mode 0700) when missing; refused when something else stands in its place. */
export async function folderlessFolder(storageRoot: string, sessionId: string): Promise<string> {
  checkSessionId(sessionId);
  const parent = folderlessRoot(storageRoot);
  const folder = path.join(parent, sessionId);
  await ensurePrivateFolder(parent);
  await ensurePrivateFolder(folder);
  return folder;
}

async function ensurePrivateFolder(folder: string): Promise<void> {
  await fs.mkdir(folder, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  // A symlink or a folder of someone else's in its place would hand the agent another folder: never followed.
  const stat = await fs.lstat(folder);
  const mine = typeof process.getuid !== 'function' || stat.uid === process.getuid();
  if (!stat.isDirectory() || !mine) {
    throw new VigilError('INVALID_INPUT', `${folder} is not a folder of this user (a ${stat.isSymbolicLink() ? 'symlink' : 'file or foreign folder'} stands there), so Vigil does not run a folder-less session in it. Remove it and try again.`);
  }
  if ((stat.mode & 0o077) !== 0) await fs.chmod(folder, 0o700);
}
