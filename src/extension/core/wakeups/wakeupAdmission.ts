// A turn's admission: a user turn carries the session's pending completions (Rule 4), a wakeup turn its own claim.

import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { AdmissionContribution, AdmissionHook, TurnPort } from '../ports/turns';
import { formatWakeupPrompt } from './wakeupPrompt';
import type { Claim, ClaimOptions, WakeupOutbox } from './wakeupOutbox';

export interface WakeupAdmissionDeps {
  turns: TurnPort;
  outbox: WakeupOutbox;
  clock: Clock;
  logger: Logger;
  /** Whether this window may run the session (its folder is open here). */
  mayDeliver(sessionId: string): boolean | Promise<boolean>;
  /** What a user turn's claim takes, read at each admission. */
  claimOptions(): ClaimOptions;
  /** Bound on what the hook may add to a user turn's start. */
  timeoutMs: number;
  /** The claim this window's own wakeup turn carries while its start is in flight. */
  inflight(sessionId: string): Claim | undefined;
  markDelivered(claim: Claim, via: 'wakeup' | 'carried', turnId: string): Promise<void>;
  /** Asks for a wakeup of the session (a claim that landed too late was given back). */
  retry(sessionId: string): Promise<unknown>;
  /** Work started outside a delivery, which the coordinator's `idle()` waits for. */
  track(work: Promise<unknown>): void;
}

/** docs/background-tasks.md Rule 4 (user turns carry pending completions) and the admission of our own wakeup turns. */
export function wakeupAdmissionHook(d: WakeupAdmissionDeps): AdmissionHook {
  const contribution = (claim: Claim, prefix: string, via: 'wakeup' | 'carried', turnId: string, onNotPersisted: () => unknown): AdmissionContribution => ({
    prefix,
    claimId: claim.claimId,
    persist: (store) => d.outbox.whileHeld(claim, store),
    onPersisted: () => {
      d.track(d.markDelivered(claim, via, turnId).catch((error: unknown) => d.logger.error(`marking ${claim.keys.join(', ')} delivered failed`, error)));
    },
    onNotPersisted: () => {
      onNotPersisted();
    },
  });

  return async ({ sessionId, turnId, source }) => {
    if (source === 'wakeup') {
      const claim = d.inflight(sessionId);
      if (!claim) return undefined;
      return contribution(claim, '', 'wakeup', turnId, () => undefined);
    }
    try {
      // A pause never blocks a user's turn; parked completions wait until it lifts.
      if (await d.turns.isPaused(sessionId)) return undefined;
      // A turn this window should not run (another folder's session) carries nothing away either.
      if (!(await d.mayDeliver(sessionId))) return undefined;
      const pending = d.outbox.claim(sessionId, d.claimOptions());
      const claim = await within(d.clock, d.timeoutMs, pending);
      if (claim === 'timeout') {
        // The claim may still land: give it back and try a wakeup, since the teardown drain may already have passed.
        d.track(
          pending
            .then(async (late) => {
              if (!late) return;
              await d.outbox.release(late, 'timeout');
              await d.retry(sessionId);
            })
            .catch((error: unknown) => d.logger.error('releasing a late admission claim failed', error)),
        );
        d.logger.warn(`the outbox of ${sessionId} was too slow for turn ${turnId}; its completions follow at teardown`);
        return undefined;
      }
      if (!claim) return undefined;
      return contribution(claim, formatWakeupPrompt(claim.completions), 'carried', turnId, () =>
        d.track(d.outbox.release(claim, 'not-persisted').catch((error: unknown) => d.logger.error('releasing a claim failed', error))),
      );
    } catch (error) {
      d.logger.error(`admission hook for ${sessionId} failed; the turn starts without completions`, error);
      return undefined;
    }
  };
}

/** `work`'s value, or 'timeout' once `ms` passed on the clock first. */
function within<T>(clock: Clock, ms: number, work: Promise<T>): Promise<T | 'timeout'> {
  return new Promise((resolve, reject) => {
    const timer = clock.setTimer(ms, () => resolve('timeout'));
    work.then(
      (value) => {
        timer.cancel();
        resolve(value);
      },
      (error: unknown) => {
        timer.cancel();
        reject(error);
      },
    );
  });
}
