// Checkpoints of turns: a snapshot of the session's folder before and after each turn (recorded in the turn's
// transcript), and the restore of one turn's changes. One store per workspace folder, shared by its sessions.

import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import { errorMessage, VigilError } from '../common/errors';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { CheckpointPort, TurnCheckpoint } from '../ports/checkpoints';
import type { TranscriptRecord } from '../store/transcriptRecords';
import { CheckpointStore, type Snapshot } from './checkpointStore';
import { applyRestore, planRestore, type RestorePlan, type RestoreResult } from './restore';

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
  /** A snapshot before a turn that takes longer is stopped and the turn runs without it (default 30 s). */
  snapshotBoundMs?: number;
  /**
   * The snapshot after a turn runs in its teardown, where the turn lease is no longer renewed: bounded well
   * inside the lease's time to live (default 10 s).
   */
  finishBoundMs?: number;
  gitBinary?: string;
  maxFileBytes?: number;
  maxStoreBytes?: number;
}

export type CheckpointRecord = Extract<TranscriptRecord, { type: 'checkpoint' }>;

export class TurnCheckpoints implements CheckpointPort {
  private readonly stores = new Map<string, CheckpointStore>();

  constructor(private readonly o: TurnCheckpointsOptions) {}

  async begin(sessionId: string, turnId: string): Promise<TurnCheckpoint> {
    const none = (unavailable: string): TurnCheckpoint => ({ finish: () => Promise.resolve({ unavailable }) });
    if (this.o.enabled && !this.o.enabled()) return { finish: () => Promise.resolve({}) };
    let folder: string | undefined;
    try {
      folder = await this.o.folderOf(sessionId);
    } catch (error) {
      return none(`No checkpoint: ${errorMessage(error)}`);
    }
    if (folder === undefined) return none('No checkpoint: this window has no workspace folder on the local disk.');
    const store = this.storeFor(folder);
    const before = await this.bounded(store, `${turnId}/before`, this.o.snapshotBoundMs ?? 30_000);
    if ('error' in before) return none(`No checkpoint: ${before.error}`);
    return {
      finish: async () => {
        const after = await this.bounded(store, `${turnId}/after`, this.o.finishBoundMs ?? 10_000);
        if ('error' in after) return { folder, before: before.tree, unavailable: `No checkpoint after the turn: ${after.error}` };
        const skipped = after.skippedCount > 0 ? after : before;
        return {
          folder,
          before: before.tree,
          after: after.tree,
          ...(skipped.skippedCount > 0 ? { skipped: skipped.skipped.map((s) => ({ path: s.path, ...(s.bytes !== undefined ? { bytes: s.bytes } : {}) })), skippedCount: skipped.skippedCount } : {}),
        };
      },
    };
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

  /** What restoring to before the turn would change, and which of those files changed again since. */
  async preview(sessionId: string, turnId: string): Promise<RestorePlan> {
    const record = await this.recordOf(sessionId, turnId);
    if (!record) throw new VigilError('NOT_FOUND', 'This turn has no checkpoint.');
    if (record.before === undefined || record.after === undefined || record.folder === undefined) {
      throw new VigilError('NOT_FOUND', record.unavailable ?? 'This turn has no complete checkpoint.');
    }
    const open = await this.o.folderOf(sessionId).catch(() => undefined);
    if (open !== record.folder) throw new VigilError('OUTSIDE_WORKSPACE', `This checkpoint is of ${record.folder}; open that folder to restore it.`);
    return planRestore(this.storeFor(record.folder), record.before, record.after);
  }

  /** A file as a checkpoint of `folder` holds it (only folders this window keeps checkpoints of). */
  readBlob(folder: string, id: string): Promise<Buffer> {
    const store = this.stores.get(folder);
    if (!store) return Promise.reject(new VigilError('NOT_FOUND', 'No checkpoint of this folder is open in this window.'));
    return store.readBlob(id);
  }

  restore(plan: RestorePlan, overwrite: ReadonlySet<string>): Promise<RestoreResult> {
    return applyRestore(this.storeFor(plan.folder), plan, overwrite);
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

  /** A snapshot stopped at the bound; an error becomes the reason shown in the transcript. */
  private async bounded(store: CheckpointStore, label: string, bound: number): Promise<Snapshot | { error: string }> {
    const stop = new AbortController();
    const timer = this.o.clock.setTimer(bound, () => stop.abort());
    try {
      const stat = await fs.stat(store.folder).catch(() => undefined);
      if (!stat?.isDirectory()) return { error: `the folder ${store.folder} is not there.` };
      return await store.snapshot(label, stop.signal);
    } catch (error) {
      const why = stop.signal.aborted ? `taking it took longer than ${Math.round(bound / 1000)} s, so the turn went on without it.` : errorMessage(error);
      this.o.logger.warn(`[checkpoints] ${path.basename(store.folder)}: ${why}`);
      return { error: why };
    } finally {
      timer.cancel();
    }
  }
}
