// One model call of the agent loop, tried again on transient failures: a request that failed before the model
// sent anything is repeated after the policy's wait, and each retry is announced first (the host shows it and
// counts it as activity). Once content arrived, a failure is final: a retry would repeat what the person saw.

import { setTimeout as delay } from 'node:timers/promises';
import { ProviderError } from './providers/providerError';
import { decideRetry, describeFailure, type RetryPolicy } from './providers/retryPolicy';
import type { ModelEvent } from './providers/types';

export interface RetryNotice {
  attempt: number;
  maxRetries: number;
  delayMs: number;
  /** e.g. `HTTP 429`. */
  reason: string;
}

export interface ModelCallOptions {
  /** Starts one attempt; `call` is aborted when the turn is cancelled (and by the attempt's own timeouts). */
  open(call: AbortController): AsyncIterable<ModelEvent>;
  policy: RetryPolicy;
  /** The turn's signal: a cancel ends a wait at once. */
  signal: AbortSignal;
  /** Told before each wait; awaited, so the host hears of the retry before the silence starts. */
  onRetry(notice: RetryNotice): Promise<void>;
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
  random?(): number;
}

export async function* modelCall(o: ModelCallOptions): AsyncGenerator<ModelEvent> {
  const sleep = o.sleep ?? abortableSleep;
  const random = o.random ?? Math.random;
  for (let retries = 0; ; ) {
    const call = new AbortController();
    const onTurnAbort = () => call.abort(o.signal.reason);
    if (o.signal.aborted) throw abortReason(o.signal);
    o.signal.addEventListener('abort', onTurnAbort, { once: true });
    let sent = false;
    try {
      for await (const event of o.open(call)) {
        sent = true;
        yield event;
      }
      return;
    } catch (error) {
      if (o.signal.aborted || sent || !(error instanceof ProviderError) || !error.facts) throw error;
      const decision = decideRetry(error.facts, retries, o.policy, random);
      if (decision.kind === 'giveUp') {
        if (decision.why === 'exhausted') throw withMessage(error, `${error.message} (Vigil tried ${decision.retries} more times and gave up.)`);
        if (decision.why === 'waitTooLong') {
          throw withMessage(
            error,
            `${error.message} The server asked to wait ${Math.ceil(decision.waitMs / 1000)} s before trying again, longer than Vigil waits within a turn (${Math.ceil(decision.maxWaitMs / 1000)} s, 40 % of vigil.turnLiveness.timeoutSeconds).`,
          );
        }
        throw error;
      }
      retries = decision.attempt;
      await o.onRetry({ attempt: decision.attempt, maxRetries: o.policy.maxRetries, delayMs: decision.delayMs, reason: describeFailure(error.facts) });
      await sleep(decision.delayMs, o.signal);
    } finally {
      o.signal.removeEventListener('abort', onTurnAbort);
    }
  }
}

function withMessage(error: ProviderError, message: string): ProviderError {
  return new ProviderError(error.code, message, error.setting, { cause: error, facts: error.facts });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/** Resolves after `ms`, or rejects with the abort reason as soon as `signal` aborts. */
export async function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    // Node rejects with its own AbortError; the caller wants the turn's reason (e.g. the client's cancel).
    throw signal.aborted ? abortReason(signal) : error;
  }
}
