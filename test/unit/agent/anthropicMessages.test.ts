// The Anthropic provider's request without the SDK's client: against the scripted Messages server on
// 127.0.0.1, it sends what the client sent (URL, headers, environment included, and body) less the client's
// telemetry headers, and its stream and errors are the SDK's own. Every step waits on an event, never on time.

import { strict as assert } from 'node:assert';
import type { IncomingHttpHeaders } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { APIConnectionError, APIUserAbortError, RateLimitError } from '@anthropic-ai/sdk/core/error';
import { VERSION } from '@anthropic-ai/sdk/version';
import { AnthropicMessages, anthropicVersion, type AnthropicMessagesBody } from '../../../src/agent/providers/anthropicMessages';
import { nodeFetch } from '../../../src/agent/providers/nodeFetch';
import { ScriptedAnthropicServer } from '../../fixtures/models/scriptedAnthropicServer';

describe('Anthropic Messages request', () => {
  let server: ScriptedAnthropicServer;
  const body: AnthropicMessagesBody = {
    model: 'claude-test',
    max_tokens: 64,
    system: 'Be brief.',
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
    tools: [{ name: 'read_file', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
  };
  const live = () => new AbortController().signal;
  const drain = async <T>(stream: AsyncIterable<T>): Promise<T[]> => {
    const out: T[] = [];
    for await (const item of stream) out.push(item);
    return out;
  };
  /** The request as the SDK's client sends it, with `env` in process.env while the client is made (it reads it then). */
  const sentByClient = async (baseURL: string, env: Record<string, string> = {}) => {
    Object.assign(process.env, env);
    let client: Anthropic;
    try {
      client = new Anthropic({ apiKey: 'sk-ant-1', baseURL, maxRetries: 0, fetch: nodeFetch as unknown as typeof fetch });
    } finally {
      for (const name of Object.keys(env)) delete process.env[name];
    }
    await drain(await client.messages.create(body));
    return server.requests[server.requests.length - 1];
  };
  const withoutTelemetry = (headers: IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith('x-stainless-')));

  beforeEach(async () => {
    server = await ScriptedAnthropicServer.start();
  });
  afterEach(() => server.close());

  it("sends what the SDK's client sends, less its x-stainless-* headers, and reads the stream through the SDK", async () => {
    server.reply({ kind: 'text', chunks: ['Hel', 'lo'] }, { kind: 'text', chunks: ['Hel', 'lo'] });
    const theirs = await sentByClient(`${server.url}/`);
    assert.ok(Object.keys(theirs.headers).some((name) => name.startsWith('x-stainless-')), 'the client sends telemetry headers (else this test compares nothing)');
    const events = await drain(await new AnthropicMessages({ apiKey: 'sk-ant-1', baseUrl: `${server.url}/` }, {}).create(body, live()));
    const ours = server.requests[1];
    assert.equal(ours.path, '/v1/messages');
    assert.equal(ours.path, theirs.path);
    assert.deepEqual(withoutTelemetry(ours.headers), withoutTelemetry(theirs.headers));
    assert.deepEqual({ ...ours, headers: undefined }, { ...theirs, headers: undefined });
    assert.equal(ours.headers['authorization'], 'Bearer sk-ant-1');
    assert.equal(ours.headers['anthropic-version'], anthropicVersion);
    assert.equal(ours.headers['user-agent'], `Anthropic/JS ${VERSION}`);
    assert.equal(ours.headers['content-type'], 'application/json');
    assert.equal(ours.headers['accept'], 'application/json');
    assert.deepEqual(
      events.map((e) => (e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? e.delta.text : e.type)),
      ['message_start', 'content_block_start', 'Hel', 'lo', 'content_block_stop', 'message_delta', 'message_stop'],
    );
  });

  it('takes ANTHROPIC_CUSTOM_HEADERS as the client does (over its defaults, under the body type), and refuses a name that is not a token', async () => {
    const env = { ANTHROPIC_CUSTOM_HEADERS: 'X-Extra: one\nno colon here\nUser-Agent: proxy-agent\ncontent-type: text/plain' };
    server.reply({ kind: 'text', chunks: ['a'] }, { kind: 'text', chunks: ['a'] });
    const theirs = await sentByClient(server.url, env);
    await drain(await new AnthropicMessages({ apiKey: 'sk-ant-1', baseUrl: server.url }, env).create(body, live()));
    const ours = server.requests[1];
    assert.deepEqual(withoutTelemetry(ours.headers), withoutTelemetry(theirs.headers));
    assert.equal(ours.headers['x-extra'], 'one');
    assert.equal(ours.headers['user-agent'], 'proxy-agent');
    assert.equal(ours.headers['content-type'], 'application/json');
    assert.throws(() => new AnthropicMessages({ apiKey: 'k' }, { ANTHROPIC_CUSTOM_HEADERS: 'bad name: x' }), /valid HTTP token/);
  });

  it('goes to the base URL, else ANTHROPIC_BASE_URL, else api.anthropic.com, under /v1/messages', () => {
    const url = (baseUrl: string | undefined, env: NodeJS.ProcessEnv = {}) => new AnthropicMessages({ apiKey: 'k', baseUrl }, env).url;
    assert.equal(url('http://127.0.0.1:9/proxy'), 'http://127.0.0.1:9/proxy/v1/messages');
    assert.equal(url('http://127.0.0.1:9/proxy/'), 'http://127.0.0.1:9/proxy/v1/messages');
    assert.equal(url(undefined, { ANTHROPIC_BASE_URL: ' http://127.0.0.1:9/env ' }), 'http://127.0.0.1:9/env/v1/messages');
    assert.equal(url(undefined), 'https://api.anthropic.com/v1/messages');
    // As the client: an empty base URL means the default, not the environment.
    assert.equal(url('', { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/env' }), 'https://api.anthropic.com/v1/messages');
    // An invalid one fails the request, not the construction.
    assert.throws(() => url('not a url'), TypeError);
  });

  it("an HTTP 429 becomes the SDK's rate-limit error, with its body and the Retry-After header", async () => {
    server.reply({ kind: 'status', status: 429, body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, headers: { 'retry-after': '7', 'request-id': 'req_1' } });
    const error = await new AnthropicMessages({ apiKey: 'k', baseUrl: server.url }, {}).create(body, live()).then(
      () => assert.fail('expected a rate-limit error'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof RateLimitError);
    assert.ok(error instanceof Anthropic.APIError, 'the class the provider checks');
    assert.equal(error.status, 429);
    assert.equal(error.type, 'rate_limit_error');
    assert.equal(error.requestID, 'req_1');
    assert.equal(error.headers?.get('retry-after'), '7');
    assert.match(error.message, /^429 .*slow down/);
  });

  it("a refused connection is a connection error carrying the cause; an aborted turn is the user's abort, before or during the stream", async () => {
    const refused = await new AnthropicMessages({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1' }, {}).create(body, live()).catch((e: unknown) => e);
    assert.ok(refused instanceof APIConnectionError);
    assert.ok(refused instanceof Anthropic.APIConnectionError, 'the class the provider checks');
    assert.match(String((refused.cause as { cause?: unknown }).cause), /ECONNREFUSED/);

    const before = new AbortController();
    before.abort(new Error('cancelled'));
    assert.ok((await new AnthropicMessages({ apiKey: 'k', baseUrl: server.url }, {}).create(body, before.signal).catch((e: unknown) => e)) instanceof APIUserAbortError);
    assert.equal(server.requests.length, 0, 'nothing was sent');

    // Mid-stream the turn's signal ends the SDK's stream, which stops reading (as with the client).
    server.reply({ kind: 'hang', afterChunks: ['partial'] });
    const during = new AbortController();
    const seen: string[] = [];
    for await (const event of await new AnthropicMessages({ apiKey: 'k', baseUrl: server.url }, {}).create(body, during.signal)) {
      seen.push(event.type);
      if (event.type === 'content_block_delta') during.abort(new Error('cancelled'));
    }
    assert.deepEqual(seen, ['message_start', 'content_block_start', 'content_block_delta']);
  });
});
