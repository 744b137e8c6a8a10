// Cross-process turn lease with fencing epochs: acquire, refresh, release, reclaim, fenced writes.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import { VigilError } from '../common/errors';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import { readJson, writeJsonAtomic } from '../store/atomicFile';
import { leaseFile, leaseLockPath } from '../store/storePaths';
import type { WriteGuard } from '../store/transcript';
import { withFileLock } from './fileLock';
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
      const epoch = (current?.epoch ?? 0) + 1;
      const record: LeaseRecord = { version: 1, epoch, holder, acquiredAt: now, expiresAt: now + this.ttlMs, ttlMs: this.ttlMs };
      await writeJsonAtomic(leaseFile(this.root, sessionId), record);
      return { kind: 'acquired', token: { sessionId, epoch, holder }, reclaimed };
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
      const now = this.clock.wallNow();
      const epoch = current.epoch + 1;
      const record: LeaseRecord = { version: 1, epoch, holder, acquiredAt: now, expiresAt: now + this.ttlMs, ttlMs: this.ttlMs };
      await writeJsonAtomic(leaseFile(this.root, sessionId), record);
      return { kind: 'acquired' as const, token: { sessionId, epoch, holder }, reclaimed: { previous: current.holder, cause: 'expired' as const } };
    });
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

  /** Holder-qualified and idempotent: releases only if this token still holds the lease. */
  release(token: LeaseToken): Promise<boolean> {
    return this.locked(token.sessionId, async () => {
      const current = await this.read(token.sessionId);
      if (!isCurrent(current, token)) return false;
      await writeJsonAtomic(leaseFile(this.root, token.sessionId), { ...current!, holder: null, expiresAt: 0 });
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

  /** The lease record; a corrupt file is quarantined, reported, and read as a fresh lease past every epoch. */
  async read(sessionId: string): Promise<LeaseRecord | undefined> {
    const file = leaseFile(this.root, sessionId);
    let value: unknown;
    try {
      value = await readJson<unknown>(file);
    } catch (error) {
      if (!(error instanceof VigilError && error.code === 'CORRUPT_RECORD')) throw error;
      value = null;
    }
    if (value === undefined) return undefined;
    const parsed = leaseRecordSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    const aside = `${file}.corrupt-${this.clock.wallNow()}`;
    this.logger.error(`The turn lease file ${file} is corrupt; moved it to ${aside} and treating the lease as expired`);
    await fs.rename(file, aside).catch((error: unknown) => this.logger.warn(`Could not move ${file} aside: ${(error as Error).message}`));
    // The lost epoch is unknown; wall milliseconds exceed any counted epoch, so fencing still holds.
    return { version: 1, epoch: this.clock.wallNow(), holder: null, acquiredAt: 0, expiresAt: 0, ttlMs: this.ttlMs };
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
