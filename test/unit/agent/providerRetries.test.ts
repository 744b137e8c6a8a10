// Both vendor SDKs in the real agent process against scripted local endpoints: a 429 with Retry-After, a 503
// and a reset connection are retried (each announced to the host first), a 401 and a hard quota are not, and
// a Retry-After longer than the host allows fails at once with a message that says so.

import * as assert from 'node:assert/strict';
import { RequestError } from '@agentclientprotocol/sdk';
import { ScriptedAnthropicServer } from '../../fixtures/models/scriptedAnthropicServer';
import { ScriptedOpenAiServer } from '../../fixtures/models/scriptedOpenAiServer';
import { AgentUnderTest } from './agentHarness';

const retryMethod = '_vigil/provider/retry';

interface Endpoint {
  url: string;
  requests: unknown[];
  reply(...r: unknown[]): unknown;
  close(): Promise<void>;
}

const providers = [
  {
    name: 'openai-compatible',
    start: async () => (await ScriptedOpenAiServer.start()) as unknown as Endpoint,
    config: (url: string) => ({ provider: 'openai-compatible', baseUrl: url, model: 'scripted-model' }),
    text: (t: string) => ({ kind: 'text', chunks: [t] }),
    error: (status: number, message: string, code: string | null = null) => ({ error: { message, type: code ?? 'server_error', param: null, code } }),
  },
  {
    name: 'anthropic',
    start: async () => (await ScriptedAnthropicServer.start()) as unknown as Endpoint,
    config: (url: string) => ({ provider: 'anthropic', baseUrl: url, model: 'claude-test' }),
    text: (t: string) => ({ kind: 'text', chunks: [t] }),
    error: (status: number, message: string) => ({ type: 'error', error: { type: status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error', message } }),
  },
];

for (const p of providers) {
  describe(`model retries with the ${p.name} provider (real SDK, local endpoint)`, function () {
    this.timeout(30_000);
    let server: Endpoint;
    let agent: AgentUnderTest | undefined;

    beforeEach(async () => {
      server = await p.start();
    });
    afterEach(async () => {
      await agent?.stop();
      agent = undefined;
      await server.close();
    });

    const start = async (extra: Record<string, unknown> = {}) => {
      agent = await AgentUnderTest.start({ ...p.config(server.url), retryBaseDelayMs: 5, ...extra }, { apiKey: 'sk-test-key', vigilMethods: ['_vigil/fs/list', retryMethod] });
      return agent;
    };
    const failure = async (a: AgentUnderTest): Promise<RequestError> => {
      try {
        await a.prompt('hi');
      } catch (error) {
        assert.ok(error instanceof RequestError, `expected a JSON-RPC error, got ${String(error)}`);
        return error;
      }
      assert.fail('the prompt should have failed');
    };
    const code = (e: RequestError) => (e.data as { vigil: { code: string } }).vigil.code;

    it('a 429 with Retry-After (seconds) waits, tells the host, and then succeeds', async () => {
      server.reply({ kind: 'status', status: 429, body: p.error(429, 'Rate limit reached'), headers: { 'retry-after': '1' } }, p.text('Hello after the wait.'));
      const a = await start();
      const t0 = Date.now();
      assert.equal((await a.prompt('hi')).stopReason, 'end_turn');
      assert.ok(Date.now() - t0 >= 900, 'the agent waited as Retry-After said');
      assert.equal(a.text(), 'Hello after the wait.');
      assert.equal(server.requests.length, 2);
      assert.deepEqual(a.retries, [{ sessionId: a.sessionId, attempt: 1, maxRetries: 5, delayMs: 1000, reason: 'HTTP 429' }]);
    });

    it('a 503 then success backs off and succeeds', async () => {
      server.reply({ kind: 'status', status: 503, body: p.error(503, 'overloaded') }, p.text('Back.'));
      const a = await start();
      assert.equal((await a.prompt('hi')).stopReason, 'end_turn');
      assert.equal(a.text(), 'Back.');
      assert.deepEqual(a.retries.map((r) => [r.attempt, r.reason]), [[1, 'HTTP 503']]);
    });

    it('a reset connection then success is retried', async () => {
      server.reply({ kind: 'reset' }, p.text('Reconnected.'));
      const a = await start();
      assert.equal((await a.prompt('hi')).stopReason, 'end_turn');
      assert.equal(a.text(), 'Reconnected.');
      assert.equal(a.retries.length, 1);
      assert.match(String(a.retries[0].reason), /^a dropped connection/);
    });

    it('a 401 is not retried and stays PROVIDER_AUTH', async () => {
      server.reply({ kind: 'status', status: 401, body: p.error(401, 'invalid key') }, p.text('never'));
      const a = await start();
      assert.equal(code(await failure(a)), 'PROVIDER_AUTH');
      assert.equal(server.requests.length, 1);
      assert.deepEqual(a.retries, []);
    });

    it('a 429 that persists gives up after 5 retries as a failure, not a quota pause', async () => {
      const limited = { kind: 'status', status: 429, body: p.error(429, 'Rate limit reached'), headers: { 'retry-after-ms': '5' } };
      server.reply(limited, limited, limited, limited, limited, limited, p.text('never'));
      const a = await start();
      const e = await failure(a);
      assert.equal(code(e), 'PROVIDER_FAILED');
      assert.match(e.message, /rate limits \(HTTP 429\).*tried 5 more times and gave up/);
      assert.equal(server.requests.length, 6);
      assert.deepEqual(a.retries.map((r) => r.attempt), [1, 2, 3, 4, 5]);
    });

    it('a Retry-After longer than the host allows fails at once and says why', async () => {
      server.reply({ kind: 'status', status: 429, body: p.error(429, 'Rate limit reached'), headers: { 'retry-after': '600' } }, p.text('never'));
      const a = await start({ retryMaxWaitMs: 120_000 });
      const e = await failure(a);
      assert.equal(code(e), 'PROVIDER_FAILED');
      assert.match(e.message, /asked to wait 600 s before trying again, longer than Vigil waits within a turn \(120 s/);
      assert.equal(server.requests.length, 1);
    });

    it('a client that did not advertise the retry notification still gets the retry, silently', async () => {
      server.reply({ kind: 'status', status: 503, body: p.error(503, 'overloaded') }, p.text('Back.'));
      agent = await AgentUnderTest.start({ ...p.config(server.url), retryBaseDelayMs: 5 }, { apiKey: 'sk-test-key' });
      assert.equal((await agent.prompt('hi')).stopReason, 'end_turn');
      assert.deepEqual(agent.retries, []);
      assert.equal(server.requests.length, 2);
    });
  });
}

describe('a hard quota with the openai-compatible provider', function () {
  this.timeout(30_000);
  it('is PROVIDER_QUOTA and is not retried', async () => {
    const server = await ScriptedOpenAiServer.start();
    const a = await AgentUnderTest.start({ provider: 'openai-compatible', baseUrl: server.url, model: 'm', retryBaseDelayMs: 5 }, { apiKey: 'k', vigilMethods: ['_vigil/fs/list', retryMethod] });
    try {
      server.reply({ kind: 'status', status: 429, body: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } } });
      await assert.rejects(a.prompt('hi'), (e: unknown) => e instanceof RequestError && (e.data as { vigil: { code: string } }).vigil.code === 'PROVIDER_QUOTA');
      assert.equal(server.requests.length, 1);
      assert.deepEqual(a.retries, []);
    } finally {
      await a.stop();
      await server.close();
    }
  });
});
