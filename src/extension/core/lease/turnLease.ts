// Cross-process turn lease with fencing epochs: acquire, refresh, release, reclaim, fenced writes.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import { VigilError } from '../common/errors';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import { jsonText, readJson, writeFileAtomic, writeFilesAtomic, writeJsonAtomic } from '../store/atomicFile';
import { leaseEpochFile, leaseFile, leaseLockPath } from '../store/storePaths';
import type { WriteGuard } from '../store/transcript';
import { withFileLock } from '../common/fileLock';
import { isHolderProvablyDead, leaseRecordSchema, sameHolder, type LeaseHolder, type LeaseRecord } from './leaseRecord';

/** What a turn holds after acquiring: the epoch its writes carry. */
export interface LeaseToken {
  readonly sessionId: string;
  readonly epoch: number;
  readonly holder: LeaseHolder;
}

export type ReclaimCause = 'expired' | 'holder-dead';

export type AcquireResult =
  | { kind: 'acquired'; token: LeaseToken; reclaimed?: { previous: LeaseHolder; cause: ReclaimCause } }
  | { kind: 'busy'; holder: LeaseHolder; expiresAt: number };

export interface LeaseOptions {
  ttlMs: number;
  host?: string;
}

export class TurnLeaseStore {
  private readonly host: string;
  /** The highest epoch this window granted or saw per session: a third witness if both files are lost. */
  private readonly seenEpochs = new Map<string, number>();

  constructor(
    private readonly root: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: LeaseOptions,
  ) {
    this.host = options.host ?? os.hostname();
  }

  get ttlMs(): number {
    return this.options.ttlMs;
  }

  holderFor(windowId: string, turnId: string): LeaseHolder {
    return { windowId, pid: process.pid, host: this.host, turnId };
  }

  /** One atomic step: take a free lease, or reclaim one that expired or whose holder is provably dead. */
  acquire(sessionId: string, holder: LeaseHolder): Promise<AcquireResult> {
    return this.locked(sessionId, async () => {
      const current = await this.read(sessionId);
      const now = this.clock.wallNow();
      let reclaimed: { previous: LeaseHolder; cause: ReclaimCause } | undefined;
      if (current?.holder) {
        const cause: ReclaimCause | undefined =
          now >= current.expiresAt ? 'expired' : isHolderProvablyDead(current.holder, this.host) ? 'holder-dead' : undefined;
        if (!cause) return { kind: 'busy', holder: current.holder, expiresAt: current.expiresAt };
        reclaimed = { previous: current.holder, cause };
        this.logger.warn(`Reclaiming the turn lease of session ${sessionId} from ${describeHolder(current.holder)} (${cause})`);
      }
      return { kind: 'acquired', token: await this.grant(sessionId, current, holder), reclaimed };
    });
  }

  /**
   * Takes the lease from a live holder that stopped answering (another window asked it to abort and
   * got no acknowledgement). Only while `expectedTurnId` still holds it; the new epoch fences the old
   * holder out of every later write, exactly as a reclaim does.
   */
  seize(sessionId: string, expectedTurnId: string, holder: LeaseHolder): Promise<AcquireResult | { kind: 'changed' }> {
    return this.locked(sessionId, async () => {
      const current = await this.read(sessionId);
      if (!current?.holder || current.holder.turnId !== expectedTurnId) return { kind: 'changed' as const };
      this.logger.warn(`Taking over the turn lease of session ${sessionId} from ${describeHolder(current.holder)}: it did not answer an abort request`);
      const token = await this.grant(sessionId, current, holder);
      return { kind: 'acquired' as const, token, reclaimed: { previous: current.holder, cause: 'expired' as const } };
    });
  }

  /**
   * Hands out the next epoch, under the lock: one above the highest ever granted, written to the lease and to
   * the mark beside it. Every grant goes through here, so the mark never falls behind a lease that may be lost.
   */
  private async grant(sessionId: string, current: LeaseRecord | undefined, holder: LeaseHolder): Promise<LeaseToken> {
    const now = this.clock.wallNow();
    const epoch = (await this.highestEpoch(sessionId, { record: current, damaged: false })) + 1;
    // A turn taken back by another window (same turn id) keeps when it first began: that is the turn's age.
    const acquiredAt = current?.holder?.turnId === holder.turnId && current.acquiredAt > 0 ? current.acquiredAt : now;
    const record: LeaseRecord = { version: 1, epoch, holder, acquiredAt, expiresAt: now + this.ttlMs, ttlMs: this.ttlMs };
    // The mark is renamed first: whichever of the two files is lost afterwards, the other still knows this
    // epoch. Both are durable before the token is handed out; their fsyncs are made together.
    await writeFilesAtomic([
      { file: leaseEpochFile(this.root, sessionId), data: jsonText({ epoch }) },
      { file: leaseFile(this.root, sessionId), data: jsonText(record) },
    ]);
    this.seenEpochs.set(sessionId, epoch);
    return { sessionId, epoch, holder };
  }

  /** Extends the lease; `lost` when another acquisition took it (the epoch moved on) or it was released. */
  refresh(token: LeaseToken): Promise<'ok' | 'lost'> {
    return this.locked(token.sessionId, async () => {
      const current = await this.read(token.sessionId);
      if (!isCurrent(current, token)) return 'lost';
      const now = this.clock.wallNow();
      await writeJsonAtomic(leaseFile(this.root, token.sessionId), { ...current!, expiresAt: now + this.ttlMs });
      return 'ok';
    });
  }

