// Puts the files one turn changed back as they were before it: plans from the diff of the turn's two trees,
// finds files changed again since, and writes only inside the folder, links as links, never through a link.

import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { VigilError } from '../common/errors';
import type { CheckpointStore } from './checkpointStore';
import { isObjectId } from './checkpointStore';

export type FileChange = 'added' | 'modified' | 'deleted';

export interface PlannedFile {
  /** Relative to the folder, '/'-separated. */
  path: string;
  /** What the turn did to the file (restoring undoes it). */
  change: FileChange;
  /** Lines the turn added / removed (undefined for binary files). */
  added?: number;
  removed?: number;
  /** The file is no longer as the turn left it: restoring would overwrite a later change. */
  changedSince: boolean;
  beforeMode: string;
  beforeId: string;
  afterMode: string;
  afterId: string;
}

export interface RestorePlan {
  folder: string;
  before: string;
  after: string;
  files: PlannedFile[];
}

export interface RestoreResult {
  restored: string[];
  /** Files left as they are: changed again and not confirmed, or not safe to write (with why). */
  kept: { path: string; why: string }[];
}

const NO_FILE = '000000';
const GITLINK = '160000';
const SYMLINK = '120000';
/** A current file larger than this is taken as changed without reading it. */
const HASH_LIMIT = 64 * 1024 * 1024;

export async function planRestore(store: CheckpointStore, before: string, after: string): Promise<RestorePlan> {
  if (!isObjectId(before) || !isObjectId(after)) throw new VigilError('INVALID_INPUT', 'The checkpoint record names no valid tree');
  return store.exclusive(async () => {
    for (const tree of [before, after]) {
      if (!(await store.hasTree(tree))) {
        throw new VigilError('NOT_FOUND', 'This checkpoint is no longer stored: older checkpoints are dropped to keep the store under its size bound.');
      }
    }
    const raw = (await store.git.run(['diff-tree', '-r', '-z', '--no-renames', '--raw', before, after])).stdout;
    const counts = numstat((await store.git.run(['diff-tree', '-r', '-z', '--no-renames', '--numstat', before, after])).stdout);
    const files: PlannedFile[] = [];
    for (const entry of parseRaw(raw)) {
      if (entry.beforeMode === GITLINK || entry.afterMode === GITLINK) continue;
      const change: FileChange = entry.beforeMode === NO_FILE ? 'added' : entry.afterMode === NO_FILE ? 'deleted' : 'modified';
      const lines = counts.get(entry.path);
      files.push({ ...entry, change, ...lines, changedSince: false });
    }
    await markChangedSince(store, files);
    return { folder: store.folder, before, after, files };
  });
}

/**
 * Restores the planned files. A file changed again since the turn is overwritten only if `overwrite`
 * names it; it is checked again right before writing, so a change made after the plan is never lost.
 */
export async function applyRestore(store: CheckpointStore, plan: RestorePlan, overwrite: ReadonlySet<string>): Promise<RestoreResult> {
  return store.exclusive(async () => {
    await markChangedSince(store, plan.files);
    const result: RestoreResult = { restored: [], kept: [] };
    const wanted = plan.files.filter((f) => {
      if (f.changedSince && !overwrite.has(f.path)) {
        result.kept.push({ path: f.path, why: 'changed since the turn' });
        return false;
      }
      return true;
    });
    const blobs = await readBlobs(store, wanted.filter((f) => f.beforeMode !== NO_FILE).map((f) => f.beforeId));
    const root = await fs.realpath(plan.folder);
    for (const file of wanted) {
      try {
        if (file.beforeMode === NO_FILE) await removeInside(root, file.path);
        else await writeInside(root, file.path, file.beforeMode, blobs.get(file.beforeId)!);
        result.restored.push(file.path);
      } catch (error) {
        result.kept.push({ path: file.path, why: (error as Error).message });
      }
    }
    return result;
  });
}

interface RawEntry {
  path: string;
  beforeMode: string;
  afterMode: string;
  beforeId: string;
  afterId: string;
}

function parseRaw(buffer: Buffer): RawEntry[] {
  const parts = buffer.toString('utf8').split('\0');
  const entries: RawEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) [A-Z]\d*$/.exec(parts[i]!);
    if (!meta) continue;
    entries.push({ beforeMode: meta[1]!, afterMode: meta[2]!, beforeId: meta[3]!, afterId: meta[4]!, path: parts[i + 1]! });
  }
  return entries;
}

function numstat(buffer: Buffer): Map<string, { added?: number; removed?: number }> {
  const map = new Map<string, { added?: number; removed?: number }>();
  for (const item of buffer.toString('utf8').split('\0')) {
    const m = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/.exec(item);
    if (!m) continue;
    map.set(m[3]!, m[1] === '-' ? {} : { added: Number(m[1]), removed: Number(m[2]) });
  }
  return map;
}

