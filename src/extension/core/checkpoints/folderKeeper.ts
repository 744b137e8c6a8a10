// Keeps one folder's checkpoint index current, so a turn never waits for a snapshot: the first full snapshot is
// taken in the background when the folder is first seen, a watcher names the paths changed since, and the tree
// at a turn's start or end is the index brought up to date for those paths only (tens of ms at any size). A
// turn that changed nothing ends on the tree it began with, and the next turn begins on it: no second look.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../common/errors';
import type { Clock, TimerHandle } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { CheckpointStore, SkippedFile } from './checkpointStore';
import type { FolderChanges } from './folderWatcher';

export interface Mark {
  tree: string;
  /** Files left out of the checkpoint (every one the keeper knows of), sorted. */
  skipped: SkippedFile[];
  /** Files read for this mark that changed after `since`: their content may be the agent's, not the person's. */
  raced: string[];
}

export interface FolderKeeperOptions {
  store: CheckpointStore;
  changes: FolderChanges;
  clock: Clock;
  logger: Logger;
  /** The safety net: with no turn open, the whole folder is read this often (default 5 min). */
  refreshMs?: number;
  /** After a failed first snapshot, the next try waits this long (default 60 s). */
  retryMs?: number;
}

/**
 * A file modified this close before the turn began may have been the agent's: file times lag the clock by a tick.
 * (The modification time, not the change time: a chmod or a rename by the person is not the agent's write.)
 */
const RACE_SLACK_MS = 20;
/** Names are written this long after a mark, out of the way of the prompt or wakeup that follows it. */
const KEEP_DELAY_MS = 2_000;

export class FolderKeeper {
  private tree: string | undefined;
  private readonly skipped = new Map<string, SkippedFile>();
  private baseline: Promise<void> | undefined;
  private failure: { why: string; at: number } | undefined;
  private openTurns = 0;
  private refreshTimer: TimerHandle | undefined;
  /** Set when a mark failed after taking its paths: the next one reads the whole folder. */
  private lost = false;
  private tail: Promise<unknown> = Promise.resolve();
  private disposed = false;
  /** Trees named in the store (and those about to be), and the names still to write. */
  private readonly named = new Set<string>();
  private readonly toKeep: [string, string][] = [];
  private keepTimer: TimerHandle | undefined;
  /** Files a refresh read since the last mark: a turn that began while it ran may have changed them. */
  private refreshed: string[] = [];

  constructor(private readonly o: FolderKeeperOptions) {}

  get folder(): string {
    return this.o.store.folder;
  }

  /** True once the first snapshot is taken: marks are then ready at once. */
  get ready(): boolean {
    return this.tree !== undefined;
  }

  /** Why the first snapshot failed, if it did. */
  get why(): string | undefined {
    return this.failure?.why;
  }

  /** Starts the first snapshot in the background (once; again after a failure, not sooner than the retry delay). */
  prepare(): Promise<void> {
    if (this.baseline) return this.baseline;
    if (this.failure && this.o.clock.wallNow() - this.failure.at < (this.o.retryMs ?? 60_000)) return Promise.resolve();
    this.baseline = this.first().catch((error: unknown) => {
      this.failure = { why: errorMessage(error), at: this.o.clock.wallNow() };
      this.baseline = undefined;
      this.o.logger.warn(`[checkpoints] ${path.basename(this.folder)}: the first snapshot failed: ${this.failure.why}`);
    });
    return this.baseline;
  }

  /**
   * The folder's tree now, kept under `label`: every change reported before the call is in it. `since`: wall
   * time the mark stands for (a turn's start); files read for it that changed after are named in `raced`.
   */
  async mark(label: string, since?: number): Promise<Mark> {
    await this.o.changes.settled();
    const paths = this.lost ? 'all' : this.o.changes.take();
    this.lost = false;
    const run = this.tail.then(() => this.record(label, paths, since));
    this.tail = run.catch(() => (this.lost = true));
    return run;
  }

  turnOpened(): void {
    this.openTurns += 1;
  }

  turnClosed(): void {
    this.openTurns = Math.max(0, this.openTurns - 1);
  }

