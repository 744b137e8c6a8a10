// Checkpoints of turns: a snapshot of the session's folder before and after each turn (recorded in the turn's
// transcript), and the restore of one turn's changes. One store per workspace folder, shared by its sessions.

import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import { errorMessage, VigilError } from '../common/errors';
import type { Clock, TimerHandle } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { CheckpointFields, CheckpointPort, TurnCheckpoint } from '../ports/checkpoints';
import type { TranscriptRecord } from '../store/transcriptRecords';
import { CheckpointStore, checkpointLimits, vigilOwnFolders } from './checkpointStore';
import { FolderKeeper, type Mark } from './folderKeeper';
import { FolderWatcher, type FolderChanges } from './folderWatcher';
import { applyRestore, planRestore, type RestorePlan, type RestoreResult } from './restore';
import { readStoredText, type StoredText } from './storedText';
import { compareBytes, turnChanges } from './turnChanges';
import type { TurnChangesView } from '../../../shared/turnChanges';

export interface TurnCheckpointsOptions {
  storageRoot: string;
  clock: Clock;
  logger: Logger;
  /** The folder a session works in; undefined when it has none (a window without a local folder). */
  folderOf(sessionId: string): Promise<string | undefined>;
  /** A session's transcript, to find a turn's checkpoint record. */
  records(sessionId: string): Promise<TranscriptRecord[]>;
  /** `vigil.checkpoints.enabled` (default on). */
  enabled?(): boolean;
  /** A before-turn snapshot that takes longer is given up, and the turn says it has none (default 30 s). */
  snapshotBoundMs?: number;
  /**
   * The snapshot after a turn runs in its teardown, where the turn lease is no longer renewed: bounded well
   * inside the lease's time to live (default 10 s).
   */
  finishBoundMs?: number;
  gitBinary?: string;
  /** What names a folder's changes between checkpoints (default: a watcher of the folder). */
  changesFor?(folder: string, store: CheckpointStore): FolderChanges;
  /** How often a folder is read whole, as the watcher's safety net (default 5 min). */
  refreshMs?: number;
  maxFileBytes?: number;
  maxStoreBytes?: number;
  /** Whether a turn of the session runs (in any window): a restore never writes under a running agent. */
  turnRunning?(sessionId: string): Promise<boolean>;
}

export type CheckpointRecord = Extract<TranscriptRecord, { type: 'checkpoint' }>;

/** Said at the end of a turn that began before its folder's first snapshot was ready (never a silent gap). */
export const FIRST_SNAPSHOT_PENDING = "This turn has no checkpoint: the folder's first snapshot was still being taken when it began.";

type Begun =
  | { unavailable: string; folder?: undefined }
  | { folder: string; keeper: FolderKeeper; before: Promise<Mark | { error: string }> };

export class TurnCheckpoints implements CheckpointPort {
  private readonly stores = new Map<string, CheckpointStore>();
  private readonly keepers = new Map<string, FolderKeeper>();

  constructor(private readonly o: TurnCheckpointsOptions) {}

  /** Takes the folder's first snapshot in the background and keeps it current from then on. */
  prepare(folder: string): Promise<void> {
    if (this.o.enabled && !this.o.enabled()) return Promise.resolve();
    return this.keeperFor(folder).prepare();
  }

  begin(sessionId: string, turnId: string): TurnCheckpoint {
    if (this.o.enabled && !this.o.enabled()) return { finish: () => Promise.resolve({}) };
    const begun = this.beforeOf(sessionId, turnId, this.o.clock.wallNow());
    return { finish: () => this.finish(begun, turnId) };
  }

  dispose(): void {
    for (const keeper of this.keepers.values()) keeper.dispose();
    this.keepers.clear();
  }

  private async beforeOf(sessionId: string, turnId: string, since: number): Promise<Begun> {
    let folder: string | undefined;
    try {
      folder = await this.o.folderOf(sessionId);
    } catch (error) {
      return { unavailable: `No checkpoint: ${errorMessage(error)}` };
    }
    if (folder === undefined) return { unavailable: 'No checkpoint: this window has no workspace folder on the local disk.' };
    const keeper = this.keeperFor(folder);
    void keeper.prepare();
    if (!keeper.ready) return { unavailable: keeper.why ? `No checkpoint: ${keeper.why}` : FIRST_SNAPSHOT_PENDING };
    keeper.turnOpened();
    return { folder, keeper, before: this.bounded(keeper, `${turnId}/before`, since, this.o.snapshotBoundMs ?? 30_000) };
  }

