// Model retries seen from the host: the built-in agent's `_vigil/provider/retry` reaches the supervisor as
// activity (so waits longer than the watchdog's bound in total are not a stall) and as a transcript notice,
// and a rate limit that outlasts the retries fails the turn without pausing the session's wakeups.

import * as assert from 'node:assert/strict';
import { builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { retryWaitBoundMs } from '../../../src/shared/providerRetry';
import { ScriptedOpenAiServer } from '../../fixtures/models/scriptedOpenAiServer';
import { ensureAgentBundle } from '../agent/agentBundle';
import { AcpHarness } from './acpHarness';

describe('built-in agent model retries under the supervisor', function () {
  this.timeout(60_000);
  let h: AcpHarness | undefined;
  let server: ScriptedOpenAiServer;
  const timeoutMs = 4_000;

  beforeEach(async () => {
    server = await ScriptedOpenAiServer.start();
  });
  afterEach(async () => {
    await h?.dispose();
    h = undefined;
    await server.close();
  });

  const start = async () => {
    const bundle = await ensureAgentBundle();
    h = await AcpHarness.create({
      settings: { timeoutMs },
      launch: () =>
        builtinLaunch({ agentScript: bundle, execPath: process.execPath, model: { provider: 'openai-compatible', baseUrl: server.url, name: 'm', retryMaxWaitMs: retryWaitBoundMs(timeoutMs) }, apiKey: 'sk-test' }),
    });
    // The agent process starts in a first turn, so the retry turn's silences are the waits alone.
    server.reply({ kind: 'text', chunks: ['ready'] });
    assert.equal((await h.turn('warm up')).reason, 'completed');
    return h;
  };
  const limited = (ms: number) => ({ kind: 'status' as const, status: 429, body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }, headers: { 'retry-after-ms': String(ms) } });

  it('waits that add up past the watchdog bound are activity, shown in the transcript, and the turn completes', async () => {
    const harness = await start();
    // Three waits of 1.5 s: 4.5 s of waiting in a turn whose bound is 4 s; each retry is activity.
    server.reply(limited(1500), limited(1500), limited(1500), { kind: 'text', chunks: ['Done after the waits.'] });
    const ended = await harness.turn('go');
    assert.equal(ended.reason, 'completed', ended.message);
    assert.ok(!harness.events.some((e) => e.type === 'stallObserved'), 'no stall was observed');
    const retries = harness.agentEvents.filter((e) => e.notice);
    assert.deepEqual(retries.map((e) => e.notice), [1, 2, 3].map((k) => `Retrying in 2 s (${k}/5) after HTTP 429.`));
    assert.ok(retries.every((e) => e.waitingOn.kind === 'model' && e.description === `model: retrying in 2 s (${retries.indexOf(e) + 1}/5) after HTTP 429`));
    const { records } = await harness.sup.sessions.readAll('session-1');
    const notices = records.filter((r) => r.type === 'notice').map((r) => (r as { text: string }).text);
    assert.deepEqual(notices, [1, 2, 3].map((k) => `Retrying in 2 s (${k}/5) after HTTP 429.`));
    assert.equal(await harness.sup.isPaused('session-1'), false);
  });

  it('a rate limit that outlasts the retries fails the turn and does not pause wakeups', async () => {
    const harness = await start();
    server.reply(limited(5), limited(5), limited(5), limited(5), limited(5), limited(5));
    const ended = await harness.turn('go');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /rate limits \(HTTP 429\).*gave up/);
    assert.equal(await harness.sup.isPaused('session-1'), false);
  });

  it('a Retry-After longer than 40 % of the watchdog bound fails the turn at once, naming the setting', async () => {
    const harness = await start();
    server.reply(limited(10_000));
    const ended = await harness.turn('go');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /asked to wait 10 s before trying again, longer than Vigil waits within a turn \(2 s, 40 % of vigil\.turnLiveness\.timeoutSeconds\)/);
    assert.ok(!harness.events.some((e) => e.type === 'stallObserved'), 'it failed before any stall');
  });
});
