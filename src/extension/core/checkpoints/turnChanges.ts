// What a turn changed, read from its two checkpoint trees: one `diff-tree` in the store, whatever wrote the files (the
// agent's own tools, a shell, the person). The first files are named with their line counts, the count is exact, and
// no file larger than `compareBytes` is read for counting (git treats it as binary).

import { VigilError } from '../common/errors';
import { turnChangesLimits, type TurnChangesView, type TurnFileChange, type TurnFileView } from '../../../shared/turnChanges';
import { isObjectId, type CheckpointStore } from './checkpointStore';
import { NO_FILE } from './heldFiles';
import { GITLINK, parseDiff, type RawEntry } from './restore';
import { blobSizes } from './restoreBlobs';

/** Files larger than this are not compared line by line: no counts, no diff. */
export const compareBytes = 1024 * 1024;

export interface TurnChangesOptions {
  /** Files the after-tree left out (too large, not a file): gone from it, yet not deleted by the turn. */
  skipped?: ReadonlySet<string>;
  signal?: AbortSignal;
  /** Bounds, for tests. */
  namedFiles?: number;
  namedPathChars?: number;
}

export function turnChanges(store: CheckpointStore, before: string, after: string, o: TurnChangesOptions = {}): Promise<TurnChangesView> {
  if (!isObjectId(before) || !isObjectId(after)) return Promise.reject(new VigilError('INVALID_INPUT', 'The checkpoint record names no valid tree'));
  // Alone on the store: a gc of another window could otherwise drop a tree not yet kept under a name.
  return store.exclusive(async () => {
    const out = await store.git.run(['diff-tree', '-r', '-z', '--no-renames', '--raw', '--numstat', before, after], { config: [`core.bigFileThreshold=${compareBytes}`], signal: o.signal });
    const { entries, counts } = parseDiff(out.stdout);
    const kept = entries.filter((e) => e.beforeMode !== GITLINK && e.afterMode !== GITLINK);
    let added = 0;
    let removed = 0;
    for (const e of kept) {
      if (grewTooLarge(e, o.skipped)) continue;
      const c = counts.get(e.path);
      added += c?.added ?? 0;
      removed += c?.removed ?? 0;
    }
    const named = nameFirst(kept, o.namedFiles ?? turnChangesLimits.namedFiles, o.namedPathChars ?? turnChangesLimits.namedPathChars);
    const uncounted = named.filter((e) => counts.get(e.path)?.added === undefined);
    const sizes = await blobSizes(store, uncounted.flatMap((e) => [e.beforeId, e.afterId]).filter((id) => !/^0+$/.test(id)));
    const files = named.map((e): TurnFileView => {
      const c = counts.get(e.path);
      if (grewTooLarge(e, o.skipped)) return { path: e.path, change: 'modified', noDiff: 'tooLarge' };
      const change = changeOf(e);
      if (c?.added !== undefined) return { path: e.path, change, added: c.added, removed: c.removed ?? 0 };
      const large = [e.beforeId, e.afterId].some((id) => (sizes.get(id) ?? 0) > compareBytes);
      return { path: e.path, change, noDiff: large ? 'tooLarge' : 'binary' };
    });
    return { files, count: kept.length, added, removed };
  });
}

/** Left out of the after-tree for its size: the turn did not delete it. */
function grewTooLarge(e: RawEntry, skipped: ReadonlySet<string> | undefined): boolean {
  return e.afterMode === NO_FILE && skipped?.has(e.path) === true;
}

function changeOf(e: RawEntry): TurnFileChange {
  return e.beforeMode === NO_FILE ? 'added' : e.afterMode === NO_FILE ? 'deleted' : 'modified';
}

/** The first entries, as many as fit both bounds; a path too long to name is left to the count. */
function nameFirst(entries: RawEntry[], max: number, maxChars: number): RawEntry[] {
  const named: RawEntry[] = [];
  let chars = 0;
  for (const e of entries) {
    if (named.length >= max || chars + e.path.length > maxChars) break;
    if (e.path.length > turnChangesLimits.pathChars) continue;
    named.push(e);
    chars += e.path.length;
  }
  return named;
}