  private async finish(begun: Promise<Begun>, turnId: string): Promise<CheckpointFields> {
    const b = await begun;
    if (b.folder === undefined) return { unavailable: b.unavailable };
    const { folder, keeper } = b;
    try {
      // One bound for both: the lease is no longer renewed while the turn ends.
      const deadline = this.o.clock.now() + (this.o.finishBoundMs ?? 10_000);
      const before = await this.within(b.before, deadline - this.o.clock.now());
      if ('error' in before) return { unavailable: `No checkpoint: ${before.error}` };
      const after = await this.bounded(keeper, `${turnId}/after`, undefined, Math.max(1_000, deadline - this.o.clock.now()));
      if ('error' in after) return { folder, before: before.tree, unavailable: `No checkpoint after the turn: ${after.error}` };
      const skipped = after.skipped.length > 0 ? after.skipped : before.skipped;
      const changes = before.tree === after.tree ? undefined : await this.changesOf(keeper, before.tree, after, deadline);
      return {
        folder,
        before: before.tree,
        after: after.tree,
        ...(changes ? { changes } : {}),
        ...(skipped.length > 0 ? { skipped: skipped.slice(0, checkpointLimits.namedSkips).map((s) => ({ path: s.path, ...(s.bytes !== undefined ? { bytes: s.bytes } : {}) })), skippedCount: skipped.length } : {}),
        ...(before.raced.length > 0 ? { unavailable: racedNote(before.raced) } : {}),
      };
    } finally {
      keeper.turnClosed();
    }
  }

  /** The checkpoint record of a turn of a session, if the transcript has one. */
  async recordOf(sessionId: string, turnId: string): Promise<CheckpointRecord | undefined> {
    const records = await this.o.records(sessionId);
    return records.find((r): r is CheckpointRecord => r.type === 'checkpoint' && r.turnId === turnId);
  }

  /** Every turn of a session with a restorable checkpoint, newest first. */
  async restorable(sessionId: string): Promise<{ turnId: string; at: number; prompt?: string }[]> {
    const records = await this.o.records(sessionId);
    const prompts = new Map<string, string>();
    for (const r of records) if (r.type === 'userPrompt' && r.turnId) prompts.set(r.turnId, r.text);
    return records
      .filter((r): r is CheckpointRecord => r.type === 'checkpoint' && r.before !== undefined && r.after !== undefined && r.before !== r.after && r.turnId !== undefined)
      .map((r) => ({ turnId: r.turnId!, at: r.at, prompt: prompts.get(r.turnId!) }))
      .reverse();
  }

  /**
   * The files the turn changed, for its end-of-turn list: bounded by what is left of the turn's end (at least 1 s);
   * a list that cannot be made is left out (the turn's Restore and its review still work) and logged.
   */
  private async changesOf(keeper: FolderKeeper, before: string, after: Mark, deadline: number): Promise<TurnChangesView | undefined> {
    const stop = new AbortController();
    const timer = this.o.clock.setTimer(Math.max(1_000, deadline - this.o.clock.now()), () => stop.abort());
    try {
      return await turnChanges(this.storeFor(keeper.folder), before, after.tree, { skipped: new Set(after.skipped.map((s) => s.path)), signal: stop.signal });
    } catch (error) {
      this.o.logger.warn(`[checkpoints] ${path.basename(keeper.folder)}: the list of changed files was not made: ${errorMessage(error)}`);
      return undefined;
    } finally {
      timer.cancel();
    }
  }

  /**
   * What restoring to before the turn would change, and which of those files changed again since; `only`: just these
   * files of the turn (one file's diff or Restore).
   */
  async preview(sessionId: string, turnId: string, only?: readonly string[]): Promise<RestorePlan> {
    // A name the view sent back: only ever a relative path inside the folder, matched literally in the turn's trees.
    const outside = only?.find((p) => p === '' || p.startsWith('/') || p.includes('\0') || p.split('/').some((s) => s === '..' || s === '.' || s === ''));
    if (outside !== undefined) throw new VigilError('INVALID_INPUT', `"${outside.slice(0, 200)}" is not a file of this turn's folder.`);
    const record = await this.recordOf(sessionId, turnId);
    if (!record) throw new VigilError('NOT_FOUND', 'This turn has no checkpoint.');
    if (record.before === undefined || record.after === undefined || record.folder === undefined) {
      throw new VigilError('NOT_FOUND', record.unavailable ?? 'This turn has no complete checkpoint.');
    }
    const open = await this.o.folderOf(sessionId).catch(() => undefined);
    if (open !== record.folder) throw new VigilError('OUTSIDE_WORKSPACE', `This checkpoint is of ${record.folder}; open that folder to restore it.`);
    return planRestore(this.storeFor(record.folder), record.before, record.after, { only });
  }

