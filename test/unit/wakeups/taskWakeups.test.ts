// Real tasks through the real outbox to a wakeup turn: teardown window, pattern, reload with a task still running.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FakeTurnPort } from '../../fakes/fakeTurnPort';
import { openRegistry, waitForOutput, type OpenedRegistry } from '../../fakes/taskHarness';
import { openWindow, pendingKeys, tempStorageRoot, waitForEvent, type Window } from '../../fakes/wakeupHarness';

describe('background tasks waking the agent', function () {
  this.timeout(60_000);
  let root: string;
  let cleanup: Array<() => Promise<void> | void> = [];

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-taskwake-');
  });

  afterEach(async () => {
    for (const fn of cleanup.reverse()) await fn();
    cleanup = [];
    // A coordinator step still in flight may create a lock inside the folder while it is removed: retry.
    await fs.rm(root, { recursive: true, force: true, maxRetries: 10 });
  });

  async function windowWithTasks(turns: FakeTurnPort, windowId: string): Promise<{ win: Window; tasks: OpenedRegistry }> {
    const win = await openWindow(root, turns, { windowId });
    const tasks = await openRegistry(root, { onCompletion: win.coordinator.onCompletion });
    cleanup.push(async () => {
      for (const t of tasks.registry.list()) if (t.status === 'running') await tasks.registry.kill(t.id);
      await tasks.registry.close();
      win.coordinator.dispose();
      // Deliveries already under way still write to the outbox: let them finish before the storage is removed.
      await win.coordinator.idle();
    });
    return { win, tasks };
  }

  it('a fast task finishing inside a turn\'s teardown window is delivered once (20 rounds)', async () => {
    const turns = new FakeTurnPort();
    const { win, tasks } = await windowWithTasks(turns, 'w');
    for (let i = 0; i < 20; i += 1) {
      const sid = `fast-${i}`;
      const turn = turns.beginTurn(sid);
      const { terminalId } = await tasks.registry.create({ sessionId: sid, command: `echo done-${i}`, background: true });
      // The turn is tearing down while the task exits: unregistered, hook not yet run.
      const ended = turns.unregister(turn);
      if (i % 2 === 0) await tasks.registry.waitForExit(terminalId);
      turns.emitTeardown(ended);
      await tasks.registry.waitForExit(terminalId);
      const calls = await turns.waitForCalls((c) => c.some((x) => x.sessionId === sid && x.result === 'started'));
      const mine = calls.filter((c) => c.sessionId === sid);
      assert.equal(mine.length, 1);
      assert.ok(mine[0].prompt.startsWith(`[IMPORTANT: Background task ${terminalId} completed (exit code 0).`), mine[0].prompt);
      assert.ok(mine[0].prompt.includes(`done-${i}`));
      turns.endTurn(mine[0].turnId as string);
      assert.equal(await win.coordinator.drain(sid), 'nothing');
      assert.deepEqual(await pendingKeys(win, sid), []);
    }
  });

  it('a pattern match ("listening on") wakes the agent while the task runs, and its exit wakes it again', async () => {
    const turns = new FakeTurnPort();
    const { win, tasks } = await windowWithTasks(turns, 'w');
    const ws = path.join(root, 'workspace');
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [path.join(ws, 'stop')]);
    const server = `node -e "console.log('booting'); setTimeout(() => console.log('listening on :3000'), 20)"; read x < stop; echo bye`;
    const { terminalId } = await tasks.registry.create({ sessionId: 'srv', command: server, background: true, notify: { pattern: 'listening on :\\d+' } });
    const [first] = await turns.waitForCalls((c) => c.length >= 1, 20_000);
    assert.ok(first.prompt.startsWith(`[IMPORTANT: Background task ${terminalId} matched "listening on :\\d+" (still running).`), first.prompt);
    assert.ok(first.prompt.includes('Matched line: listening on :3000'));
    assert.equal((await tasks.registry.get(terminalId))?.status, 'running');

    // The exit arrives while the pattern's wakeup turn is still running: it waits for that turn's teardown.
    await fs.writeFile(path.join(ws, 'stop'), 'go\n');
    await tasks.registry.waitForExit(terminalId);
    await waitForEvent(win, (e) => e.type === 'delivery' && e.trigger === 'completion' && e.outcome === 'active');
    turns.endTurn(first.turnId as string);
    const calls = await turns.waitForCalls((c) => c.length >= 2);
    assert.ok(calls[1].prompt.includes(`${terminalId} completed (exit code 0)`), calls[1].prompt);
    assert.ok(calls[1].prompt.includes('bye'));
    turns.endTurn(calls[1].turnId as string);
    assert.equal(await win.coordinator.drain('srv'), 'nothing');
    assert.equal(turns.calls.length, 2);
  });

  it('a task still running across a window reload is re-attached, and its exit still wakes the agent', async () => {
    const ws = path.join(root, 'workspace');
    await fs.mkdir(ws, { recursive: true });
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [path.join(ws, 'gate')]);

    const turnsA = new FakeTurnPort();
    const winA = await openWindow(root, turnsA, { windowId: 'a' });
    const tasksA = await openRegistry(root, { onCompletion: winA.coordinator.onCompletion });
    const { terminalId } = await tasksA.registry.create({ sessionId: 'reload', command: 'echo started; read x < gate; echo finished; exit 2', background: true });
    await waitForOutput(tasksA, terminalId, 'started');
    // Reload: the window's registry and coordinator go away; the task keeps running.
    await tasksA.registry.close();
    winA.coordinator.dispose();

    const turnsB = new FakeTurnPort();
    const { tasks } = await windowWithTasks(turnsB, 'b');
    assert.equal((await tasks.registry.get(terminalId))?.status, 'running');
    await fs.writeFile(path.join(ws, 'gate'), 'go\n');
    const [call] = await turnsB.waitForCalls((c) => c.length >= 1, 20_000);
    assert.equal(call.source, 'wakeup');
    assert.ok(call.prompt.startsWith(`[IMPORTANT: Background task ${terminalId} completed (exit code 2).`), call.prompt);
    assert.ok(call.prompt.includes('started\nfinished'));
    assert.equal(turnsA.calls.length, 0);
  });

  it('two windows following the same task store one completion and start one wakeup', async () => {
    const turns = new FakeTurnPort();
    const { tasks: first } = await windowWithTasks(turns, 'a');
    const ws = path.join(root, 'workspace');
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [path.join(ws, 'gate')]);
    const { terminalId } = await first.registry.create({ sessionId: 'shared', command: 'echo up; read x < gate', background: true });
    await waitForOutput(first, terminalId, 'up');
    const { win: winB, tasks: second } = await windowWithTasks(turns, 'b');
    assert.equal((await second.registry.get(terminalId))?.status, 'running');
    await fs.writeFile(path.join(ws, 'gate'), 'go\n');
    await Promise.all([first.registry.waitForExit(terminalId), second.registry.waitForExit(terminalId)]);
    await turns.waitForCalls((c) => c.length >= 1);
    const entries = await winB.outbox.entries('shared');
    assert.equal(entries.length, 1);
    assert.equal(turns.calls.filter((c) => c.result === 'started').length, 1);
  });
});
