// The nine delivery scenarios of wakeupDeferRace.test.ts (docs/background-tasks.md Rules 1–9; the numbers in the titles are scenario numbers, not rule numbers) re-run with the
// background command started by an agent through Vigil's MCP task server (the real stdio program) instead
// of an ACP client terminal: real tasks, real registry, real outbox, against the scripted turn port and
// against real turn supervisors.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FakeTurnPort } from '../../fakes/fakeTurnPort';
import { SupervisorTurnPort } from '../../fakes/supervisorTurnPort';
import { makeFifo, openGate, waitForOutput } from '../../fakes/taskHarness';
import { callTool, connectMcpClient, openTaskServer, taskIdIn, type OpenedTaskServer } from '../../fakes/taskServerHarness';
import { deliveryOutcome, openWindow, pendingKeys, tempStorageRoot, waitForEvent, type Window } from '../../fakes/wakeupHarness';

const PORTS = [
  { name: 'scripted turn port', open: async () => new FakeTurnPort() },
  {
    name: 'real turn supervisor',
    open: async (root: string) => {
      const port = new SupervisorTurnPort(root);
      await port.init();
      return port;
    },
  },
];

for (const PORT of PORTS) describe(`wakeups of tasks started through MCP — ${PORT.name}`, function () {
  this.timeout(60_000);
  let root: string;
  let turns: FakeTurnPort | SupervisorTurnPort;
  let win: Window;
  let ts: OpenedTaskServer;
  const clients = new Map<string, Client>();

  async function open(maxPerTurn = 1, windowId = 'w1'): Promise<void> {
    win = await openWindow(root, turns, { maxPerTurn: () => maxPerTurn, windowId });
    ts = await openTaskServer(root, { registry: { onCompletion: win.coordinator.onCompletion }, identity: ts?.identity });
  }

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-mcpwake-');
    turns = await PORT.open(root);
    await open();
  });

  afterEach(async () => {
    for (const c of clients.values()) await c.close();
    clients.clear();
    for (const t of ts.tasks.registry.list()) if (t.status === 'running') await ts.tasks.registry.kill(t.id);
    await ts.close();
    win.coordinator.dispose();
    await win.coordinator.idle();
    if (turns instanceof SupervisorTurnPort) await turns.close();
    await fs.rm(root, { recursive: true, force: true, maxRetries: 10 });
  });

  /** The agent of `sessionId` calls start_background_command; resolves with the task id at once. */
  async function startViaMcp(sessionId: string, command: string, extra: Record<string, unknown> = {}): Promise<string> {
    let client = clients.get(sessionId);
    if (!client) {
      client = await connectMcpClient(ts.server, sessionId);
      clients.set(sessionId, client);
    }
    const r = await callTool(client, 'start_background_command', { command, ...extra });
    assert.equal(r.isError, false, r.text);
    return taskIdIn(r.text);
  }

  /** Starts a task through MCP and resolves once its completion is in the outbox. */
  async function completeViaMcp(sessionId: string, command: string): Promise<string> {
    const id = await startViaMcp(sessionId, command);
    await waitForEvent(win, (e) => e.type === 'enqueued' && e.completion.key === `${id}:exit`, 20_000);
    return id;
  }

  it('1. a task started through MCP that exits during a turn wakes the agent once at teardown', async () => {
    const sid = 'sess-teardown';
    const turn = await turns.beginTurn(sid);
    const id = await completeViaMcp(sid, 'echo built');
    assert.equal(turns.calls.length, 0);
    assert.deepEqual(await pendingKeys(win, sid), [`${id}:exit`]);
    await turns.endTurn(turn);
    const [call] = await turns.waitForCalls((c) => c.length >= 1);
    assert.equal(call.source, 'wakeup');
    assert.ok(call.prompt.startsWith(`[IMPORTANT: Background task ${id} completed (exit code 0).\nCommand: echo built`), call.prompt);
    assert.ok(call.prompt.includes('built'));
    assert.deepEqual(await pendingKeys(win, sid), []);
  });

  it('2 + 4. an idle completion fires once; the wakeup turn and three more drains start nothing', async () => {
    const sid = 'sess-idle';
    const id = await startViaMcp(sid, 'echo idle-done');
    const [call] = await turns.waitForCalls((c) => c.length >= 1, 20_000);
    await waitForEvent(win, (e) => e.type === 'delivered');
    assert.ok(call.prompt.includes(id));
    await turns.endTurn(call.turnId as string);
    for (let i = 0; i < 3; i += 1) assert.equal(await win.coordinator.drain(sid), 'nothing');
    assert.equal(turns.calls.length, 1);
  });

  it('a fast task finishing inside a turn\'s teardown window is delivered exactly once (8 rounds)', async () => {
    for (let i = 0; i < 8; i += 1) {
      const sid = `fast-${i}`;
      const turn = await turns.beginTurn(sid);
      const id = await startViaMcp(sid, `echo done-${i}`);
      const ended = await turns.unregister(turn);
      if (i % 2 === 0) await ts.tasks.registry.waitForExit(id);
      turns.emitTeardown(ended);
      const calls = await turns.waitForCalls((c) => c.some((x) => x.sessionId === sid && x.prompt.includes(id)), 20_000);
      const mine = calls.filter((c) => c.sessionId === sid);
      assert.equal(mine.length, 1);
      await turns.endTurn(mine[0].turnId as string);
      assert.equal(await win.coordinator.drain(sid), 'nothing');
      assert.deepEqual(await pendingKeys(win, sid), []);
    }
  });

  it('3. a user turn carries the pending completion; no separate wakeup follows', async () => {
    const sid = 'sess-shared';
    const first = await turns.beginTurn(sid);
    const id = await completeViaMcp(sid, 'echo carried');
    const ended = await turns.unregister(first);
    const user = await turns.userTurn(sid, 'what next?');
    assert.ok(user.prefix.startsWith(`[IMPORTANT: Background task ${id}`), user.prefix);
    turns.emitTeardown(ended);
    await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'));
    await turns.endTurn(user.turnId);
    assert.equal(await win.coordinator.drain(sid), 'nothing');
    assert.equal(turns.wakeupCalls().length, 0);
  });

  it('5. two active turns: the first teardown leaves it, the last one delivers once', async () => {
    const sid = 'sess-multi';
    const a = await turns.beginTurn(sid);
    const b = await turns.beginTurn(sid);
    const id = await completeViaMcp(sid, 'echo multi');
    await turns.endTurn(a);
    const first = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'));
    assert.equal(first.type === 'delivery' && first.outcome, 'active');
    const mark = win.events.length;
    await turns.endTurn(b);
    const last = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'), 5_000, mark);
    assert.equal(last.type === 'delivery' && last.outcome, 'started');
    assert.equal(turns.calls.length, 1);
    assert.ok(turns.calls[0].prompt.includes(id));
  });

  it('6. busy: re-queued once with its task id, delivered by the next teardown', async () => {
    const sid = 'sess-409';
    const turn = await turns.beginTurn(sid);
    const id = await completeViaMcp(sid, 'echo busy');
    turns.script.push('busy');
    await turns.endTurn(turn);
    const busy = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'));
    assert.equal(busy.type === 'delivery' && busy.outcome, 'busy');
    assert.deepEqual((await win.outbox.entries(sid)).filter((e) => e.state === 'pending').map((e) => e.taskId), [id]);
    const mark = win.events.length;
    await turns.endTurn(await turns.beginTurn(sid));
    const next = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'), 5_000, mark);
    assert.equal(next.type === 'delivery' && next.outcome, 'started');
    assert.deepEqual(await pendingKeys(win, sid), []);
  });

  it('7. paused: parked, not re-queued; the resumed turn carries it', async () => {
    const sid = 'sess-paused';
    const turn = await turns.beginTurn(sid);
    const id = await completeViaMcp(sid, 'echo paused');
    turns.script.push('paused');
    await turns.endTurn(turn);
    const parked = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'));
    assert.equal(parked.type === 'delivery' && parked.outcome, 'paused');
    assert.deepEqual((await win.outbox.entries(sid)).map((e) => e.state), ['parked']);
    await turns.setPaused(sid, true);
    assert.equal(await win.coordinator.drain(sid), 'held');
    await turns.setPaused(sid, false);
    const resumed = await turns.startTurn(sid, 'resume', { source: 'resume' });
    assert.equal(resumed.kind, 'started');
    assert.ok(turns.calls.at(-1)?.prefix?.includes(id));
    await waitForEvent(win, (e) => e.type === 'delivered' && e.via === 'carried');
  });

  it('8. three tasks in one turn, maxPerTurn 1: one per teardown, each exactly once', async () => {
    const sid = 'sess-three';
    const turn = await turns.beginTurn(sid);
    const ids = [await completeViaMcp(sid, 'echo one'), await completeViaMcp(sid, 'echo two'), await completeViaMcp(sid, 'echo three')];
    await turns.endTurn(turn);
    for (let left = 2; left >= 0; left -= 1) {
      const calls = await turns.waitForCalls((c) => c.length >= 3 - left);
      assert.equal((await pendingKeys(win, sid)).length, left);
      await turns.endTurn(calls.at(-1)!.turnId as string);
    }
    const prompts = turns.calls.map((c) => c.prompt);
    for (const id of ids) assert.equal(prompts.filter((p) => p.includes(id)).length, 1, id);
  });

  it('9. busy on the idle path re-queues with its task id, and a second busy adds no duplicate', async () => {
    const sid = 'sess-idle-409';
    turns.script.push('busy');
    const id = await startViaMcp(sid, 'echo idle-busy');
    const busy = await waitForEvent(win, deliveryOutcome(win, sid, 'completion'), 20_000);
    assert.equal(busy.type === 'delivery' && busy.outcome, 'busy');
    assert.deepEqual(busy.type === 'delivery' && busy.keys, [`${id}:exit`]);
    let entries = await win.outbox.entries(sid);
    assert.deepEqual(entries.map((e) => [e.taskId, e.state]), [[id, 'pending']]);

    // The same completion signalled again (as a window re-attaching the task would), meeting a second busy race,
    // then a drain meeting a third: still exactly one entry.
    const stored = win.events.find((e) => e.type === 'enqueued' && e.completion.taskId === id);
    assert.ok(stored?.type === 'enqueued');
    const mark = win.events.length;
    turns.script.push('busy');
    await win.coordinator.onCompletion(stored.completion);
    const second = await waitForEvent(win, deliveryOutcome(win, sid, 'completion'), 5_000, mark);
    assert.equal(second.type === 'delivery' && second.outcome, 'busy');
    assert.ok(win.events.slice(mark).some((e) => e.type === 'enqueued' && e.duplicate), 'the second signal was stored as new');
    turns.script.push('busy');
    assert.equal(await win.coordinator.drain(sid), 'busy');
    entries = await win.outbox.entries(sid);
    assert.deepEqual(entries.map((e) => [e.taskId, e.state]), [[id, 'pending']]);

    assert.equal(await win.coordinator.drain(sid), 'started');
    assert.deepEqual((await win.outbox.entries(sid)).map((e) => e.state), ['delivered']);
    const started = turns.calls.filter((c) => c.result === 'started');
    assert.equal(started.length, 1);
    assert.ok(started[0].prompt.startsWith(`[IMPORTANT: Background task ${id} completed (exit code 0).\nCommand: echo idle-busy`), started[0].prompt);
  });

  it('a task still running across a window reload is re-attached, and its exit wakes the agent once', async () => {
    const gate = makeFifo(ts.workspace);
    const id = await startViaMcp('reload', `echo started; cat ${JSON.stringify(gate)} > /dev/null; echo finished; exit 3`);
    await waitForOutput(ts.tasks, id, 'started');
    // Reload: the window's task server, registry and coordinator go; the task keeps running.
    for (const c of clients.values()) await c.close();
    clients.clear();
    await ts.close();
    win.coordinator.dispose();
    await win.coordinator.idle();
    await open(1, 'w2');
    assert.equal((await ts.tasks.registry.get(id))?.status, 'running');
    await openGate(gate);
    const [call] = await turns.waitForCalls((c) => c.length >= 1, 20_000);
    assert.equal(call.source, 'wakeup');
    assert.ok(call.prompt.startsWith(`[IMPORTANT: Background task ${id} completed (exit code 3).`), call.prompt);
    assert.ok(call.prompt.includes('started\nfinished'));
    await turns.endTurn(call.turnId as string);
    assert.equal(await win.coordinator.drain('reload'), 'nothing');
    assert.equal(turns.calls.length, 1);
  });
});
