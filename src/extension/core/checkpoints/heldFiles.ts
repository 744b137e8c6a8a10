// What a restore does to one name inside a held folder (heldFolders.ts): compares it with what the turn left, puts
// back a file or a link (a fresh name made inside the folder, then renamed over the target, so a link there is
// replaced, never followed), or removes it. The folder is proved still in place right before each rename or removal.

import { randomBytes } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import { join } from 'node:path';
import { VigilError } from '../common/errors';
import { createFlags, notRegularError, openError, openFileVerified, type OpenedFile, readFlags, type VerifiedDir, verifyIdentity } from '../acp/boundaryOpen';
import { kindOf } from '../acp/workspaceBoundary';
import { replacedError, type Place } from './heldFolders';
import { blobId, fileBlobId, type ChunkRead } from './restoreBlobs';

export const NO_FILE = '000000';
export const SYMLINK = '120000';

/** One side of a planned file: its git mode and blob id, and the blob's size when it is a regular file. */
export interface Side {
  mode: string;
  id: string;
  size?: number;
}

const shownOf = (place: Place) => [...place.dirs, place.name].join('/');

/** Whether `place` in `dir` (undefined: its folder is missing) is `after`: by size first, then hashed in chunks. */
export async function matchesIn(dir: VerifiedDir | undefined, place: Place, after: Side, read: ChunkRead): Promise<boolean> {
  if (!dir) return after.mode === NO_FILE;
  const stat = await lstatIn(dir, place, 'compare');
  if (!stat) return after.mode === NO_FILE;
  if (after.mode === NO_FILE) return false;
  const target = dir.child(place.name);
  if (after.mode === SYMLINK) return stat.isSymbolicLink() && blobId(await fs.readlink(target, { encoding: 'buffer' })) === after.id;
  if (!stat.isFile() || after.size === undefined || stat.size !== after.size) return false;
  const { handle, stat: opened } = await openToCompare(dir, place);
  try {
    return opened.size === after.size && (await fileBlobId(handle, after.size, read)) === after.id;
  } finally {
    await handle.close();
  }
}

/** Opens a regular file to compare it; through a descriptor-anchored folder (O_NOFOLLOW) it is the one in that folder. */
async function openToCompare(dir: VerifiedDir, place: Place): Promise<OpenedFile> {
  const shown = shownOf(place);
  if (!dir.anchored) return openFileVerified(dir.child(place.name), join(dir.real, place.name), shown, 'compare');
  const handle = await fs.open(dir.child(place.name), readFlags).catch((e: unknown) => Promise.reject(openError('compare', shown, e)));
  const stat = await handle.stat().catch(async (e: unknown) => {
    await handle.close();
    throw e;
  });
  if (stat.isFile()) return { handle, stat };
  await handle.close();
  throw notRegularError(shown, kindOf(stat), 'compare');
}

/** Puts `content` back at `place` as a file or link of `mode`, replacing whatever non-folder is there. */
export async function writeIn(dir: VerifiedDir, place: Place, mode: string, content: Buffer): Promise<void> {
  const shown = shownOf(place);
  // Through a descriptor the new file is made in the held folder whatever its path now leads to; by path, only once
  // the folder is proved in place (and the new file checked below).
  if (!dir.anchored) await inPlace(dir, place);
  const temp = `.vigil-restore-${randomBytes(6).toString('hex')}`;
  let made = false;
  try {
    if (mode === SYMLINK) {
      await fs.symlink(content, dir.child(temp)).catch((e: unknown) => Promise.reject(openError('restore', shown, e)));
      made = true;
    } else {
      const handle = await fs.open(dir.child(temp), createFlags, mode === '100755' ? 0o755 : 0o644).catch((e: unknown) => Promise.reject(openError('restore', shown, e)));
      made = true;
      try {
        // Without a descriptor-anchored folder, prove the new file is where it should be before it gets content.
        if (!dir.anchored) await verifyIdentity(await handle.stat(), join(dir.real, temp), shown);
        await handle.writeFile(content);
      } finally {
        await handle.close();
      }
    }
    await inPlace(dir, place);
    await fs.rename(dir.child(temp), dir.child(place.name)).catch((e: unknown) => {
      // Linux says EISDIR, macOS EEXIST or ENOTEMPTY, when the name is a folder's.
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EISDIR' || code === 'EEXIST' || code === 'ENOTEMPTY') throw new VigilError('INVALID_INPUT', 'not restored: a folder now has its name', { cause: e });
      throw openError('restore', shown, e);
    });
    made = false;
    if (!dir.anchored) {
      // The rename went by path: say so if the folder was swapped in between, rather than claim success.
      await dir.reverify(shown).catch((e: unknown) => {
        throw new VigilError('OUTSIDE_WORKSPACE', `the folder of ${shown} was replaced while it was restored; check where the file landed`, { cause: e });
      });
    }
  } finally {
    // The name is random and reached through the held folder: this can only remove our own file.
    if (made) await fs.unlink(dir.child(temp)).catch(() => undefined);
  }
}

/** Removes what is at `place` (a file or link; a folder is refused). A missing folder or file holds nothing to remove. */
export async function removeIn(dir: VerifiedDir | undefined, place: Place): Promise<void> {
  if (!dir) return;
  await inPlace(dir, place);
  await fs.unlink(dir.child(place.name)).catch(async (e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    // unlink never removes a folder (EISDIR on Linux, EPERM on macOS): say so in words.
    if ((await lstatIn(dir, place, 'remove').catch(() => undefined))?.isDirectory()) throw new VigilError('INVALID_INPUT', 'not removed: a folder now has its name', { cause: e });
    throw openError('remove', shownOf(place), e);
  });
}

/** The held folder is still at its place in the workspace, or the file is refused. */
async function inPlace(dir: VerifiedDir, place: Place): Promise<void> {
  await dir.reverify(shownOf(place)).catch((e: unknown) => Promise.reject(replacedError(place.dirs.join('/'), e)));
}

async function lstatIn(dir: VerifiedDir, place: Place, action: string): Promise<Stats | undefined> {
  return fs.lstat(dir.child(place.name)).catch((e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw openError(action, shownOf(place), e);
  });
}
