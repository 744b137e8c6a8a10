// The OpenAI-compatible provider's request without the SDK's client: against a real local server, it goes
// where the client sent it, with the client's headers (environment included), and its stream and errors
// are the SDK's own. Every step waits on an event, never on time.

import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIConnectionError, APIUserAbortError, RateLimitError } from 'openai/core/error';
import { VERSION } from 'openai/version';
import { OpenAiChat } from '../../../src/agent/providers/openaiChat';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

describe('OpenAI-compatible chat request', () => {
  let server: Server;
  let base: string;
  let handler: Handler;
  const body = { model: 'm', stream: true as const, messages: [{ role: 'user' as const, content: 'hi' }] };

  beforeEach(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => handler(req, res, text));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  const sse = (res: ServerResponse, ...chunks: unknown[]) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
    res.end('data: [DONE]\n\n');
  };

  it('POSTs the JSON body to <base>/chat/completions with the client\'s headers and reads the stream through the SDK', async () => {
    let seen: { method?: string; url?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    handler = (req, res, text) => {
      seen = { method: req.method, url: req.url, headers: req.headers, body: text };
      sse(res, { choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] }, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    };
    const chat = new OpenAiChat({ apiKey: 'sk-1', baseUrl: `${base}/` }, { OPENAI_ORG_ID: ' org-1 ', OPENAI_PROJECT_ID: 'p-1', OPENAI_CUSTOM_HEADERS: 'X-Extra: one\nno colon here\n' });
    const stream = await chat.create(body, new AbortController().signal);
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, '/v1/chat/completions');
    assert.deepEqual(JSON.parse(seen.body!), body);
    assert.equal(seen.headers!['authorization'], 'Bearer sk-1');
    assert.equal(seen.headers!['content-type'], 'application/json');
    assert.equal(seen.headers!['accept'], 'application/json');
    assert.equal(seen.headers!['user-agent'], `OpenAI/JS ${VERSION}`);
    assert.equal(seen.headers!['openai-organization'], 'org-1');
    assert.equal(seen.headers!['openai-project'], 'p-1');
    assert.equal(seen.headers!['x-extra'], 'one');
    assert.deepEqual(chunks.map((c) => c.choices[0].finish_reason), [null, 'stop']);
  });

  it('takes OPENAI_BASE_URL when no base URL is set, and refuses a custom header name that is not a token', async () => {
    let url: string | undefined;
    handler = (req, res) => {
      url = req.url;
      sse(res);
    };
    const chat = new OpenAiChat({ apiKey: 'k' }, { OPENAI_BASE_URL: `${base}/proxy` });
    for await (const c of await chat.create(body, new AbortController().signal)) void c;
    assert.equal(url, '/v1/proxy/chat/completions');
    assert.throws(() => new OpenAiChat({ apiKey: 'k' }, { OPENAI_CUSTOM_HEADERS: 'bad name: x' }), /valid HTTP token/);
  });

  it('an HTTP error becomes the SDK\'s error for its status, with its headers and body', async () => {
    handler = (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit', code: 'rate_limited' } }));
    };
    const error = await new OpenAiChat({ apiKey: 'k', baseUrl: base }).create(body, new AbortController().signal).then(
      () => assert.fail('expected a rate-limit error'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'rate_limited');
    assert.equal(error.headers?.get('retry-after'), '7');
    assert.match(error.message, /slow down/);
  });

  it('a refused connection is a connection error carrying the cause; an aborted turn is the user\'s abort', async () => {
    const refused = await new OpenAiChat({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1/v1' }).create(body, new AbortController().signal).catch((e: unknown) => e);
    assert.ok(refused instanceof APIConnectionError);
    assert.match(String((refused.cause as { cause?: unknown }).cause), /ECONNREFUSED/);
    const turn = new AbortController();
    turn.abort(new Error('cancelled'));
    assert.ok((await new OpenAiChat({ apiKey: 'k', baseUrl: base }).create(body, turn.signal).catch((e: unknown) => e)) instanceof APIUserAbortError);
  });
});
