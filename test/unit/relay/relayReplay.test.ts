// What the relay costs a live agent, in what it does rather than in figures (those are in bench/relay.bench.ts):
// the agent's environment is its own although the relay's is not, and a replay leaves the log on disk, not in
// the relay, until the window acknowledged it.

import assert from 'node:assert/strict';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { relayFileNames } from '../../../src/extension/core/relay/relayProtocol';
import { relayMallocEnv } from '../../../src/extension/core/relay/relayStart';
import { fakeSpec, openSession, RawClient, startWorld, stopWorld, until, type World } from './relayWorld';

function environ(pid: number): Record<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter((p) => p);
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

describe('agent relay: its own cost', function () {
  this.timeout(30_000);
  let world: World | undefined;
  afterEach(async () => {
    if (world) await stopWorld(world);
    world = undefined;
  });

  it("runs with glibc's malloc settings of its own, and starts the agent with exactly the environment it was given", async function () {
    if (process.platform !== 'linux') this.skip();
    const spec = fakeSpec();
    // The agent's own value of one of them is put back, the other (not set) stays unset.
    const given: Record<string, string> = { ...(spec.env as Record<string, string>), MALLOC_TRIM_THRESHOLD_: '4096' };
    delete given.MALLOC_MMAP_THRESHOLD_;
    delete given.ELECTRON_RUN_AS_NODE;
    world = await startWorld({}, [], { ...spec, env: given });
    const relay = environ(world.relayPid);
    for (const [name, value] of Object.entries(relayMallocEnv)) assert.equal(relay[name], value, name);
    assert.deepEqual(environ(world.agentPid), given);
  });

  it('keeps the replayed log on disk until the window acknowledges it; a window that acknowledged half of it and went: the next is given the other half, once', async () => {
    world = await startWorld();
    const a = await RawClient.connect(world.place);
    const sessionId = await openSession(a, world.root);
    a.ackAll();
    a.request(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'permission-then-stream 2000' }] });
    const asked = await a.next((f) => f.t === 'm' && f.m?.method === 'session/request_permission', 'the permission request');
    a.ackAll();
    // The window answers and goes in one write: the 2,000 chunks (~300 KB, several pieces of the replay) go to the log.
    a.socket.write(`${JSON.stringify({ t: 'm', m: { jsonrpc: '2.0', id: asked.m.id, result: { outcome: { outcome: 'selected', optionId: 'y' } } } })}\n${JSON.stringify({ t: 'bye' })}\n`);
    const log = path.join(world.place.dir, relayFileNames.log);
    await until(async () => (await fs.readFile(log, 'utf8').catch(() => '')).includes('end_turn') || undefined, 'the turn to end in the log');

    const b = await RawClient.connect(world.place);
    await b.next((f) => f.t === 'o' && f.method === 'session/prompt', "the earlier window's prompt answer");
    assert.equal(b.chunks().filter((c) => c.startsWith('after ')).length, 2000);
    assert.ok(existsSync(log), 'the replayed lines stay in the log until acknowledged');
    const half = b.frames.find((f) => f.m?.params?.update?.content?.text === 'after 999 ')!.s as number;
    b.send({ t: 'ack', s: half });
    b.send({ t: 'bye' });
    await until(() => b.closed || undefined, 'the detach');

    const c = await RawClient.connect(world.place);
    await c.next((f) => f.t === 'o' && f.method === 'session/prompt', "the earlier window's prompt answer again");
    const again = c.chunks().filter((t) => t.startsWith('after '));
    assert.deepEqual(again, Array.from({ length: 1000 }, (_, i) => `after ${1000 + i} `), 'the unacknowledged half, in order, once');
    c.ackAll();
    await until(() => !existsSync(log) || undefined, 'the log to go once all of it was acknowledged');
  });

  it('the agent gone while a window is still being given the log: the window gets all of it, then the exit, then the relay ends', async () => {
    world = await startWorld();
    const a = await RawClient.connect(world.place);
    const sessionId = await openSession(a, world.root);
    a.ackAll();
    a.request(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'permission-then-stream 60000' }] });
    const asked = await a.next((f) => f.t === 'm' && f.m?.method === 'session/request_permission', 'the permission request');
    a.ackAll();
    a.socket.write(`${JSON.stringify({ t: 'm', m: { jsonrpc: '2.0', id: asked.m.id, result: { outcome: { outcome: 'selected', optionId: 'y' } } } })}\n${JSON.stringify({ t: 'bye' })}\n`);
    const log = path.join(world.place.dir, relayFileNames.log);
    await until(async () => (await fs.readFile(log, 'utf8').catch(() => '')).includes('end_turn') || undefined, 'the turn to end in the log (~9 MB)');

    const b = await RawClient.connect(world.place);
    await b.next((f) => f.t === 'welcome', 'welcome');
    // The window stops reading: the relay's replay waits on its socket, and the agent goes meanwhile.
    b.socket.pause();
    process.kill(world.agentPid, 'SIGKILL');
    await until(() => !existsSync(path.join(world!.place.dir, relayFileNames.state)) || undefined, 'the relay to see the agent gone');
    b.socket.resume();
    await until(() => b.closed || undefined, 'the relay to close the connection', 60_000);
    assert.equal(b.chunks().filter((t) => t.startsWith('after ')).length, 60000, 'the whole log');
    const last = b.frames.at(-1)!;
    assert.equal(last.t, 'exit', 'the exit, after the log');
    assert.equal(last.signal, 'SIGKILL');
    assert.ok(b.frames.some((f) => f.t === 'o' && f.method === 'session/prompt'), "the earlier window's prompt answer");
  });
});
