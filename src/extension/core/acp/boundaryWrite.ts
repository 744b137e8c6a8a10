// Writes a file so that what changes is the object that was checked: a temporary file created (O_EXCL, O_NOFOLLOW)
// inside the opened and verified real folder, written, fsynced, then renamed over the target within that same folder,
// whose identity is re-proved around the rename. The existing file's permissions are kept; a crash leaves the old file.

import { randomBytes } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { VigilError } from '../common/errors';
import { changedError, createFlags, notRegularError, openError, VerifiedDir, verifyIdentity } from './boundaryOpen';
import { isInside, kindOf, type Location } from './workspaceBoundary';

/** Permission bits kept from the file being replaced; set-id bits are dropped, as a write by another user would. */
const keptModeBits = 0o1777;

export async function writeVerified(where: Location, content: string): Promise<void> {
  if (where.kind !== 'missing' && where.kind !== 'file') throw notRegularError(where.abs, where.kind, 'write');
  const dir = await openFolderCreating(dirname(where.real), where);
  try {
    await replaceIn(dir, basename(where.real), content, where.abs);
  } finally {
    await dir.close();
  }
}

/** Opens the target's real folder, creating missing folders one at a time, each inside the verified one above it. */
async function openFolderCreating(real: string, where: Location): Promise<VerifiedDir> {
  try {
    return await VerifiedDir.open(real, where.abs, 'write');
  } catch (error) {
    const parent = dirname(real);
    const mayCreate = (error as VigilError).code === 'NOT_FOUND' && parent !== real && (!where.inside || (isInside(where.rootReal, parent) && real !== where.rootReal));
    if (!mayCreate) throw error;
    const above = await openFolderCreating(parent, where);
    try {
      await fs.mkdir(above.child(basename(real))).catch((e: unknown) => {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw openError('write', where.abs, e);
      });
      return await VerifiedDir.open(real, where.abs, 'write');
    } finally {
      await above.close();
    }
  }
}

async function replaceIn(dir: VerifiedDir, name: string, content: string, abs: string): Promise<void> {
  const existing = await fs.lstat(dir.child(name)).catch((e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw openError('write', abs, e);
  });
  if (existing?.isSymbolicLink()) throw changedError(abs);
  if (existing && !existing.isFile()) throw notRegularError(abs, kindOf(existing), 'write');
  // Leave room for the prefix and suffix inside the 255-byte name limit.
  const temp = `.${name.slice(0, 180)}.vigil-${randomBytes(6).toString('hex')}.tmp`;
  let created = false;
  try {
    const handle = await fs.open(dir.child(temp), createFlags, 0o666).catch((e: unknown) => Promise.reject(openError('write', abs, e)));
    created = true;
    try {
      // Without a descriptor-anchored folder, prove the temporary file landed where it should before it gets content.
      if (!dir.anchored) await verifyIdentity(await handle.stat(), join(dir.real, temp), abs);
      await handle.writeFile(content, 'utf8');
      if (existing) await keepOwnership(handle, existing);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await dir.reverify(abs);
    await fs.rename(dir.child(temp), dir.child(name)).catch((e: unknown) => Promise.reject(openError('write', abs, e)));
    created = false;
    if (!dir.anchored) {
      // The rename went by path: say so if the folder was swapped in between, rather than claim success.
      await dir.reverify(abs).catch((e: unknown) => {
        throw new VigilError('INVALID_INPUT', `The folder of ${abs} was replaced while it was being written; check where the file landed.`, { cause: e });
      });
    }
    await dir.sync();
  } finally {
    // Best effort: the error that got us here matters more. The name is random, so this can only remove our own file.
    if (created) await fs.unlink(dir.child(temp)).catch(() => undefined);
  }
}

async function keepOwnership(handle: FileHandle, existing: Stats): Promise<void> {
  await handle.chmod(existing.mode & keptModeBits);
  // Only a privileged process can give the file back to its owner; anyone else keeps their own (as any editor does).
  if (process.getuid?.() === 0 && (existing.uid !== 0 || existing.gid !== 0)) {
    await handle.chown(existing.uid, existing.gid).catch((e: unknown) => {
      throw new VigilError('INVALID_INPUT', `Cannot keep the owner of the file: ${(e as Error).message}`, { cause: e });
    });
  }
}