/** Compares each file on disk with what the turn left (the after side). */
async function markChangedSince(store: CheckpointStore, files: PlannedFile[]): Promise<void> {
  for (const file of files) file.changedSince = !(await matches(store, file));
}

async function matches(store: CheckpointStore, file: PlannedFile): Promise<boolean> {
  const full = path.join(store.folder, file.path);
  let stat;
  try {
    stat = await fs.lstat(full);
  } catch {
    return file.afterMode === NO_FILE;
  }
  if (file.afterMode === NO_FILE) return false;
  if (file.afterMode === SYMLINK) return stat.isSymbolicLink() && blobId(Buffer.from(await fs.readlink(full, { encoding: 'buffer' }))) === file.afterId;
  if (!stat.isFile() || stat.size > HASH_LIMIT) return false;
  return blobId(await fs.readFile(full)) === file.afterId;
}

/** Git's object id of a blob (SHA-1 repositories: the store is created with git's default). */
function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

async function readBlobs(store: CheckpointStore, ids: string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(ids)];
  const map = new Map<string, Buffer>();
  if (unique.length === 0) return map;
  const out = (await store.git.run(['cat-file', '--batch'], { input: unique.map((id) => `${id}\n`).join('') })).stdout;
  let offset = 0;
  for (const id of unique) {
    const newline = out.indexOf(0x0a, offset);
    const header = out.subarray(offset, newline).toString('utf8');
    const m = /^([0-9a-f]+) blob (\d+)$/.exec(header);
    if (!m || m[1] !== id) throw new VigilError('CORRUPT_RECORD', `The checkpoint store could not give back object ${id}: ${header.slice(0, 200)}`);
    const size = Number(m[2]);
    map.set(id, out.subarray(newline + 1, newline + 1 + size));
    offset = newline + 1 + size + 1;
  }
  return map;
}

/** Splits a stored path and refuses any that could leave the folder. */
function segments(rel: string): string[] {
  const parts = rel.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p === '.git' || p.includes('\0'))) {
    throw new VigilError('OUTSIDE_WORKSPACE', `refused: the path "${rel.slice(0, 200)}" is not a plain path inside the folder`);
  }
  return parts;
}

/** Walks to the file's folder creating missing folders; refuses a link or a file on the way. */
async function parentInside(root: string, parts: string[], create: boolean): Promise<string | undefined> {
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = path.join(dir, part);
    let stat;
    try {
      stat = await fs.lstat(dir);
    } catch {
      if (!create) return undefined;
      await fs.mkdir(dir);
      continue;
    }
    if (stat.isSymbolicLink()) throw new VigilError('OUTSIDE_WORKSPACE', `not written: ${path.relative(root, dir)} is now a symbolic link`);
    if (!stat.isDirectory()) throw new VigilError('INVALID_INPUT', `not written: ${path.relative(root, dir)} is now a file, not a folder`);
  }
  // A link swapped in after the walk: the real path must still be where the walk went.
  const real = await fs.realpath(dir);
  if (real !== dir) throw new VigilError('OUTSIDE_WORKSPACE', `not written: ${path.relative(root, dir) || '.'} resolves outside its place in the folder`);
  return dir;
}

async function writeInside(root: string, rel: string, mode: string, content: Buffer): Promise<void> {
  const parts = segments(rel);
  const dir = (await parentInside(root, parts, true))!;
  const target = path.join(dir, parts[parts.length - 1]!);
  const current = await fs.lstat(target).catch(() => undefined);
  if (current?.isDirectory()) throw new VigilError('INVALID_INPUT', 'not written: a folder now has its name');
  // A fresh name next to it, then a rename: a link at the target is replaced, never followed.
  const temp = path.join(dir, `.vigil-restore-${randomBytes(6).toString('hex')}`);
  try {
    if (mode === SYMLINK) await fs.symlink(content, temp);
    else await fs.writeFile(temp, content, { flag: 'wx', mode: mode === '100755' ? 0o755 : 0o644 });
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

async function removeInside(root: string, rel: string): Promise<void> {
  const parts = segments(rel);
  // A folder that is gone already holds nothing to remove.
  const dir = await parentInside(root, parts, false);
  if (!dir) return;
  const target = path.join(dir, parts[parts.length - 1]!);
  const current = await fs.lstat(target).catch(() => undefined);
  if (!current) return;
  if (current.isDirectory()) throw new VigilError('INVALID_INPUT', 'not removed: a folder now has its name');
  await fs.unlink(target);
}
