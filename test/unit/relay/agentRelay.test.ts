// The agent relay as a program: the agent outlives its window's connection, what the window missed is
// replayed once, requests wait for a window, and the relay's deadline ends a turn no window took back.

import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isAlive } from '../../../src/extension/core/common/processTree';
import { RELAY_PROTOCOL, relayFileNames } from '../../../src/extension/core/relay/relayProtocol';
import { openSession, RawClient, startWorld, stopWorld, until, type World } from './relayWorld';

const ended = async (world: World) => JSON.parse(await fs.readFile(path.join(world.place.dir, relayFileNames.ended), 'utf8').catch(() => 'null')) as { reason: string } | null;

describe('agent relay', function () {
  this.timeout(30_000);
  let world: World;
  afterEach(async () => {
    if (world) await stopWorld(world);
  });

  it('keeps the turn across a detach: the next window adopts initialize, the session and the running prompt, and gets what it missed exactly once', async () => {
    world = await startWorld();
    const a = await RawClient.connect(world.place);
    await a.next((f) => f.t === 'welcome', 'welcome');
    const sessionId = await openSession(a, world.root);
    a.request(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'permission-then-stream 6' }] });
    const asked = await a.next((f) => f.t === 'm' && f.m?.method === 'session/request_permission', 'the permission request');
    // The window answers and goes in one write: everything the agent says after it is for the next window.
    a.socket.write(`${JSON.stringify({ t: 'm', m: { jsonrpc: '2.0', id: asked.m.id, result: { outcome: { outcome: 'selected', optionId: 'y' } } } })}\n${JSON.stringify({ t: 'bye' })}\n`);
    await until(async () => (await fs.readFile(path.join(world.place.dir, relayFileNames.log), 'utf8').catch(() => '')).includes('end_turn') || undefined, 'the turn to end in the log');
    assert.ok(isAlive(world.agentPid), 'the agent outlives the window');

    const b = await RawClient.connect(world.place);
    const welcome = await b.next((f) => f.t === 'welcome', 'welcome');
    assert.equal(welcome.v, RELAY_PROTOCOL);
    assert.equal(welcome.agentPid, world.agentPid);
    assert.equal((welcome.initialize as { protocolVersion: number }).protocolVersion, 1);
    assert.deepEqual(welcome.sessions, [sessionId]);
    assert.deepEqual(welcome.inflight, [], 'the prompt was answered while no window was attached');
    const answer = await b.next((f) => f.t === 'o' && f.method === 'session/prompt', "the earlier window's prompt answer");
    assert.equal(answer.method, 'session/prompt');
    assert.equal(answer.sessionId, sessionId);
    assert.equal(answer.m.result.stopReason, 'end_turn');
    // The relay says when its replay is over, after the answer and every chunk before it: a window that takes the
    // turn back looks for the answer only then (an answer read before the replay ended the turn without its text).
    await b.next((f) => f.t === 'replayed', 'the end of the replay');
    const order = b.frames.map((f) => f.t);
    assert.ok(order.indexOf('replayed') > order.indexOf('o'), `the replay's end comes after the answer: ${order.join(' ')}`);
    const said = b.chunks().join('');
    for (let i = 0; i < 6; i += 1) assert.equal(said.split(`after ${i} `).length, 2, `chunk ${i} exactly once in ${said}`);
    assert.ok(!a.chunks().join('').includes('after'), 'the first window got none of it');
    // A request of the new window gets its own id back, although the relay renumbered it.
    b.request(3, 'session/new', { cwd: world.root, mcpServers: [] });
    assert.ok(((await b.answer(3)).result as { sessionId: string }).sessionId);
  });

  it('asks the next window again what the last one never answered, and the turn goes on', async () => {
    world = await startWorld();
    const a = await RawClient.connect(world.place);
    const sessionId = await openSession(a, world.root);
    a.request(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'permission-then-stream 2' }] });
    const asked = await a.next((f) => f.t === 'm' && f.m?.method === 'session/request_permission', 'the permission request');
    a.ackAll();
    a.send({ t: 'bye' });
    await until(() => a.closed || undefined, 'the detach');
    const b = await RawClient.connect(world.place);
    const welcome = await b.next((f) => f.t === 'welcome', 'welcome');
    assert.deepEqual(welcome.inflight.map((i: { method: string; sessionId: string }) => [i.method, i.sessionId]), [['session/prompt', sessionId]]);
    const again = await b.next((f) => f.t === 'm' && f.m?.method === 'session/request_permission', 'the request again');
    assert.deepEqual(again.m.id, asked.m.id);
    b.send({ t: 'm', m: { jsonrpc: '2.0', id: again.m.id, result: { outcome: { outcome: 'selected', optionId: 'n' } } } });
    const done = await b.next((f) => f.t === 'o' && f.method === 'session/prompt', 'the prompt answer');
    assert.equal(done.m.result.stopReason, 'end_turn');
    assert.match(b.chunks().join(''), /permission .*"optionId":"n"/);
  });

  it('lets one window in at a time, and only with the secret and its protocol version', async () => {
    world = await startWorld();
    const a = await RawClient.connect(world.place);
    await a.next((f) => f.t === 'welcome', 'welcome');
    const second = await RawClient.connect(world.place);
    assert.match((await second.next((f) => f.t === 'refused', 'a refusal')).reason, /another window is attached/);
    const forger = await RawClient.connect(world.place, { t: 'hello', v: RELAY_PROTOCOL, secret: 'f'.repeat(64) });
    await until(() => forger.closed || undefined, 'the forger to be cut off');
    assert.equal(forger.frames.length, 0, 'no word to a client without the secret');
    const secret = (await fs.readFile(path.join(world.place.dir, relayFileNames.secret), 'utf8')).trim();
    a.send({ t: 'bye' });
    await until(() => a.closed || undefined, 'the detach');
    const older = await RawClient.connect(world.place, { t: 'hello', v: RELAY_PROTOCOL + 1, secret });
    assert.match((await older.next((f) => f.t === 'refused', 'a refusal')).reason, /version/);
    const mode = (await fs.stat(world.place.dir)).mode & 0o777;
    assert.equal(mode, 0o700);
    assert.equal((await fs.stat(path.join(world.place.dir, relayFileNames.secret))).mode & 0o777, 0o600);
  });

  it('cancels a turn no window takes back within the grace, kills an agent that ignores the cancel, and says why', async () => {
    world = await startWorld({ graceMs: 300, killGraceMs: 300 });
    const a = await RawClient.connect(world.place);
    const sessionId = await openSession(a, world.root);
    a.request(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ignore-cancel' }] });
    await a.next((f) => f.t === 'm' && f.m?.params?.update?.sessionUpdate === 'agent_message_chunk', 'the first chunk');
    a.send({ t: 'bye' });
    await until(() => (!isAlive(world.agentPid) && !isAlive(world.relayPid)) || undefined, 'the agent and the relay to end');
    assert.match((await ended(world))!.reason, /no Vigil window was attached within 0 s/);
  });

  it('cancels a detached turn that makes no progress for the liveness bound; the agent ends its prompt as cancelled', async () => {
    world = await startWorld({ graceMs: 60_000, livenessMs: 300, killGraceMs: 5_000 });
    const a = await RawClient.connect(world.place);
    const sessionId = await openSession(a, world.root);
    a.request(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'silent' }] });
    await a.next((f) => f.t === 'm' && f.m?.params?.update?.sessionUpdate === 'agent_message_chunk', 'the first chunk');
    a.send({ t: 'bye' });
    await until(() => ended(world).then((e) => e ?? undefined), 'the end record');
    assert.match((await ended(world))!.reason, /made no progress/);
    const b = await RawClient.connect(world.place);
    const answer = await b.next((f) => f.t === 'o' && f.method === 'session/prompt', 'the prompt answer').catch((e: Error) => assert.fail(`${e.message}: ${JSON.stringify(b.frames)}`));
    assert.equal(answer.m.result.stopReason, 'cancelled');
  });

  it('ends the turn at the log cap rather than keep it with a hole in it', async () => {
    world = await startWorld({ logCapBytes: 1_500, killGraceMs: 200 });
    const a = await RawClient.connect(world.place);
    const sessionId = await openSession(a, world.root);
    a.request(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'permission-then-stream 40' }] });
    const asked = await a.next((f) => f.t === 'm' && f.m?.method === 'session/request_permission', 'the permission request');
    a.socket.write(`${JSON.stringify({ t: 'm', m: { jsonrpc: '2.0', id: asked.m.id, result: { outcome: { outcome: 'selected', optionId: 'y' } } } })}\n${JSON.stringify({ t: 'bye' })}\n`);
    await until(() => ended(world).then((e) => e ?? undefined), 'the end record');
    assert.match((await ended(world))!.reason, /passed the 1 KiB kept for it/);
    const logged = await fs.stat(path.join(world.place.dir, relayFileNames.log));
    assert.ok(logged.size <= 1_500, `the log stays under its cap (${logged.size})`);
  });

  it('refuses the agent its requests past the held bound while no window is attached, and says so to the agent', async () => {
    world = await startWorld({ heldCap: 0 });
    const a = await RawClient.connect(world.place);
    const sessionId = await openSession(a, world.root);
    a.ackAll();
    // The prompt and the detach in one write: the agent asks only after the window is gone.
    const prompt = { t: 'm', m: { jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'permission-then-stream 1 50' }] } } };
    a.socket.write(`${JSON.stringify(prompt)}\n${JSON.stringify({ t: 'bye' })}\n`);
    await until(async () => (await fs.readFile(path.join(world.place.dir, relayFileNames.log), 'utf8').catch(() => '')).includes('end_turn') || undefined, 'the turn to end in the log');
    const b = await RawClient.connect(world.place);
    await b.next((f) => f.t === 'o' && f.method === 'session/prompt', 'the prompt answer');
    assert.match(b.chunks().join(''), /No Vigil window is attached to answer this request/);
    assert.ok(!b.frames.some((f) => f.m?.method === 'session/request_permission'), 'the refused request is not asked again');
  });
});
