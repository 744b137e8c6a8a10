// Puts the files one turn changed back as they were before it: plans from the diff of the turn's two trees,
// finds files changed again since, and changes only names inside folders held by descriptor (heldFolders.ts), links
// as links, never through a link. A file whose folder is swapped while restoring is refused and said so.

import { errorMessage, VigilError } from '../common/errors';
import type { CheckpointStore } from './checkpointStore';
import { isObjectId } from './checkpointStore';
import { forEachHeld, holdRoot } from './heldFolders';
import { matchesIn, NO_FILE, removeIn, writeIn } from './heldFiles';
import { blobSizes, byStoredBytes, readBlobs, readChunk, type ChunkRead } from './restoreBlobs';

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
  /** Bytes of the stored file on each side (regular files only), so the files on disk are compared by size first. */
  beforeSize?: number;
  afterSize?: number;
}

export interface RestorePlan {
  folder: string;
  before: string;
  after: string;
  files: PlannedFile[];
  /** Files of the turn that restoring cannot put back, with why (kept as they are, and said so in the result). */
  unrestorable?: { path: string; why: string }[];
}

/** Why a file whose name is not UTF-8 is left alone: its name cannot be spelt back exactly, so restore would write another file. */
export const NOT_UTF8_NAME = 'its name is not UTF-8 text, which Vigil cannot write back under the same name; it was left as it is (rename it to valid UTF-8 for later checkpoints to restore it)';

export interface RestoreResult {
  restored: string[];
  /** Files left as they are: changed again and not confirmed, or not safe to write (with why). */
  kept: { path: string; why: string }[];
}

export interface RestoreOptions {
  /** How a file on disk is read to compare it (tests check what is asked of it). */
  read?: ChunkRead;
  /** Plan only these files (relative paths, matched literally), not the whole turn. */
  only?: readonly string[];
}

export const GITLINK = '160000';
const REGULAR = new Set(['100644', '100755']);

export async function planRestore(store: CheckpointStore, before: string, after: string, options: RestoreOptions = {}): Promise<RestorePlan> {
  if (!isObjectId(before) || !isObjectId(after)) throw new VigilError('INVALID_INPUT', 'The checkpoint record names no valid tree');
  return store.exclusive(async () => {
    if (!(await store.hasTrees([before, after]))) {
      throw new VigilError('NOT_FOUND', 'This checkpoint is no longer stored: older checkpoints are dropped to keep the store under its size bound.');
    }
    // The store streams every file into packs (bigFileThreshold=1), which would make diff call every file
    // binary: line counts use the usual threshold.
    const only = options.only ? ['--', ...options.only.map((p) => `:(literal)${p}`)] : [];
    const diff = await store.git.run(['diff-tree', '-r', '-z', '--no-renames', '--raw', '--numstat', before, after, ...only], { config: ['core.bigFileThreshold=8m'] });
    const { entries, counts } = parseDiff(diff.stdout);
    const files: PlannedFile[] = [];
    const unrestorable: { path: string; why: string }[] = [];
    for (const entry of entries) {
      if (entry.beforeMode === GITLINK || entry.afterMode === GITLINK) continue;
      if (entry.badName) {
        unrestorable.push({ path: entry.path, why: NOT_UTF8_NAME });
        continue;
      }
      const change: FileChange = entry.beforeMode === NO_FILE ? 'added' : entry.afterMode === NO_FILE ? 'deleted' : 'modified';
      files.push({ ...entry, change, ...counts.get(entry.path), changedSince: false });
    }
    await addSizes(store, files);
    const root = await holdRoot(store.folder);
    const read = options.read ?? readChunk;
    try {
      // A file that cannot be compared (its folder swapped, unreadable) is shown as changed: restoring asks first.
      await forEachHeld(root, files, async (file, dir, place) => {
        file.changedSince = !(await matchesIn(dir, place, afterSide(file), read));
      }, (file) => {
        file.changedSince = true;
      });
    } finally {
      await root.close();
    }
    return { folder: store.folder, before, after, files, ...(unrestorable.length > 0 ? { unrestorable } : {}) };
  });
}

/**
 * Restores the planned files. A file changed again since the turn is overwritten only if `overwrite`
 * names it; it is checked again right before writing, so a change made after the plan is never lost.
 */
