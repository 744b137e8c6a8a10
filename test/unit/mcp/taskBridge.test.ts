// The task bridge's socket: only a client holding the session's secret gets in, and it sees only its session;
// connections still to authenticate are bounded in time (absolutely) and in number.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { BridgeClient } from '../../../src/taskServer/bridgeClient';
import { SessionSecrets } from '../../../src/extension/core/mcp/sessionSecrets';
import { TaskBridgeServer } from '../../../src/extension/core/mcp/taskBridgeServer';
import type { TaskToolService } from '../../../src/extension/core/mcp/taskToolService';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { ArmedClock } from '../../fakes/fakeClock';
import { tempStorageRoot } from '../../fakes/wakeupHarness';
import { openTaskServer, RawBridge, taskIdIn, type OpenedTaskServer } from '../../fakes/taskServerHarness';

describe('task bridge socket', function () {
  this.timeout(30_000);
  let root: string;
  let ts: OpenedTaskServer;
  const raws: RawBridge[] = [];

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-bridge-');
    ts = await openTaskServer(root);
  });

  afterEach(async () => {
    for (const raw of raws.splice(0)) raw.destroy();
    for (const t of ts.tasks.registry.list()) if (t.status === 'running') await ts.tasks.registry.kill(t.id);
    await ts.close();
    await fs.rm(root, { recursive: true, force: true, maxRetries: 10 });
  });

  function raw(): RawBridge {
    const r = new RawBridge(ts.server.socketPath);
    raws.push(r);
    return r;
  }

  async function refused(hello: unknown): Promise<RawBridge> {
    const r = raw();
    r.send(hello);
    await r.until(() => r.closed);
    return r;
  }

  it('lives in a private folder (0700) and is gone after close', async () => {
    const dir = path.dirname(ts.server.socketPath);
    assert.equal((await fs.stat(dir)).mode & 0o777, 0o700);
    assert.ok((await fs.lstat(ts.server.socketPath)).isSocket());
  });

  it('a wrong secret is refused and the connection closed', async () => {
    const r = await refused({ t: 'hello', session: 's1', secret: 'not-the-secret' });
    assert.equal((r.replies[0] as { t: string }).t, 'denied');
    assert.equal(r.replies.length, 1);
  });

  it('a missing secret, or a call before the hello, is refused', async () => {
    for (const first of [{ t: 'hello', session: 's1' }, { t: 'call', id: 1, tool: 'list_background', args: {} }, 'not json\n']) {
      const r = await refused(first);
      assert.ok(r.replies.every((m) => (m as { t: string }).t === 'denied'), JSON.stringify(r.replies));
    }
  });

  it("another session's secret does not open this session", async () => {
    const r = await refused({ t: 'hello', session: 's1', secret: ts.identity.secrets.secretFor('s2') });
    assert.equal((r.replies[0] as { t: string }).t, 'denied');
  });

  it('an over-long first line closes the connection', async () => {
    const r = raw();
    r.send(`{"t":"hello","session":"s1","secret":"${'x'.repeat(1_100_000)}`);
    await r.until(() => r.closed);
    assert.deepEqual(r.replies, []);
  });

  it('never logs a secret, neither the right one nor a wrong one', async () => {
    const right = ts.identity.secrets.secretFor('s1');
    const ok = raw();
    ok.send({ t: 'hello', session: 's1', secret: right });
    await ok.until(() => ok.replies.length > 0);
    await refused({ t: 'hello', session: 's1', secret: 'wrong-secret-value' });
    assert.ok(ts.logged.some((l) => l.text.includes('refused a connection for session s1')));
    for (const line of ts.logged) {
      assert.ok(!line.text.includes(right) && !line.text.includes('wrong-secret-value'), line.text);
    }
  });

  it('an authenticated connection is scoped to its session: another session\'s task is "no task"', async () => {
    const other = new BridgeClient({ socketPath: ts.server.socketPath, sessionId: 's2', secret: ts.identity.secrets.secretFor('s2') });
    const mine = new BridgeClient({ socketPath: ts.server.socketPath, sessionId: 's1', secret: ts.identity.secrets.secretFor('s1') });
    try {
      const started = await other.call('start_background_command', { command: 'echo theirs' });
      const id = taskIdIn(started.text);
      for (const tool of ['background_status', 'background_output', 'kill_background']) {
        const r = await mine.call(tool, { id });
        assert.equal(r.isError, true, tool);
        assert.match(r.text, new RegExp(`no task ${id} in this session`));
      }
      assert.equal((await mine.call('list_background', {})).text, 'This session has no background commands.');
      assert.match((await other.call('list_background', {})).text, new RegExp(id));
    } finally {
      mine.close();
      other.close();
    }
  });

  it('a client with a wrong secret reports the refusal instead of retrying', async () => {
    const client = new BridgeClient({ socketPath: ts.server.socketPath, sessionId: 's1', secret: 'stale' });
    const r = await client.call('list_background', {});
    assert.equal(r.isError, true);
    assert.match(r.text, /secret does not match/);
    client.close();
  });
});

describe('task bridge: connections still to authenticate', function () {
  this.timeout(30_000);
  let root: string;
  let bridge: TaskBridgeServer;
  let clock: ArmedClock;
  const secrets = SessionSecrets.generate();
  const raws: RawBridge[] = [];


  beforeEach(async () => {
    root = await tempStorageRoot('vigil-pending-');
    clock = new ArmedClock();
    const service = { call: async () => ({ text: 'ok' }) } as unknown as TaskToolService;
    bridge = await TaskBridgeServer.listen({ socketPath: path.join(root, 's.sock'), secrets, service, logger: silentLogger, clock, helloTimeoutMs: 60_000, maxPending: 2 });
  });

  afterEach(async () => {
    for (const raw of raws.splice(0)) raw.destroy();
    await bridge.close();
    await fs.rm(root, { recursive: true, force: true, maxRetries: 10 });
  });

  async function connect(): Promise<RawBridge> {
    const armed = clock.nextTimer();
    const r = new RawBridge(bridge.socketPath);
    raws.push(r);
    await armed;
    return r;
  }

  const hello = (session: string) => ({ t: 'hello', session, secret: secrets.secretFor(session) });

  it('the hello deadline is absolute: bytes trickling in do not extend it', async () => {
    const r = await connect();
    r.send('{"t":');
    await clock.advance(40_000);
    r.send('"hel');
    await clock.advance(20_000);
    await r.until(() => r.closed);
    assert.deepEqual(r.replies, []);
  });

  it('an authenticated connection outlives the deadline', async () => {
    const r = await connect();
    r.send(hello('s1'));
    await r.until(() => r.replies.length > 0);
    await clock.advance(120_000);
    r.send({ t: 'call', id: 1, tool: 'list_background', args: {} });
    await r.until(() => r.replies.length > 1);
    assert.deepEqual(r.replies[1], { t: 'result', id: 1, result: { text: 'ok' } });
  });

  it('beyond the bound of pending connections the oldest is closed; the newer ones still authenticate', async () => {
    const oldest = await connect();
    const middle = await connect();
    const newest = await connect();
    await oldest.until(() => oldest.closed);
    for (const [r, session] of [[middle, 's1'], [newest, 's2']] as const) {
      r.send(hello(session));
      await r.until(() => r.replies.length > 0 || r.closed);
      assert.deepEqual(r.replies, [{ t: 'welcome' }]);
    }
    // Authenticated connections are not pending: more may come.
    const later = await connect();
    later.send(hello('s3'));
    await later.until(() => later.replies.length > 0 || later.closed);
    assert.deepEqual(later.replies, [{ t: 'welcome' }]);
  });
});
