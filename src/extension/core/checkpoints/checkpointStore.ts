// The checkpoint store of one workspace folder: a shadow git repository in Vigil's storage (never the person's
// `.git`) that snapshots the folder's files as git trees and puts a turn's changes back (restore.ts).

import { createHash } from 'node:crypto';
import { lstatSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { VigilError } from '../common/errors';
import { folderlessRoot } from '../folders/folderlessFolder';
import { withFileLock } from '../common/fileLock';
import type { Logger } from '../ports/logger';
import { GitRunner } from './gitRunner';

export const checkpointLimits = {
  /** Files larger than this are left out of a checkpoint (and said so). */
  maxFileBytes: 5 * 1024 * 1024,
  /** The whole store of one folder; old checkpoints are dropped to stay under it. */
  maxStoreBytes: 500 * 1024 * 1024,
  /** How many skipped files a checkpoint names (the count is always exact). */
  namedSkips: 20,
} as const;

export interface SkippedFile {
  path: string;
  reason: 'tooLarge' | 'notAFile' | 'nestedRepository';
  bytes?: number;
}

export interface Snapshot {
  tree: string;
  commit: string;
  skipped: SkippedFile[];
  skippedCount: number;
}

/** A tree written without a name yet, with the files read for it (`listed`) and those already gone then. */
export type Recorded = Omit<Snapshot, 'commit'> & { listed: string[]; gone: string[] };

export interface CheckpointStoreOptions {
  /** Vigil's storage root (shared by every window). */
  storageRoot: string;
  /** Absolute, canonical workspace folder. */
  folder: string;
  logger: Logger;
  maxFileBytes?: number;
  maxStoreBytes?: number;
  gitBinary?: string;
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const LABEL = /^[A-Za-z0-9._-]{1,200}(\/[A-Za-z0-9._-]{1,200})?$/;

export function isObjectId(value: string): boolean {
  return OBJECT_ID.test(value);
}

/** The store folder of a workspace folder: named by a hash, so no path from anywhere becomes a file name. */
export function storeDirFor(storageRoot: string, folder: string): string {
  const key = createHash('sha256').update(folder).digest('hex').slice(0, 24);
  return path.join(storageRoot, 'checkpoints', key);
}

export class CheckpointStore {
  readonly dir: string;
  readonly git: GitRunner;
  readonly maxFileBytes: number;
  readonly maxStoreBytes: number;
  private readonly gitDir: string;
  /** One operation at a time in this process; the file lock keeps other windows out. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: CheckpointStoreOptions) {
    this.dir = storeDirFor(o.storageRoot, o.folder);
    this.gitDir = path.join(this.dir, 'git');
    this.git = new GitRunner(this.gitDir, o.folder, path.join(this.dir, 'home'), o.gitBinary);
    this.maxFileBytes = o.maxFileBytes ?? checkpointLimits.maxFileBytes;
    this.maxStoreBytes = o.maxStoreBytes ?? checkpointLimits.maxStoreBytes;
  }

  get folder(): string {
    return this.o.folder;
  }

  /**
   * Runs `fn` alone on this store: in this process (queue) and across windows (file lock). `background`: nobody
   * waits for it, so its git processes run at a lower priority.
   */
  exclusive<T>(fn: () => Promise<T>, background = false): Promise<T> {
    const run = this.queue.then(() =>
      withFileLock(this.dir, path.join(this.dir, 'store.lock'), this.o.logger, async () => {
        this.git.lowPriority = background;
        try {
          await this.ensureRepository();
          return await fn();
        } finally {
          this.git.lowPriority = false;
        }
      }, { what: 'the checkpoint store', busyCode: 'SESSION_BUSY', retries: { retries: 2_000, factor: 1.2, minTimeout: 5, maxTimeout: 100 } }),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Records the folder's files (those `.gitignore` does not exclude, no larger than the file limit) as a
   * tree and keeps it under `refs/vigil/<label>`. Cheap when little changed: the index remembers file stats.
   */
  snapshot(label: string, signal?: AbortSignal): Promise<Snapshot> {
    checkLabel(label);
    return this.exclusive(async () => {
      const got = await this.record('all', signal);
      const commit = await this.keepTree(label, got.tree, signal);
      return { tree: got.tree, commit, skipped: got.skipped.slice(0, checkpointLimits.namedSkips), skippedCount: got.skippedCount };
    });
  }

  /**
   * Brings the index up to date for `paths` (files or folders, relative; 'all': the whole folder) and writes its
   * tree, without keeping it under a name yet (`keep`); `skipped` names them all.
   */
  update(paths: ReadonlySet<string> | 'all', signal?: AbortSignal, background = false): Promise<Recorded> {
    return this.exclusive(() => this.record(paths, signal), background);
  }

  /** Keeps `tree` under `refs/vigil/<label>`, so dropping old checkpoints never drops it first. */
  keep(label: string, tree: string): Promise<string> {
    checkLabel(label);
    if (!isObjectId(tree)) return Promise.reject(new VigilError('INVALID_INPUT', 'Not a tree id'));
    return this.exclusive(() => this.keepTree(label, tree), true);
  }

  /**
   * Of `dirs` (relative folders), those a pattern excludes, themselves or through a parent, each as "dir/" (one
   * look). Not `ls-files --directory`: it also names a folder whose files are all ignored today.
   */
  ignoredDirs(dirs: string[]): Promise<Set<string>> {
    return this.exclusive(async () => {
      const out = await this.git.run(['check-ignore', '-z', '--stdin'], { input: dirs.map((d) => `${d}/\0`).join(''), okCodes: [1] });
      return new Set(splitNul(out.stdout));
    }, true);
  }

  private async record(paths: ReadonlySet<string> | 'all', signal?: AbortSignal): Promise<Recorded> {
    const literal = (p: string) => `:(literal)${p}`;
    const scope = paths === 'all' ? undefined : [...paths].map(literal);
    if (scope?.length === 0) return { tree: await this.writeTree(signal), skipped: [], skippedCount: 0, listed: [], gone: [] };
    const { skipped, newBytes, listed, gone } = await this.survey(scope, signal);
    // A name that is not UTF-8 reads back with replacement marks and names no file: `git add` of it failed, and
    // with it the checkpoint. The whole folder is recorded instead (git reads those names as bytes).
    if (scope !== undefined && listed.some((p) => p.includes('\uFFFD'))) return this.record('all', signal);
    if (newBytes > this.maxStoreBytes) {
      throw new VigilError('INVALID_INPUT', `The folder has ${mb(newBytes)} of new or changed files, more than the ${mb(this.maxStoreBytes)} checkpoints may keep, so no checkpoint was taken. Add large generated folders to .gitignore.`);
    }
    const skip = new Set(skipped.map((s) => s.path));
    if (paths === 'all' && skipped.length === 0) {
      await this.git.run(['add', '-A'], { signal });
    } else if (paths === 'all') {
      const spec = ['.', ...skipped.map((s) => `:(exclude,literal)${s.path}`)].join('\0');
      await this.git.run(['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], { signal, input: spec });
    } else {
      // Exactly the files git listed: each one exists, or is in the index and gone.
      const files = listed.filter((p) => !p.endsWith('/') && !skip.has(p));
      if (files.length > 0) await this.git.run(['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], { signal, input: files.map(literal).join('\0') });
    }
    // A file that was small in an earlier checkpoint must not stay recorded with its old content.
    if (skipped.length > 0) {
      await this.git.run(['rm', '-q', '-r', '-f', '--cached', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'], { signal, input: skipped.map((s) => literal(s.path)).join('\0') });
    }
    const tree = await this.writeTree(signal);
    return { tree, skipped, skippedCount: skipped.length, listed, gone };
  }

  private async writeTree(signal?: AbortSignal): Promise<string> {
    return (await this.git.run(['write-tree'], { signal })).stdout.toString().trim();
  }

  private async keepTree(label: string, tree: string, signal?: AbortSignal): Promise<string> {
    const commit = (await this.git.run(['commit-tree', tree, '-m', label], { signal })).stdout.toString().trim();
    await this.git.run(['update-ref', `refs/vigil/${label}`, commit], { signal });
    await this.bound(commit);
    return commit;
  }

  /** True if the store still holds every one of `trees` (old checkpoints are dropped to bound the store). */
  async hasTrees(trees: string[]): Promise<boolean> {
    if (!trees.every(isObjectId)) return false;
    const got = await this.git.run(['cat-file', '--batch-check'], { input: trees.map((t) => `${t}\n`).join('') });
    const lines = got.stdout.toString().split('\n').filter(Boolean);
    return lines.length === trees.length && lines.every((line) => / tree \d+$/.test(line));
  }

  /** One stored file's bytes (a blob id from a restore plan), for showing what restoring brings back. */
  async readBlob(id: string): Promise<Buffer> {
    if (!isObjectId(id)) throw new VigilError('INVALID_INPUT', 'Not an object id');
    return (await this.git.run(['cat-file', 'blob', id])).stdout;
  }

  /** Bytes the store takes on disk (loose objects and packs). */
  async storeBytes(): Promise<number> {
    return (await this.objectCounts()).bytes;
  }

  private async objectCounts(): Promise<{ bytes: number; packs: number }> {
    const out = (await this.git.run(['count-objects', '-v'])).stdout.toString();
    const value = (name: string) => Number(/^\S+: (\d+)$/.exec(out.split('\n').find((l) => l.startsWith(`${name}:`)) ?? '')?.[1] ?? 0);
    return { bytes: (value('size') + value('size-pack') + value('size-garbage')) * 1024, packs: value('packs') };
  }

  /**
   * Looks at what `git add -A` would read (files new or changed since the index last saw them: an unchanged
   * folder lists nothing) and leaves out files too large or not files at all.
   */
  private async survey(scope: string[] | undefined, signal?: AbortSignal): Promise<{ skipped: SkippedFile[]; newBytes: number; listed: string[]; gone: string[] }> {
    const paths = await this.lsFiles(['--modified', '--others', '--exclude-standard'], scope, signal);
    const skipped: SkippedFile[] = [];
    const gone: string[] = [];
    let newBytes = 0;
    const seen = new Set<string>();
    const work = (rel: string) => {
      // git lists a folder holding its own repository as "folder/": its files are that repository's.
      if (rel.endsWith('/')) {
        skipped.push({ path: rel.slice(0, -1), reason: 'nestedRepository' });
        return;
      }
      if (seen.has(rel)) return;
      seen.add(rel);
      let stat;
      try {
        stat = lstatSync(path.join(this.o.folder, rel));
      } catch {
        gone.push(rel);
        return; // deleted since: `git add -A` records the deletion
      }
      if (stat.isSymbolicLink()) return;
      if (!stat.isFile()) {
        if (!stat.isDirectory()) skipped.push({ path: rel, reason: 'notAFile' });
        return;
      }
      if (stat.size > this.maxFileBytes) skipped.push({ path: rel, reason: 'tooLarge', bytes: stat.size });
      else newBytes += stat.size;
    };
    // Synchronous stats cost a tenth of promised ones; in slices, so the event loop is never held for long.
    for (let i = 0; i < paths.length; i += 500) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      for (const rel of paths.slice(i, i + 500)) work(rel);
    }
    skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { skipped, newBytes, listed: paths, gone };
  }

  /** `git ls-files -z` of `specs` (all when undefined), a few hundred at a time: it takes no pathspec file. */
  private async lsFiles(args: string[], specs: string[] | undefined, signal?: AbortSignal): Promise<string[]> {
    if (specs === undefined) return splitNul((await this.git.run(['ls-files', '-z', ...args], { signal })).stdout);
    const out: string[] = [];
    for (let i = 0; i < specs.length; i += 500) {
      out.push(...splitNul((await this.git.run(['ls-files', '-z', ...args, '--', ...specs.slice(i, i + 500)], { signal })).stdout));
    }
    return out;
  }

  /** Drops the oldest checkpoints while the store is over its bound, keeping `keep`. */
  private async bound(keep: string): Promise<void> {
    const counts = await this.objectCounts();
    // Each snapshot that read files wrote one small pack: join them now and then, so lookups stay fast. Geometric:
    // the small packs join each other, not the folder's first (large) pack, which `-a` rewrote each time (tens of
    // seconds at 200,000 files, holding the store from the next turn's checkpoint).
    if (counts.packs > 64 && counts.bytes <= this.maxStoreBytes) await this.git.run(['repack', '-d', '-q', '--geometric=2']);
    if (counts.bytes <= this.maxStoreBytes) return;
    // First pack what there is: loose objects take far more room than a pack.
    await this.git.run(['gc', '-q', '--prune=now']);
    for (let round = 0; round < 20 && (await this.storeBytes()) > this.maxStoreBytes; round += 1) {
      const refs = splitLines((await this.git.run(['for-each-ref', '--sort=committerdate', '--format=%(objectname) %(refname)', 'refs/vigil/'])).stdout)
        .map((line) => line.split(' ') as [string, string])
        .filter(([id]) => id !== keep);
      if (refs.length === 0) break;
      const drop = refs.slice(0, Math.max(1, Math.ceil(refs.length / 2)));
      await this.git.run(['update-ref', '--stdin', '-z'], { input: drop.map(([, ref]) => `delete ${ref}\0\0`).join('') });
      this.o.logger.info(`[checkpoints] dropped ${drop.length} old checkpoint(s) of ${this.o.folder} to keep the store under ${mb(this.maxStoreBytes)}`);
      await this.git.run(['gc', '-q', '--prune=now']);
    }
  }

  private async ensureRepository(): Promise<void> {
    const head = path.join(this.gitDir, 'HEAD');
    if (!(await exists(head))) {
      await fs.mkdir(path.join(this.dir, 'home'), { recursive: true });
      // No template: no sample hooks, no description file.
      await this.git.run(['init', '-q', '--template=']);
      await this.git.run(['config', 'core.logAllRefUpdates', 'false']);
      await this.git.run(['config', 'core.bare', 'false']);
    }
    const info = path.join(this.gitDir, 'info');
    await fs.mkdir(info, { recursive: true });
    await fs.writeFile(path.join(info, 'exclude'), excludeFile(this.o.folder, this.o.storageRoot));
    // Highest precedence of all attribute files: bytes are stored as they are, whatever the folder's
    // .gitattributes asks (no end-of-line conversion, no filters, no re-encoding).
    await fs.writeFile(path.join(info, 'attributes'), '* -text -filter -ident -eol -working-tree-encoding\n');
    // A git killed while it held the index (a window that died mid-snapshot) left its lock: under our own
    // lock no other git of this store runs, so it is stale.
    await fs.rm(path.join(this.gitDir, 'index.lock'), { force: true });
  }
}

function checkLabel(label: string): void {
  if (!LABEL.test(label)) throw new VigilError('INVALID_INPUT', `Checkpoint label "${label.slice(0, 80)}" has characters outside [A-Za-z0-9._-/]`);
}

/** Vigil's storage and the private folders of folderless sessions beside it: never recorded, never watched. */
export function vigilOwnFolders(storageRoot: string): string[] {
  return [storageRoot, folderlessRoot(storageRoot)];
}

function excludeFile(folder: string, storageRoot: string): string {
  const lines = ['# Written by Vigil: never recorded in checkpoints.', '.git'];
  for (const own of vigilOwnFolders(storageRoot)) {
    const rel = path.relative(folder, own);
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) && !/[\n\r]/.test(rel)) {
      lines.push(`/${rel.split(path.sep).map(escapePattern).join('/')}/`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function escapePattern(segment: string): string {
  return segment.replace(/[\\*?[\]!#\s]/g, (c) => `\\${c}`);
}

export function splitNul(buffer: Buffer): string[] {
  return buffer.toString('utf8').split('\0').filter((s) => s !== '');
}

function splitLines(buffer: Buffer): string[] {
  return buffer.toString('utf8').split('\n').filter((s) => s !== '');
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(() => true, () => false);
}

export function mb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
