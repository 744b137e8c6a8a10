// Which paths of a workspace folder changed since they were last taken: a non-recursive `fs.watch` on each folder
// a checkpoint records (not `.git`, not folders `.gitignore` excludes, not nested repositories, not Vigil's
// storage). Linux keeps all of a process's watches on one inotify descriptor, so the cost is one kernel watch per
// folder and a path added to a set per event; nothing is read until a checkpoint asks.

import { promises as fs, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../common/errors';
import type { Logger } from '../ports/logger';

/** What a checkpoint keeper asks of a watcher (tests give one that lags or misses). */
export interface FolderChanges {
  /** Starts watching; resolves once every folder to watch is watched. */
  start(): Promise<void>;
  /** Paths ('/'-separated, relative) changed since the last take, or 'all' when the watcher cannot tell. */
  take(): Set<string> | 'all';
  /** Paths changed since the last take, without taking them. */
  peek(): ReadonlySet<string> | 'all';
  /** Resolves once every change made before the call has been reported. */
  settled(): Promise<void>;
  dispose(): void;
}

export interface FolderWatcherOptions {
  folder: string;
  logger: Logger;
  /** Of these folders (relative), the ones git ignores, themselves or through a parent, each as "dir/". */
  ignoredDirs(dirs: string[]): Promise<Set<string>>;
  /** Absolute folders never watched (Vigil's storage and its siblings). */
  never: string[];
  /** Past this many watched folders the watcher stops and says 'all' (default: a quarter of the kernel's limit). */
  maxWatches?: number;
  /** Past this many changed paths between two takes the watcher says 'all' (a checkout, a build). */
  maxChanged?: number;
}

export class FolderWatcher implements FolderChanges {
  private readonly watchers = new Map<string, FSWatcher>();
  private changed = new Set<string>();
  private all = true;
  private failed = false;
  private disposed = false;
  /** New folders waiting for their ignore check and watch; they stay changed until watched. */
  private readonly unwatched = new Set<string>();
  private adding: Promise<void> | undefined;

  constructor(private readonly o: FolderWatcherOptions) {}

  async start(): Promise<void> {
    try {
      await this.watchTree('');
      if (!this.failed) this.all = true; // whatever changed while the tree was walked is unknown: one full look
    } catch (error) {
      this.fail(`could not watch the folder: ${errorMessage(error)}`);
    }
  }

  take(): Set<string> | 'all' {
    if (this.all) {
      this.all = this.failed;
      this.changed = new Set(this.unwatched);
      return 'all';
    }
    const taken = this.changed;
    this.changed = new Set(this.unwatched);
    return taken;
  }

  peek(): ReadonlySet<string> | 'all' {
    return this.all ? 'all' : this.changed;
  }

  /** inotify queues an event while the write is made; two turns of the event loop read it (Node reads in its poll phase). */
  async settled(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Resolves once the new names reported so far are sorted into folders (watched) and files. */
  async sorted(): Promise<void> {
    while (this.adding) await this.adding;
  }

  get watchedCount(): number {
    return this.watchers.size;
  }

  dispose(): void {
    this.disposed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private get maxWatches(): number {
    return this.o.maxWatches ?? 50_000;
  }

  private fail(why: string): void {
    if (this.failed) return;
    this.failed = true;
    this.all = true;
    this.o.logger.warn(`[checkpoints] ${path.basename(this.o.folder)}: ${why}; each checkpoint reads the whole folder instead`);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  /** Watches `rel` and every folder under it that git would record, breadth first, asking git which are ignored. */
  private async watchTree(rel: string): Promise<void> {
    let level = [rel];
    while (level.length > 0 && !this.failed && !this.disposed) {
      const next: string[] = [];
      for (const dir of level) {
        if (!this.watchOne(dir)) continue;
        const entries = await fs.readdir(path.join(this.o.folder, dir), { withFileTypes: true }).catch(() => []);
        // A folder holding its own repository: git records none of its files.
        if (dir !== '' && entries.some((e) => e.name === '.git')) {
          this.unwatch(dir);
          continue;
        }
        for (const e of entries) if (e.isDirectory() && e.name !== '.git') next.push(dir === '' ? e.name : `${dir}/${e.name}`);
      }
      const kept = next.filter((d) => !this.o.never.includes(path.join(this.o.folder, d)));
      const ignored = kept.length > 0 ? await this.o.ignoredDirs(kept) : new Set<string>();
      level = kept.filter((d) => !ignored.has(`${d}/`));
    }
  }

  private watchOne(rel: string): boolean {
    if (this.watchers.has(rel) || this.failed || this.disposed) return !this.failed && !this.disposed;
    if (this.watchers.size >= this.maxWatches) {
      this.fail(`more than ${this.maxWatches} folders to watch`);
      return false;
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(path.join(this.o.folder, rel), { persistent: false }, (_event, name) => this.onEvent(rel, name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return false; // gone since it was listed
      this.fail(`could not watch ${rel || '.'} (${code ?? errorMessage(error)})`);
      return false;
    }
    // A folder removed: its watch ends; its parent reports the removal.
    watcher.on('error', () => this.unwatch(rel));
    this.watchers.set(rel, watcher);
    return true;
  }

  private unwatch(rel: string): void {
    this.watchers.get(rel)?.close();
    this.watchers.delete(rel);
  }

  private onEvent(dir: string, name: string | Buffer | null): void {
    if (this.disposed) return;
    const entry = name === null ? undefined : name.toString();
    const rel = entry === undefined ? dir : dir === '' ? entry : `${dir}/${entry}`;
    if (rel === '' || entry === '.git') {
      // No name (the kernel dropped events?) or the root's own `.git`: look at everything once.
      if (entry !== '.git') this.all = true;
      return;
    }
    this.changed.add(rel);
    if (this.changed.size > (this.o.maxChanged ?? 20_000)) this.all = true;
    if (!this.watchers.has(rel)) this.maybeNewFolder(rel);
  }

  /** A name that may be a new folder: it stays changed until it is watched, so nothing written in it is lost. */
  private maybeNewFolder(rel: string): void {
    this.unwatched.add(rel);
    this.adding ??= this.addNewFolders().finally(() => (this.adding = undefined));
  }

  /** In batches, off the event: which of the new names are folders git records, then their watches. */
  private async addNewFolders(): Promise<void> {
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
    while (this.unwatched.size > 0 && !this.disposed && !this.failed) {
      const batch = [...this.unwatched].slice(0, 500);
      const stats = await Promise.all(batch.map((rel) => fs.lstat(path.join(this.o.folder, rel)).then((s) => s.isDirectory(), () => false)));
      const dirs = batch.filter((rel, i) => stats[i] && !this.o.never.includes(path.join(this.o.folder, rel)));
      const ignored = dirs.length > 0 ? await this.o.ignoredDirs(dirs).catch(() => new Set<string>()) : new Set<string>();
      for (const rel of dirs) if (!ignored.has(`${rel}/`)) await this.watchTree(rel).catch((error: unknown) => this.fail(errorMessage(error)));
      for (const rel of batch) this.unwatched.delete(rel);
      // Written in before its watch began: the next checkpoint reads it whole.
      for (const rel of dirs) this.changed.add(rel);
    }
  }
}
