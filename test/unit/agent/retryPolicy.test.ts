// The model-retry policy: which failures are retried, how long each wait is (Retry-After as seconds, as an
// HTTP-date or in ms; else exponential backoff with jitter, capped), and when it gives up.

import * as assert from 'node:assert/strict';
import { decideRetry, describeFailure, isTransient, parseRetryAfter, type RetryPolicy } from '../../../src/agent/providers/retryPolicy';
import { retryNoticeText, retryWaitBoundMs } from '../../../src/shared/providerRetry';

const policy: RetryPolicy = { maxRetries: 5, baseDelayMs: 1000, maxDelayMs: 30_000, maxWaitMs: 120_000 };
const headers = (h: Record<string, string>) => (name: string) => h[name];
const now = Date.UTC(2026, 11, 1, 12, 0, 0);

describe('model retry policy', () => {
  it('retries rate limits, timeouts, conflicts, 5xx and dropped connections', () => {
    for (const status of [408, 409, 429, 500, 502, 503, 504, 529]) assert.equal(isTransient({ status }), true, `HTTP ${status}`);
    for (const connection of ['ECONNRESET', 'read ETIMEDOUT', 'socket hang up', 'terminated other side closed UND_ERR_SOCKET']) assert.equal(isTransient({ connection }), true, connection);
  });

  it('never retries credentials, hard quota, bad requests or a refused connection', () => {
    for (const status of [400, 401, 403, 404, 422]) assert.equal(isTransient({ status }), false, `HTTP ${status}`);
    assert.equal(isTransient({ status: 429, hardQuota: true }), false);
    assert.equal(isTransient({ connection: 'connect ECONNREFUSED 127.0.0.1:9' }), false);
    assert.equal(isTransient({}), false);
    assert.deepEqual(decideRetry({ status: 401 }, 0, policy, () => 0.5), { kind: 'giveUp', why: 'permanent' });
  });

  it('waits as Retry-After says, in seconds, as an HTTP-date, or in ms', () => {
    assert.equal(parseRetryAfter(headers({ 'retry-after': '8' }), now), 8000);
    assert.equal(parseRetryAfter(headers({ 'retry-after': '1.5' }), now), 1500);
    assert.equal(parseRetryAfter(headers({ 'retry-after': new Date(now + 20_000).toUTCString() }), now), 20_000);
    assert.equal(parseRetryAfter(headers({ 'retry-after': new Date(now - 20_000).toUTCString() }), now), 0, 'a date in the past: at once');
    assert.equal(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now), 250, 'ms wins');
    assert.deepEqual(decideRetry({ status: 429, retryAfterMs: 8000 }, 1, policy, () => 0), { kind: 'retry', delayMs: 8000, attempt: 2 });
  });

  it('ignores malformed or hostile Retry-After values (the backoff applies)', () => {
    for (const value of ['', 'soon', '-5', '1e9999', 'Tue, 99 Foo 2026 99:99:99 GMT', '12 ; drop', 'x'.repeat(10_000)]) {
      assert.equal(parseRetryAfter(headers({ 'retry-after': value }), now), undefined, JSON.stringify(value.slice(0, 20)));
    }
    assert.equal(parseRetryAfter(headers({}), now), undefined);
    assert.ok(parseRetryAfter(headers({ 'retry-after': '99999999999' }), now)! <= 7 * 24 * 3600 * 1000, 'huge values are capped');
  });

  it('backs off exponentially with jitter in [half, all], capped by maxDelayMs and maxWaitMs', () => {
    const delays = (random: number) => [1, 2, 3, 4, 5].map((k) => (decideRetry({ status: 503 }, k - 1, policy, () => random) as { delayMs: number }).delayMs);
    assert.deepEqual(delays(0.999999), [1000, 2000, 4000, 8000, 16_000]);
    assert.deepEqual(delays(0), [500, 1000, 2000, 4000, 8000]);
    const capped = decideRetry({ status: 503 }, 9, { ...policy, maxRetries: 20 }, () => 1) as { delayMs: number };
    assert.equal(capped.delayMs, 30_000);
    const bound = decideRetry({ status: 503 }, 9, { ...policy, maxRetries: 20, maxWaitMs: 5000 }, () => 1) as { delayMs: number };
    assert.equal(bound.delayMs, 5000);
  });

  it('gives up after maxRetries, and at once on a Retry-After longer than the host allows', () => {
    assert.deepEqual(decideRetry({ status: 503 }, 5, policy, () => 0.5), { kind: 'giveUp', why: 'exhausted', retries: 5 });
    assert.deepEqual(decideRetry({ status: 429, retryAfterMs: 600_000 }, 0, policy, () => 0.5), { kind: 'giveUp', why: 'waitTooLong', waitMs: 600_000, maxWaitMs: 120_000 });
  });

  it('says what failed and how long it waits, in one plain line', () => {
    assert.equal(describeFailure({ status: 429 }), 'HTTP 429');
    assert.equal(describeFailure({ connection: 'fetch failed read ECONNRESET' }), 'a dropped connection (ECONNRESET)');
    assert.equal(retryNoticeText({ attempt: 2, maxRetries: 5, delayMs: 7200, reason: 'HTTP 429' }), 'Retrying in 8 s (2/5) after HTTP 429.');
    assert.equal(retryNoticeText({ attempt: 1, maxRetries: 5, delayMs: 10, reason: 'HTTP\n\u0007503\u2028' }), 'Retrying in 1 s (1/5) after HTTP 503.');
  });

  it('bounds a wait by the watchdog: 40 % of its timeout, or a fixed cap when it is off', () => {
    assert.equal(retryWaitBoundMs(300_000), 120_000);
    assert.equal(retryWaitBoundMs(10_000), 4000);
    assert.equal(retryWaitBoundMs(0), 300_000);
    assert.equal(retryWaitBoundMs(undefined), 300_000);
    assert.equal(retryWaitBoundMs(Number.NaN), 300_000);
    assert.equal(retryWaitBoundMs(100), 1000);
  });
});
