// Acquiring a session's lease for a turn: wakeups report busy at once, user turns wait (abortable) with notices.

import type { Clock } from '../ports/clock';
import type { AcquireResult, TurnLeaseStore } from '../lease/turnLease';
import type { LeaseHolder } from '../lease/leaseRecord';

export interface BusyWaitOptions {
  /** How often a waiting acquire retries. */
  retryMs: number;
  /** How often the "busy in another window" notice repeats after the first miss. */
  noticeEveryMs: number;
  /** After this long the wait fails with a retryable "session busy". */
  maxWaitMs: number;
}

export const DEFAULT_BUSY_WAIT: BusyWaitOptions = { retryMs: 500, noticeEveryMs: 10_000, maxWaitMs: 120_000 };

export type WaitResult = AcquireResult | { kind: 'aborted' } | { kind: 'timedOut'; waitedMs: number };

export async function acquireForTurn(args: {
  lease: TurnLeaseStore;
  clock: Clock;
  sessionId: string;
  holder: LeaseHolder;
  wait: boolean;
  signal: AbortSignal;
  options: BusyWaitOptions;
  notice(message: string, waitedMs: number): void;
}): Promise<WaitResult> {
  const { lease, clock, sessionId, holder, signal, options } = args;
  const start = clock.now();
  let lastNotice: number | undefined;
  for (;;) {
    if (signal.aborted) return { kind: 'aborted' };
    const result = await lease.acquire(sessionId, holder);
    if (result.kind === 'acquired') {
      if (!signal.aborted) return result;
      await lease.release(result.token);
      return { kind: 'aborted' };
    }
    if (!args.wait) return result;
    const waited = clock.now() - start;
    if (waited >= options.maxWaitMs) return { kind: 'timedOut', waitedMs: waited };
    if (lastNotice === undefined || clock.now() - lastNotice >= options.noticeEveryMs) {
      lastNotice = clock.now();
      const secs = Math.round(waited / 1000);
      args.notice(`This session is busy in another window; waiting for its turn to finish${secs > 0 ? ` (${secs} s so far)` : ''}…`, waited);
    }
    await delay(clock, Math.min(options.retryMs, options.maxWaitMs - waited), signal);
  }
}

/** A clock timer that also ends early when `signal` aborts, so an aborted wait returns at once. */
function delay(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = clock.setTimer(ms, done);
    signal.addEventListener('abort', done, { once: true });
    if (signal.aborted) done();
    function done() {
      timer.cancel();
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
