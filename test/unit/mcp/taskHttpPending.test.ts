// The task server's HTTP port is open to every local process: connections that have not shown a session's token
// are closed at an absolute deadline and bounded in number, so idle or half-sent requests cannot pile up.

import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { SessionSecrets } from '../../../src/extension/core/mcp/sessionSecrets';
import { TaskHttpServer } from '../../../src/extension/core/mcp/taskHttpServer';
import type { TaskToolService } from '../../../src/extension/core/mcp/taskToolService';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { ArmedClock } from '../../fakes/fakeClock';


interface Raw {
  socket: net.Socket;
  closed: Promise<void>;
  isClosed(): boolean;
  received: () => string;
}

describe('task server over HTTP: connections without a token', function () {
  this.timeout(30_000);
  const secrets = SessionSecrets.generate();
  let server: TaskHttpServer;
  let clock: ArmedClock;
  const raws: Raw[] = [];

  beforeEach(async () => {
    clock = new ArmedClock();
    const service = { call: async () => ({ text: 'ok' }) } as unknown as TaskToolService;
    server = await TaskHttpServer.listen({ secrets, service, logger: silentLogger, clock, helloTimeoutMs: 60_000, maxPending: 2 });
  });

  afterEach(async () => {
    for (const r of raws.splice(0)) r.socket.destroy();
    await server.close();
  });

  async function connect(): Promise<Raw> {
    const armed = clock.nextTimer();
    const socket = net.connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    let text = '';
    let closed = false;
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const r: Raw = { socket, closed: new Promise((resolve) => socket.once('close', () => resolve())), isClosed: () => closed, received: () => text };
    void r.closed.then(() => (closed = true));
    raws.push(r);
    await armed;
    return r;
  }

  function request(session: string, token: string): string {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    return [
      `POST ${server.urlFor(session).replace(/^http:\/\/[^/]+/, '')} HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${token}`,
      'Content-Type: application/json', 'Accept: application/json, text/event-stream', `Content-Length: ${Buffer.byteLength(body)}`, '', body,
    ].join('\r\n');
  }

  it('one that sends nothing, or half a request, is closed at the deadline', async () => {
    const idle = await connect();
    const half = await connect();
    half.socket.write('POST /mcp/s1 HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await clock.advance(40_000);
    half.socket.write('X-Trickle: 1\r\n');
    await clock.advance(20_000);
    await Promise.all([idle.closed, half.closed]);
    assert.equal(idle.received(), '');
  });

  it('beyond the bound the oldest is closed; a request with the token still gets through and then outlives the deadline', async () => {
    const oldest = await connect();
    const middle = await connect();
    const newest = await connect();
    await oldest.closed;
    assert.equal(middle.isClosed(), false);
    newest.socket.write(request('s1', secrets.secretFor('s1')));
    while (!/\r\n\r\n\{.*\}/s.test(newest.received())) await new Promise<void>((resolve) => newest.socket.once('data', () => resolve()));
    assert.match(newest.received(), /^HTTP\/1\.1 200 /);
    await clock.advance(120_000);
    await middle.closed;
    assert.equal(newest.isClosed(), false, 'an admitted connection is not pending');
  });
});

describe('task server over HTTP: requests of one session at once', function () {
  this.timeout(30_000);
  const secrets = SessionSecrets.generate();
  let server: TaskHttpServer;
  const waiting: Array<() => void> = [];
  let calls = 0;

  beforeEach(async () => {
    calls = 0;
    // Each call holds its request open until released, like one waiting for the person's approval.
    const service = { call: () => new Promise((resolve) => ((calls += 1), waiting.push(() => resolve({ text: 'ok' })))) } as unknown as TaskToolService;
    server = await TaskHttpServer.listen({ secrets, service, logger: silentLogger, maxInFlight: 2 });
  });

  afterEach(async () => {
    for (const release of waiting.splice(0)) release();
    await server.close();
  });

  const call = (session: string) =>
    fetch(server.urlFor(session), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${secrets.secretFor(session)}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_background', arguments: {} } }),
    });

  it('beyond the bound a request is refused with what to do; another session, and a later request, still get through', async () => {
    const open = [call('s1'), call('s1')];
    while (calls < 2) await new Promise<void>((resolve) => setImmediate(resolve));
    const refused = await call('s1');
    assert.equal(refused.status, 429);
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /Too many calls at once \(at most 2\); wait for one to finish/);
    const other = call('s2');
    while (calls < 3) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const release of waiting.splice(0)) release();
    for (const response of await Promise.all([...open, other])) assert.equal(response.status, 200);
    const later = call('s1');
    while (calls < 4) await new Promise<void>((resolve) => setImmediate(resolve));
    waiting.splice(0).forEach((release) => release());
    assert.equal((await later).status, 200);
  });
});