  /** A stored file's text for the diff editor; a file over the compare bound is never read (only folders this window keeps). */
  readText(folder: string, id: string): Promise<StoredText> {
    const store = this.stores.get(folder);
    if (!store) return Promise.reject(new VigilError('NOT_FOUND', 'No checkpoint of this folder is open in this window.'));
    return readStoredText(store, id, compareBytes);
  }

  /**
   * Puts the plan's files back. Asked again right before writing: the person may have taken minutes over the
   * questions, and a turn (theirs, a background task's wakeup, another window's) may have started meanwhile.
   */
  async restore(sessionId: string, plan: RestorePlan, overwrite: ReadonlySet<string>): Promise<RestoreResult> {
    if (await this.o.turnRunning?.(sessionId)) {
      throw new VigilError('SESSION_BUSY', 'A turn of this session started while the restore waited, so nothing was restored (the agent could write over it). Stop the turn or let it finish, then restore again.');
    }
    return applyRestore(this.storeFor(plan.folder), plan, overwrite);
  }

  private keeperFor(folder: string): FolderKeeper {
    let keeper = this.keepers.get(folder);
    if (!keeper) {
      const store = this.storeFor(folder);
      const changes = this.o.changesFor?.(folder, store) ?? new FolderWatcher({
        folder,
        logger: this.o.logger,
        never: vigilOwnFolders(this.o.storageRoot),
        ignoredDirs: (dirs) => store.ignoredDirs(dirs),
      });
      keeper = new FolderKeeper({ store, changes, clock: this.o.clock, logger: this.o.logger, refreshMs: this.o.refreshMs });
      this.keepers.set(folder, keeper);
    }
    return keeper;
  }

  private storeFor(folder: string): CheckpointStore {
    let store = this.stores.get(folder);
    if (!store) {
      store = new CheckpointStore({
        storageRoot: this.o.storageRoot,
        folder,
        logger: this.o.logger,
        gitBinary: this.o.gitBinary,
        maxFileBytes: this.o.maxFileBytes,
        maxStoreBytes: this.o.maxStoreBytes,
      });
      this.stores.set(folder, store);
    }
    return store;
  }

  /** `work`, or at `ms` an error saying it took too long (the work goes on in the background). */
  private async within<T>(work: Promise<T>, ms: number): Promise<T | { error: string }> {
    let timer: TimerHandle | undefined;
    const late = new Promise<{ error: string }>((resolve) => {
      timer = this.o.clock.setTimer(ms, () => resolve({ error: `taking it took longer than ${Math.round(ms / 1000)} s, so the turn went on without it.` }));
    });
    try {
      return await Promise.race([work, late]);
    } finally {
      timer?.cancel();
    }
  }

  /** A mark given up at the bound (it still completes in the background); an error becomes the reason shown. */
  private async bounded(keeper: FolderKeeper, label: string, since: number | undefined, bound: number): Promise<Mark | { error: string }> {
    const stat = await fs.stat(keeper.folder).catch(() => undefined);
    if (!stat?.isDirectory()) return { error: `the folder ${keeper.folder} is not there.` };
    const marked = keeper.mark(label, since).catch((error: unknown) => ({ error: errorMessage(error) }));
    const got = await this.within(marked, bound);
    if ('error' in got) this.o.logger.warn(`[checkpoints] ${path.basename(keeper.folder)}: ${got.error}`);
    return got;
  }
}

function racedNote(raced: string[]): string {
  const named = raced.slice(0, 3).join(', ');
  const more = raced.length > 3 ? ` and ${raced.length - 3} more` : '';
  return `Restore may not bring back ${named}${more} as it was before the turn: it changed just as the turn began.`;
}
