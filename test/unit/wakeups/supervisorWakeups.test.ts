// Wakeups through the real turn supervisor: real lease, real transcript, real tasks; only the agent is scripted.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { EventHub } from '../../../src/extension/core/common/events';
import type { AgentHandle, AgentHandleProvider, PromptOutcome, PromptRequest } from '../../../src/extension/core/ports/agentHandle';
import { systemClock } from '../../../src/extension/core/ports/clock';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { TurnSupervisor } from '../../../src/extension/core/supervisor/turnSupervisor';
import { TaskRegistry } from '../../../src/extension/core/tasks/taskRegistry';
import { WakeupCoordinator, type WakeupEvent } from '../../../src/extension/core/wakeups/wakeupCoordinator';
import { WakeupOutbox } from '../../../src/extension/core/wakeups/wakeupOutbox';
import { completionFor, tempStorageRoot } from '../../fakes/wakeupHarness';

/** An agent that holds each prompt until the test finishes it. */
class HeldAgent implements AgentHandleProvider, AgentHandle {
  readonly prompts: PromptRequest[] = [];
  private readonly open = new Map<string, (o: PromptOutcome) => void>();
  private readonly hub = new EventHub<PromptRequest>();

  async get(): Promise<AgentHandle> {
    return this;
  }

  prompt(request: PromptRequest): Promise<PromptOutcome> {
    this.prompts.push(request);
    this.hub.emit(request);
    return new Promise((resolve) => this.open.set(request.turnId, resolve));
  }

  finish(turnId: string): void {
    this.open.get(turnId)?.({ stopReason: 'end_turn' });
    this.open.delete(turnId);
  }

  async cancel(): Promise<void> {
    for (const id of [...this.open.keys()]) this.finish(id);
  }

  async kill(): Promise<void> {
    await this.cancel();
  }

  waitForPrompt(n: number, timeoutMs = 15_000): Promise<PromptRequest> {
    if (this.prompts.length >= n) return Promise.resolve(this.prompts[n - 1]);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for prompt ${n}; have ${this.prompts.length}`)), timeoutMs);
      const off = this.hub.subscribe(() => {
        if (this.prompts.length < n) return;
        clearTimeout(timer);
        off();
        resolve(this.prompts[n - 1]);
      });
    });
  }
}

describe('wakeups through the real turn supervisor', function () {
  this.timeout(60_000);
  let root: string;
  let sup: TurnSupervisor;
  let agent: HeldAgent;
  let outbox: WakeupOutbox;
  let coordinator: WakeupCoordinator;
  let registry: TaskRegistry;
  let events: WakeupEvent[];
  const sid = 'sess-real';

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-supwake-');
    const workspace = path.join(root, 'workspace');
    await fs.mkdir(workspace);
    agent = new HeldAgent();
    sup = new TurnSupervisor({
      storageRoot: root,
      clock: systemClock,
      logger: silentLogger,
      agents: agent,
      settings: () => ({ enabled: true, timeoutMs: 600_000, toolTimeoutMs: 600_000, graceMs: 5_000 }),
      windowId: 'window-1',
    });
    await sup.sessions.init();
    await sup.sessions.create('wakeups', sid);
    outbox = await WakeupOutbox.open({ storageRoot: root, windowId: 'window-1' });
    coordinator = new WakeupCoordinator({ turns: sup, outbox });
    events = [];
    coordinator.subscribe((e) => events.push(e));
    coordinator.start();
    registry = await TaskRegistry.open({ storageRoot: root, workspaceFolder: () => workspace, shell: '/bin/sh', onCompletion: coordinator.onCompletion });
  });

  /** Waits (on the coordinator's events, bounded) until `n` teardown drains ran; returns their outcomes. */
  async function teardownDrains(n: number): Promise<string[]> {
    const outcomes = () => events.flatMap((e) => (e.type === 'delivery' && e.trigger === 'teardown' ? [e.outcome] : []));
    if (outcomes().length >= n) return outcomes();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${n} teardown drains: ${outcomes().join(', ')}`)), 15_000);
      const off = coordinator.subscribe(() => {
        if (outcomes().length < n) return;
        clearTimeout(timer);
        off();
        resolve();
      });
    });
    return outcomes();
  }

  afterEach(async () => {
    for (const t of registry.list()) if (t.status === 'running') await registry.kill(t.id);
    await registry.close();
    coordinator.dispose();
    // Work under way still writes to the storage (outbox marks, a turn's teardown): let it finish first.
    await coordinator.idle();
    await agent.cancel();
    const deadline = Date.now() + 10_000;
    while (sup.getSnapshot(sid) !== undefined && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    sup.dispose();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('a task finishing during a user turn wakes the agent after that turn, once', async () => {
    const user = await sup.startTurn(sid, 'run the tests in the background', { source: 'user' });
    assert.equal(user.kind, 'started');
    const first = await agent.waitForPrompt(1);
    const { terminalId } = await registry.create({ sessionId: sid, command: 'echo 12 passing; exit 0', background: true });
    await registry.waitForExit(terminalId);
    assert.equal(agent.prompts.length, 1, 'nothing starts while the user turn is active');

    agent.finish(first.turnId);
    const wake = await agent.waitForPrompt(2);
    assert.ok(wake.text.startsWith(`[IMPORTANT: Background task ${terminalId} completed (exit code 0).`), wake.text);
    assert.ok(wake.text.includes('12 passing'));
    const stored = (await sup.sessions.readAll(sid)).records.find((r) => r.type === 'userPrompt' && r.source === 'wakeup');
    assert.deepEqual(stored?.type === 'userPrompt' && stored.taskIds, [terminalId], 'the wakeup\'s record names its task as data');
    // The wakeup turn ends; its teardown finds the completion delivered and starts nothing.
    agent.finish(wake.turnId);
    const teardowns = await teardownDrains(2);
    assert.deepEqual(teardowns, ['started', 'nothing']);
    assert.equal(await coordinator.drain(sid), 'nothing');
    assert.equal(agent.prompts.length, 2);
    assert.deepEqual((await outbox.entries(sid)).map((e) => e.state), ['delivered']);
  });

  it('an idle session is woken by a completion, and a user turn carries what another window left pending', async () => {
    const { terminalId } = await registry.create({ sessionId: sid, command: 'exit 4', background: true });
    const wake = await agent.waitForPrompt(1);
    assert.ok(wake.text.includes(`${terminalId} completed (exit code 4)`));
    agent.finish(wake.turnId);
    assert.deepEqual(await teardownDrains(1), ['nothing']);

    // Another window stored a completion and went away before delivering it.
    await outbox.enqueue(completionFor('t-other', sid, { output: 'built' }));
    const user = await sup.startTurn(sid, 'and now?', { source: 'user' });
    assert.equal(user.kind, 'started');
    const carried = await agent.waitForPrompt(2);
    assert.ok(carried.text.startsWith('[IMPORTANT: Background task t-other completed (exit code 0).'), carried.text);
    assert.ok(carried.text.endsWith('\n\nand now?'));
    while (!events.some((e) => e.type === 'delivered' && e.via === 'carried')) await new Promise((r) => setImmediate(r));
    agent.finish(carried.turnId);
    assert.deepEqual(await teardownDrains(2), ['nothing', 'nothing']);
    assert.equal(agent.prompts.length, 2);
  });
});
