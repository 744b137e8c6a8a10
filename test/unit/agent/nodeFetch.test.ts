// The agent's fetch on node:http, against a real local server: the body streams as it arrives, an abort
// stops it at any point (and closes the socket), resets and refusals keep the codes the retry policy reads,
// and an HTTP error keeps its status, headers and body. Every step waits on an event, never on time.

import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeFetch } from '../../../src/agent/providers/nodeFetch';
import { causeChainText, isTransientConnection } from '../../../src/agent/providers/retryPolicy';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

describe('agent fetch over node:http', () => {
  let server: Server;
  let url: string;
  let handler: Handler;

  beforeEach(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => handler(req, res, body));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  it('sends the method, headers and body, and reads status, headers and JSON', async () => {
    let seen: { method?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    handler = (req, res, body) => {
      seen = { method: req.method, headers: req.headers, body };
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Request-Id': 'req-1' });
      res.end('{"answer":42}');
    };
    const headers = new Map([['Authorization', 'Bearer k'], ['Content-Type', 'application/json']]);
    const response = await nodeFetch(url, { method: 'post', headers: { forEach: (cb: (v: string, n: string) => void) => headers.forEach(cb) }, body: '{"q":"é"}' });
    assert.equal(seen.method, 'POST');
    assert.equal(seen.headers?.authorization, 'Bearer k');
    assert.equal(seen.headers?.['content-length'], String(Buffer.byteLength('{"q":"é"}')));
    assert.equal(seen.body, '{"q":"é"}');
    assert.equal(response.status, 200);
    assert.equal(response.ok, true);
    assert.equal(response.headers.get('x-request-id'), 'req-1');
    assert.equal(response.headers.get('X-REQUEST-ID'), 'req-1');
    assert.ok([...response.headers.entries()].some(([n, v]) => n === 'content-type' && v === 'application/json'));
    assert.deepEqual(await response.json(), { answer: 42 });
    assert.equal(response.bodyUsed, true);
  });

  it('an HTTP error keeps its status, its Retry-After and its body', async () => {
    handler = (_req, res) => {
      res.writeHead(429, { 'Retry-After': '7', 'Content-Type': 'application/json' });
      res.end('{"error":{"message":"slow down"}}');
    };
    const response = await nodeFetch(url, { method: 'POST', body: '{}' });
    assert.equal(response.ok, false);
    assert.equal(response.status, 429);
    assert.equal(response.headers.get('retry-after'), '7');
    assert.equal(response.headers.get('retry-after-ms'), null);
    assert.deepEqual(await response.json(), { error: { message: 'slow down' } });
  });

  it('streams the body chunk by chunk as the server sends it', async () => {
    const more: Array<() => void> = [];
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: one\n\n');
      more.push(() => res.end('data: two\n\n'));
    };
    const response = await nodeFetch(url, { method: 'POST', body: '{}' });
    const reader = response.body.getReader();
    const first = await reader.read();
    assert.equal(new TextDecoder().decode(first.value), 'data: one\n\n', 'the first chunk arrives while the server still holds the rest');
    more.shift()!();
    const second = await reader.read();
    assert.equal(new TextDecoder().decode(second.value), 'data: two\n\n');
    assert.equal((await reader.read()).done, true);
  });

  it('an abort mid-stream errors the body with the abort and closes the connection', async () => {
    let serverSide: IncomingMessage | undefined;
    handler = (req, res) => {
      serverSide = req;
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: one\n\n');
    };
    const controller = new AbortController();
    const response = await nodeFetch(url, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = response.body.getReader();
    await reader.read();
    const closed = once(serverSide!.socket, 'close');
    controller.abort();
    await assert.rejects(reader.read(), (e: Error) => e.name === 'AbortError');
    await closed;
  });

  it('an abort before the response rejects with the abort and closes the connection', async () => {
    const arrived: Array<(req: IncomingMessage) => void> = [];
    handler = (req) => arrived.shift()?.(req);
    const controller = new AbortController();
    const request = new Promise<IncomingMessage>((resolve) => arrived.push(resolve));
    const pending = nodeFetch(url, { method: 'POST', body: '{}', signal: controller.signal });
    const req = await request;
    const closed = once(req.socket, 'close');
    controller.abort(new Error('cancelled by the person'));
    await assert.rejects(pending, /cancelled by the person/);
    await closed;
    const already = new AbortController();
    already.abort();
    await assert.rejects(nodeFetch(url, { signal: already.signal }), (e: Error) => e.name === 'AbortError');
  });

  it('a connection reset before the answer is a fetch failure whose cause reads as a transient reset', async () => {
    handler = (req) => req.socket.destroy();
    const error = await nodeFetch(url, { method: 'POST', body: '{}' }).then(
      () => assert.fail('resolved'),
      (e: unknown) => e as TypeError,
    );
    assert.ok(error instanceof TypeError);
    assert.equal(error.message, 'fetch failed');
    assert.ok(isTransientConnection(causeChainText(error)), causeChainText(error));
  });

  it('a connection dropped mid-body errors the body as a reset (retried), not as a clean end', async () => {
    handler = (req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: one\n\n', () => req.socket.destroy());
    };
    const response = await nodeFetch(url, { method: 'POST', body: '{}' });
    const reader = response.body.getReader();
    const first = await reader.read();
    assert.equal(new TextDecoder().decode(first.value), 'data: one\n\n');
    const error = await reader.read().then(
      () => assert.fail('the body ended cleanly'),
      (e: unknown) => e,
    );
    assert.ok(isTransientConnection(causeChainText(error)), causeChainText(error));
  });

  it('a refused connection keeps ECONNREFUSED (not retried), and other schemes are refused with a clear error', async () => {
    const closedUrl = url;
    server.close();
    await once(server, 'close');
    const error = await nodeFetch(closedUrl).then(
      () => assert.fail('resolved'),
      (e: unknown) => e,
    );
    assert.match(causeChainText(error), /ECONNREFUSED/);
    assert.equal(isTransientConnection(causeChainText(error)), false);
    await assert.rejects(nodeFetch('file:///etc/passwd'), /only http and https/);
    server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
});
