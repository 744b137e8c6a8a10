// The task server's HTTP port is open to every local process: connections that have not shown a session's token
// are closed at an absolute deadline and bounded in number, so idle or half-sent requests cannot pile up.

import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { SessionSecrets } from '../../../src/extension/core/mcp/sessionSecrets';
import { TaskHttpServer } from '../../../src/extension/core/mcp/taskHttpServer';
import type { TaskToolService } from '../../../src/extension/core/mcp/taskToolService';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { FakeClock } from '../../fakes/fakeClock';

/** A fake clock that says when the server arms a timer: it has taken the connection by then. */
class ArmedClock extends FakeClock {
  private armed: Array<() => void> = [];
  override setTimer(ms: number, fn: () => void) {
    for (const resolve of this.armed.splice(0)) resolve();
    return super.setTimer(ms, fn);
  }
  nextTimer(): Promise<void> {
    return new Promise((resolve) => this.armed.push(resolve));
  }
}

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
