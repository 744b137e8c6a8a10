// Reclaim of a dead or lapsed holder: at startup (scan) and when a turn's acquire took over a lease.

import { randomUUID } from 'node:crypto';
import type { Logger } from '../ports/logger';
import type { LeaseHolder } from '../lease/leaseRecord';
import { describeHolder, type LeaseToken, type ReclaimCause, type TurnLeaseStore } from '../lease/turnLease';
import type { SessionStore } from '../store/sessionStore';
import { markInterrupted } from './reclaim';
import { summaries } from '../../../shared/turnWords';

/** What the person reads (the ids of the old holder go to the log, not the notice). */
function reasonFor(previous: LeaseHolder, cause: ReclaimCause, logger: Logger, known?: string): string {
  logger.info(`reclaimed the lease of ${describeHolder(previous)} (${cause})`);
  // Parenthesised: `known ?? a ? b : c` reads as `(known ?? a) ? b : c`, and the known reason was never said.
  return known ?? (cause === 'holder-dead' ? summaries.stoppedWindowClosed : summaries.stoppedWindowLapsed);
}

/**
 * With `reclaimed`, the caller already holds the new lease: just mark. Without, acquire a short
 * recovery lease (it only succeeds for an expired or provably dead holder), mark, release.
 */
export async function recoverSession(
  store: SessionStore,
  lease: TurnLeaseStore,
  sessionId: string,
  windowId: string,
  logger: Logger,
  reclaimed?: { token: LeaseToken; previous: LeaseHolder; cause: ReclaimCause },
  /** Why the turn ended, when something else knows (the agent's relay ended it with no window open). */
  known?: string,
): Promise<boolean> {
  if (reclaimed) {
    return markInterrupted(store, sessionId, reclaimed.previous, reasonFor(reclaimed.previous, reclaimed.cause, logger, known), lease.guard(reclaimed.token), logger);
  }
  const record = await lease.read(sessionId);
  if (!record?.holder) return false;
  const got = await lease.acquire(sessionId, lease.holderFor(windowId, `recovery-${randomUUID()}`));
  if (got.kind !== 'acquired') return false;
  try {
    if (!got.reclaimed) return false;
    return await markInterrupted(store, sessionId, got.reclaimed.previous, reasonFor(got.reclaimed.previous, got.reclaimed.cause, logger, known), lease.guard(got.token), logger);
  } finally {
    await lease.release(got.token);
  }
}
