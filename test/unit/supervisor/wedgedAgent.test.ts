// docs/turn-supervisor.md I17 with real processes: a wedged agent (synchronous infinite loop, or deaf to cancel) is killed as a tree within grace.

import * as assert from 'node:assert/strict';
import { systemClock } from '../../../src/extension/core/ports/clock';
import { TurnSupervisor } from '../../../src/extension/core/supervisor/turnSupervisor';
import type { SupervisorEvent } from '../../../src/extension/core/supervisor/supervisorEvents';
import { recordingLogger, tempRoot } from './harness';
import { isDead, ProcessAgent, type AgentMode } from './processAgent';

// The bound is generous so that storing the prompt on a loaded machine is never taken for the stall.
const SETTINGS = { enabled: true, timeoutMs: 2_000, toolTimeoutMs: 5_000, graceMs: 1_000 };
const CALM = { ...SETTINGS, timeoutMs: 30_000 };

async function deathTime(pid: number, realMs = 10_000): Promise<number> {
  const deadline = Date.now() + realMs;
  while (!isDead(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still alive`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now();
}

for (const mode of ['spin', 'ignoreCancel'] as AgentMode[]) {
  describe(`wedged agent process (${mode})`, () => {
    let agent: ProcessAgent;
    afterEach(async () => agent?.dispose());

    it(`I17 a ${mode === 'spin' ? 'synchronously looping' : 'cancel-ignoring'} agent is killed as a tree within grace, and the session takes a new turn`, async function () {
      this.timeout(30_000);
      agent = new ProcessAgent(mode);
      let settings = SETTINGS;
      const root = await tempRoot();
      const sup = new TurnSupervisor({ storageRoot: root, clock: systemClock, logger: recordingLogger([]), agents: agent, settings: () => settings, windowId: 'w', leaseTtlMs: 3_000 });
      await sup.sessions.init();
      await sup.sessions.create('wedge', 's1');
      let committedAt: number | undefined;
      let deaths: Promise<number[]> | undefined;
      const events: SupervisorEvent[] = [];
      sup.subscribe((e) => {
        events.push(e);
        if (e.type !== 'abortCommitted') return;
        committedAt = performance.now();
        // Watch from the commit on, so the turn's own teardown I/O is not counted as kill time.
        const [proc] = agent.spawned;
        deaths = Promise.all([deathTime(proc.child.pid!), deathTime(proc.grandchildPid)]);
      });
      // The agent process is already up (as after an earlier turn), so the bound measures the prompt only.
      await agent.get();
      const started = await sup.startTurn('s1', 'run', { source: 'user' });
      assert.equal(started.kind, 'started');
      const result = await (started as { ended: Promise<{ reason: string }> }).ended;
      assert.ok(committedAt !== undefined, 'the watchdog committed an abort');
      const [proc] = agent.spawned;
      const killedAfter = Math.max(...(await deaths!)) - committedAt;
      assert.ok(killedAfter <= SETTINGS.graceMs + 500, `tree dead ${killedAfter.toFixed(0)} ms after the committed abort`);
      assert.ok(killedAfter >= SETTINGS.graceMs - 50, 'the agent got its grace to unwind first');
      assert.equal(result.reason, 'interrupted');
      assert.ok(events.some((e) => e.type === 'escalated'));

      // No window reload: the same supervisor serves the next prompt with a fresh process.
      agent.mode = 'cooperative';
      settings = CALM;
      await agent.get();
      const next = await sup.startTurn('s1', 'again', { source: 'resume' });
      assert.equal(next.kind, 'started');
      assert.equal((await (next as { ended: Promise<{ reason: string }> }).ended).reason, 'completed');
      assert.equal(agent.spawned.length, 2);
      assert.notEqual(agent.spawned[1].child.pid, proc.child.pid);
    });
  });
}