  dispose(): void {
    this.disposed = true;
    this.refreshTimer?.cancel();
    this.keepNow();
    this.o.changes.dispose();
  }

  private async first(): Promise<void> {
    // Watched before it is read: what changes while it is read is named, and read again by the next mark.
    await this.o.changes.start();
    this.o.changes.take();
    const got = await this.o.store.update('all', undefined, true);
    this.noteSkipped('all', got.skipped);
    this.keepLater(`base/t${this.o.clock.wallNow()}`, got.tree);
    this.tree = got.tree;
    this.failure = undefined;
    this.scheduleRefresh();
  }

  private async record(label: string, paths: ReadonlySet<string> | 'all', since: number | undefined): Promise<Mark> {
    let listed: string[] = [];
    let gone = new Set<string>();
    if (paths === 'all' || paths.size > 0) {
      const got = await this.o.store.update(paths);
      this.noteSkipped(paths, got.skipped);
      this.tree = got.tree;
      listed = got.listed;
      gone = new Set(got.gone);
    }
    const tree = this.tree!;
    const read = this.refreshed.length > 0 ? [...new Set([...listed, ...this.refreshed])] : listed;
    this.refreshed = [];
    const raced = since === undefined ? [] : await this.changedSince(read, gone, since);
    this.keepLater(label, tree);
    return { tree, skipped: [...this.skipped.values()].sort((a, b) => (a.path < b.path ? -1 : 1)), raced };
  }

  /** Read files modified since `since`, or removed after they were listed: the agent may have been first. */
  /**
   * Names `tree` under `label` a moment later, in the background: the tree is already in the store, and only
   * dropping old checkpoints (past the store's bound) could lose an unnamed one. A tree already named (a turn
   * that changed nothing) is not named again: a wakeup costs no git at all.
   */
  private keepLater(label: string, tree: string): void {
    if (this.named.has(tree)) return;
    this.named.add(tree);
    this.toKeep.push([label, tree]);
    this.keepTimer ??= this.o.clock.setTimer(KEEP_DELAY_MS, () => this.keepNow());
  }

  private keepNow(): void {
    this.keepTimer?.cancel();
    this.keepTimer = undefined;
    for (const [label, tree] of this.toKeep.splice(0)) {
      this.o.store.keep(label, tree).catch((error: unknown) => this.o.logger.warn(`[checkpoints] could not keep ${label}: ${errorMessage(error)}`));
    }
  }

  private async changedSince(listed: string[], gone: ReadonlySet<string>, since: number): Promise<string[]> {
    const times = await Promise.all(listed.map((rel) => fs.lstat(path.join(this.folder, rel)).then((s) => s.mtimeMs, () => (gone.has(rel) ? 0 : Infinity))));
    return listed.filter((rel, i) => !rel.endsWith('/') && times[i]! >= since - RACE_SLACK_MS);
  }

  private noteSkipped(paths: ReadonlySet<string> | 'all', skipped: SkippedFile[]): void {
    if (paths === 'all') this.skipped.clear();
    else {
      for (const key of [...this.skipped.keys()]) {
        if ([...paths].some((p) => key === p || key.startsWith(`${p}/`))) this.skipped.delete(key);
      }
    }
    for (const s of skipped) this.skipped.set(s.path, s);
  }

  /** The safety net for a change the watcher missed: a whole read now and then, never while a turn is open. */
  private scheduleRefresh(): void {
    if (this.disposed) return;
    this.refreshTimer = this.o.clock.setTimer(this.o.refreshMs ?? 300_000, () => {
      if (this.openTurns > 0) {
        this.scheduleRefresh();
        return;
      }
      this.o.changes.take();
      const run = this.tail.then(async () => {
        const got = await this.o.store.update('all', undefined, true);
        this.noteSkipped('all', got.skipped);
        this.tree = got.tree;
        this.refreshed = got.listed;
      });
      this.tail = run.catch((error: unknown) => {
        this.lost = true;
        this.o.logger.warn(`[checkpoints] ${path.basename(this.folder)}: refresh failed: ${errorMessage(error)}`);
      });
      void this.tail.then(() => this.scheduleRefresh());
    });
  }
}
