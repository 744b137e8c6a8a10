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
    if (!(await store.hasTrees([before, after]))) {
      throw new VigilError('NOT_FOUND', 'This checkpoint is no longer stored: older checkpoints are dropped to keep the store under its size bound.');
    }
    // The store streams every file into packs (bigFileThreshold=1), which would make diff call every file
    // binary: line counts use the usual threshold.
    const diff = (format: string) => store.git.run(['diff-tree', '-r', '-z', '--no-renames', format, before, after], { config: ['core.bigFileThreshold=8m'] }).then((r) => r.stdout);
    const [raw, stat] = await Promise.all([diff('--raw'), diff('--numstat')]);
    const counts = numstat(stat);
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
    const dirs = new Folders(root);
    await inBatches(wanted, async (file) => {
      try {
        if (file.beforeMode === NO_FILE) await removeInside(dirs, file.path);
        else await writeInside(dirs, file.path, file.beforeMode, blobs.get(file.beforeId)!);
        result.restored.push(file.path);
      } catch (error) {
        result.kept.push({ path: file.path, why: (error as Error).message });
      }
    });
    result.restored.sort();
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
  await inBatches(files, async (file) => {
    file.changedSince = !(await matches(store, file));
  });
}

/** A few files at a time: the disk is busy, the event loop is not blocked by thousands of open files. */
async function inBatches<T>(items: T[], fn: (item: T) => Promise<void>, size = 16): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
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

/**
 * The folders of one restore, each checked once: walked from the root creating missing ones, refusing a link
 * or a file on the way, and its real path must be where the walk went (a link swapped in is caught).
 */
class Folders {
  private readonly checked = new Map<string, Promise<string | undefined>>();

  constructor(readonly root: string) {}

  parentOf(parts: string[], create: boolean): Promise<string | undefined> {
    const rel = parts.slice(0, -1).join('/');
    const key = `${create ? '+' : '-'}${rel}`;
    let found = this.checked.get(key);
    if (!found) {
      found = this.walk(parts.slice(0, -1), create);
      this.checked.set(key, found);
    }
    return found;
  }

  private async walk(dirs: string[], create: boolean): Promise<string | undefined> {
    let dir = this.root;
    for (const part of dirs) {
      dir = path.join(dir, part);
      let stat;
      try {
        stat = await fs.lstat(dir);
      } catch {
        if (!create) return undefined;
        await fs.mkdir(dir).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
        stat = await fs.lstat(dir);
      }
      if (stat.isSymbolicLink()) throw new VigilError('OUTSIDE_WORKSPACE', `not written: ${path.relative(this.root, dir)} is now a symbolic link`);
      if (!stat.isDirectory()) throw new VigilError('INVALID_INPUT', `not written: ${path.relative(this.root, dir)} is now a file, not a folder`);
    }
    const real = await fs.realpath(dir);
    if (real !== dir) throw new VigilError('OUTSIDE_WORKSPACE', `not written: ${path.relative(this.root, dir) || '.'} resolves outside its place in the folder`);
    return dir;
  }
}

async function writeInside(folders: Folders, rel: string, mode: string, content: Buffer): Promise<void> {
  const parts = segments(rel);
  const dir = (await folders.parentOf(parts, true))!;
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

async function removeInside(folders: Folders, rel: string): Promise<void> {
  const parts = segments(rel);
  // A folder that is gone already holds nothing to remove.
  const dir = await folders.parentOf(parts, false);
  if (!dir) return;
  const target = path.join(dir, parts[parts.length - 1]!);
  const current = await fs.lstat(target).catch(() => undefined);
  if (!current) return;
  if (current.isDirectory()) throw new VigilError('INVALID_INPUT', 'not removed: a folder now has its name');
  await fs.unlink(target);
}