export async function applyRestore(store: CheckpointStore, plan: RestorePlan, overwrite: ReadonlySet<string>, options: RestoreOptions = {}): Promise<RestoreResult> {
  return store.exclusive(async () => {
    const result: RestoreResult = { restored: [], kept: [...(plan.unrestorable ?? [])] };
    const keep = (file: PlannedFile, why: unknown) => result.kept.push({ path: file.path, why: errorMessage(why) });
    const read = options.read ?? readChunk;
    await addSizes(store, plan.files);
    const root = await holdRoot(plan.folder);
    try {
      // The stored bytes are read a bounded amount at a time.
      for (const run of byStoredBytes(plan.files, (f) => f.beforeSize ?? 0)) {
        const blobs = await readBlobs(store, run.filter((f) => f.beforeMode !== NO_FILE).map((f) => f.beforeId));
        await forEachHeld(root, run, async (file, dir, place, create) => {
          file.changedSince = !(await matchesIn(dir, place, afterSide(file), read));
          if (file.changedSince && !overwrite.has(file.path)) {
            keep(file, 'changed since the turn');
            return;
          }
          if (file.beforeMode === NO_FILE) await removeIn(dir, place);
          else await writeIn(dir ?? (await create()), place, file.beforeMode, blobs.get(file.beforeId)!);
          result.restored.push(file.path);
        }, keep);
      }
    } finally {
      await root.close();
    }
    result.restored.sort();
    result.kept.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    return result;
  });
}

const afterSide = (f: PlannedFile) => ({ mode: f.afterMode, id: f.afterId, size: f.afterSize });

/** The stored sizes of the regular files of `files` that do not have them yet (one git call, none when all do). */
async function addSizes(store: CheckpointStore, files: PlannedFile[]): Promise<void> {
  const missing = files.flatMap((f) => [...(REGULAR.has(f.beforeMode) && f.beforeSize === undefined ? [f.beforeId] : []), ...(REGULAR.has(f.afterMode) && f.afterSize === undefined ? [f.afterId] : [])]);
  if (missing.length === 0) return;
  const sizes = await blobSizes(store, missing);
  for (const f of files) {
    if (REGULAR.has(f.beforeMode)) f.beforeSize ??= sizes.get(f.beforeId);
    if (REGULAR.has(f.afterMode)) f.afterSize ??= sizes.get(f.afterId);
  }
}

export interface RawEntry {
  path: string;
  beforeMode: string;
  afterMode: string;
  beforeId: string;
  afterId: string;
  /** The name's bytes are not UTF-8: `path` shows it with replacement marks and names no file on disk. */
  badName?: true;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The NUL-separated fields of git's `-z` output, each also flagged when its bytes are not UTF-8. */
function nulFields(buffer: Buffer): { text: string; utf8: boolean }[] {
  const fields: { text: string; utf8: boolean }[] = [];
  for (let start = 0; start <= buffer.length; ) {
    const end = buffer.indexOf(0, start);
    const bytes = buffer.subarray(start, end < 0 ? buffer.length : end);
    let utf8 = true;
    try {
      strictUtf8.decode(bytes);
    } catch {
      utf8 = false;
    }
    fields.push({ text: bytes.toString('utf8'), utf8 });
    if (end < 0) break;
    start = end + 1;
  }
  return fields;
}

/** `diff-tree -z --raw --numstat`: each raw entry is a meta field and a path, then each numstat entry one field. */
export function parseDiff(buffer: Buffer): { entries: RawEntry[]; counts: Map<string, { added?: number; removed?: number }> } {
  const fields = nulFields(buffer);
  const parts = fields.map((f) => f.text);
  const entries: RawEntry[] = [];
  const counts = new Map<string, { added?: number; removed?: number }>();
  let i = 0;
  for (; i + 1 < parts.length && parts[i]!.startsWith(':'); i += 2) {
    const meta = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) [A-Z]\d*$/.exec(parts[i]!);
    if (meta) entries.push({ beforeMode: meta[1]!, afterMode: meta[2]!, beforeId: meta[3]!, afterId: meta[4]!, path: parts[i + 1]!, ...(fields[i + 1]!.utf8 ? {} : { badName: true as const }) });
  }
  for (; i < parts.length; i += 1) {
    const m = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/.exec(parts[i]!);
    if (m) counts.set(m[3]!, m[1] === '-' ? {} : { added: Number(m[1]), removed: Number(m[2]) });
  }
  return { entries, counts };
}