  /**
   * Holder-qualified and idempotent: releases only if this token still holds the lease. Atomic for every window
   * but not synced to the disk (it is on the path from a turn's end to its drain's wakeup): after a power cut
   * the lease may be found still held by this dead holder, which is then reclaimed as any dead or lapsed holder
   * is (at once if provably dead, else within the TTL), and the reclaim marks nothing interrupted, since the
   * turn's end record was synced before the release.
   */
  release(token: LeaseToken): Promise<boolean> {
    return this.locked(token.sessionId, async () => {
      const current = await this.read(token.sessionId);
      if (!isCurrent(current, token)) return false;
      await writeFileAtomic(leaseFile(this.root, token.sessionId), jsonText({ ...current!, holder: null, expiresAt: 0 }), { durable: false });
      return true;
    });
  }

  /** Runs a durable write only while `token` is the current epoch; otherwise refuses with STALE_EPOCH. */
  fenced<T>(token: LeaseToken, write: () => Promise<T>): Promise<T> {
    return this.locked(token.sessionId, async () => {
      const current = await this.read(token.sessionId);
      if (!isCurrent(current, token)) {
        throw new VigilError(
          'STALE_EPOCH',
          `Write to session ${token.sessionId} refused: epoch ${token.epoch} is no longer current (now ${current?.epoch ?? 'none'})`,
        );
      }
      return write();
    });
  }

  guard(token: LeaseToken): WriteGuard {
    return (write) => this.fenced(token, write);
  }

  /** The live holder, if any (expired or provably dead holders count as none). */
  async liveHolder(sessionId: string): Promise<LeaseHolder | undefined> {
    const current = await this.read(sessionId);
    if (!current?.holder) return undefined;
    if (this.clock.wallNow() >= current.expiresAt || isHolderProvablyDead(current.holder, this.host)) return undefined;
    return current.holder;
  }

  /** The lease record; a corrupt file is moved aside, reported, and read as a released lease at the highest known epoch. */
  async read(sessionId: string): Promise<LeaseRecord | undefined> {
    const { record, damaged } = await this.readLease(sessionId);
    if (!damaged) return record;
    const epoch = await this.highestEpoch(sessionId, { record, damaged });
    return { version: 1, epoch, holder: null, acquiredAt: 0, expiresAt: 0, ttlMs: this.ttlMs };
  }

  /**
   * The highest epoch ever granted: the larger of the lease's own and the high-water mark beside it.
   * Only when both are gone and at least one was damaged (not a fresh session) is it unknown; then
   * wall-clock milliseconds stand in, above any epoch counted one acquisition at a time.
   */
  private async highestEpoch(sessionId: string, lease: { record: LeaseRecord | undefined; damaged: boolean }): Promise<number> {
    const mark = await this.readMark(sessionId);
    const seen = this.seenEpochs.get(sessionId) ?? 0;
    const onDisk = Math.max(lease.record?.epoch ?? 0, mark.epoch ?? 0);
    let known: number;
    if (onDisk > 0) known = Math.max(onDisk, seen);
    else if (!lease.damaged && !mark.damaged && seen === 0) known = 0; // a fresh session
    else {
      // Both files lost: this window's memory is only a lower bound (another window may have gone further).
      this.logger.error(`Session ${sessionId}: the turn lease and its epoch mark are both lost; continuing from the clock so epochs stay increasing`);
      known = Math.max(seen, this.clock.wallNow());
    }
    if (known > 0) this.seenEpochs.set(sessionId, known);
    return known;
  }

  private async readLease(sessionId: string): Promise<{ record: LeaseRecord | undefined; damaged: boolean }> {
    const file = leaseFile(this.root, sessionId);
    let value: unknown;
    try {
      value = await readJson<unknown>(file);
    } catch (error) {
      if (!(error instanceof VigilError && error.code === 'CORRUPT_RECORD')) throw error;
      value = null;
    }
    if (value === undefined) return { record: undefined, damaged: false };
    const parsed = leaseRecordSchema.safeParse(value);
    if (parsed.success) return { record: parsed.data, damaged: false };
    const aside = `${file}.corrupt-${this.clock.wallNow()}`;
    this.logger.error(`The turn lease file ${file} is corrupt; moved it to ${aside} and treating the lease as released (epochs continue from the highest known)`);
    await fs.rename(file, aside).catch((error: unknown) => this.logger.warn(`Could not move ${file} aside: ${(error as Error).message}`));
    return { record: undefined, damaged: true };
  }

  private async readMark(sessionId: string): Promise<{ epoch: number | undefined; damaged: boolean }> {
    const file = leaseEpochFile(this.root, sessionId);
    try {
      const value = await readJson<{ epoch?: unknown }>(file);
      if (value === undefined) return { epoch: undefined, damaged: false };
      if (typeof value?.epoch === 'number' && Number.isSafeInteger(value.epoch) && value.epoch >= 0) return { epoch: value.epoch, damaged: false };
    } catch (error) {
      if (!(error instanceof VigilError && error.code === 'CORRUPT_RECORD')) throw error;
    }
    this.logger.warn(`The epoch mark ${file} is damaged; the lease file alone decides the next epoch`);
    return { epoch: undefined, damaged: true };
  }

  private locked<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    return withFileLock(leaseFile(this.root, sessionId), leaseLockPath(this.root, sessionId), this.logger, fn);
  }
}

function isCurrent(current: LeaseRecord | undefined, token: LeaseToken): boolean {
  return !!current && current.epoch === token.epoch && sameHolder(current.holder, token.holder);
}

export function describeHolder(holder: LeaseHolder): string {
  return `window ${holder.windowId} (pid ${holder.pid} on ${holder.host}, turn ${holder.turnId})`;
}
