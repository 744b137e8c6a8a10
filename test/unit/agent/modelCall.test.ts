// A model call with retries: a failure before any content is retried after the policy's wait (announced first,
// with an injected sleep), a failure after content is not, a cancel ends a wait at once.

import * as assert from 'node:assert/strict';
import { modelCall, type RetryNotice } from '../../../src/agent/modelCall';
import { ProviderError, fromHttpStatus } from '../../../src/agent/providers/providerError';
import type { RetryPolicy } from '../../../src/agent/providers/retryPolicy';
import type { ModelEvent } from '../../../src/agent/providers/types';

const policy: RetryPolicy = { maxRetries: 5, baseDelayMs: 1000, maxDelayMs: 30_000, maxWaitMs: 120_000 };
type Step = ProviderError | ModelEvent[] | { events: ModelEvent[]; then: ProviderError };

function run(steps: Step[], o: { signal?: AbortSignal; sleep?: (ms: number, signal: AbortSignal) => Promise<void>; policy?: RetryPolicy } = {}) {
  const log: string[] = [];
  const notices: RetryNotice[] = [];
  let opened = 0;
  const events = modelCall({
    open: () => {
      const step = steps[opened++];
      log.push(`open ${opened}`);
      return (async function* () {
        if (step instanceof ProviderError) throw step;
        const list = Array.isArray(step) ? step : step.events;
        for (const e of list) yield e;
        if (!Array.isArray(step)) throw step.then;
      })();
    },
    policy: o.policy ?? policy,
    signal: o.signal ?? new AbortController().signal,
    onRetry: async (n) => {
      notices.push(n);
      log.push(`retry ${n.attempt}/${n.maxRetries} in ${n.delayMs} after ${n.reason}`);
    },
    sleep: o.sleep ?? (async (ms) => void log.push(`sleep ${ms}`)),
    random: () => 1,
  });
  const collect = async () => {
    const got: ModelEvent[] = [];
    for await (const e of events) got.push(e);
    return got;
  };
  return { log, notices, collect, opened: () => opened };
}

const http = (status: number, retryAfterMs?: number) => fromHttpStatus(status, 'Server', 'no', undefined, { status, retryAfterMs });
const answer: ModelEvent[] = [{ kind: 'text', text: 'hi' }, { kind: 'end', reason: 'stop' }];

describe('model call with retries', () => {
  it('a 429 with Retry-After is announced, waited for, and then succeeds', async () => {
    const r = run([http(429, 8000), answer]);
    assert.deepEqual(await r.collect(), answer);
    assert.deepEqual(r.log, ['open 1', 'retry 1/5 in 8000 after HTTP 429', 'sleep 8000', 'open 2']);
  });

  it('a 503 and a reset connection back off and succeed', async () => {
    const reset = new ProviderError('PROVIDER_FAILED', 'dropped', undefined, { facts: { connection: 'fetch failed ECONNRESET' } });
    const r = run([http(503), reset, answer]);
    assert.deepEqual(await r.collect(), answer);
    assert.deepEqual(r.log, ['open 1', 'retry 1/5 in 1000 after HTTP 503', 'sleep 1000', 'open 2', 'retry 2/5 in 2000 after a dropped connection (ECONNRESET)', 'sleep 2000', 'open 3']);
  });

  it('a 401 or a hard quota fails at once, unchanged', async () => {
    for (const error of [http(401), fromHttpStatus(429, 'Server', 'quota', undefined, { status: 429, hardQuota: true })]) {
      const r = run([error, answer]);
      await assert.rejects(r.collect(), (e: unknown) => e === error);
      assert.equal(r.opened(), 1);
      assert.deepEqual(r.notices, []);
    }
  });

  it('after the last retry the error says how many were made, and a 429 is not a quota failure', async () => {
    const r = run([http(429), http(429), http(429), http(429), http(429), http(429), answer]);
    await assert.rejects(r.collect(), (e: unknown) => e instanceof ProviderError && e.code === 'PROVIDER_FAILED' && /rate limits \(HTTP 429\).*tried 5 more times and gave up/.test(e.message));
    assert.equal(r.opened(), 6);
    assert.deepEqual(r.notices.map((n) => n.attempt), [1, 2, 3, 4, 5]);
  });

  it('a Retry-After longer than the host allows fails clearly without waiting', async () => {
    const r = run([http(429, 600_000), answer]);
    await assert.rejects(r.collect(), /asked to wait 600 s before trying again, longer than Vigil waits within a turn \(120 s/);
    assert.deepEqual(r.log, ['open 1']);
  });

  it('a failure after content arrived is not retried', async () => {
    const r = run([{ events: [{ kind: 'text', text: 'par' }], then: http(503) }, answer]);
    await assert.rejects(r.collect(), /HTTP 503/);
    assert.equal(r.opened(), 1);
  });

  it('a cancel during the wait ends the call at once with the cancel reason', async () => {
    const turn = new AbortController();
    let waiting!: () => void;
    const inWait = new Promise<void>((resolve) => (waiting = resolve));
    const r = run([http(429, 60_000), answer], {
      signal: turn.signal,
      sleep: (_ms, signal) => {
        waiting();
        return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      },
    });
    const done = r.collect();
    await inWait;
    turn.abort(new Error('cancelled by the client'));
    await assert.rejects(done, /cancelled by the client/);
    assert.equal(r.opened(), 1);
  });
});
