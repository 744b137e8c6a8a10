// A window that dies in the middle of a delivery (docs/turn-supervisor.md, The detached state): the next window,
// before or after the 60 s claim deadline (its clock set ahead), wakes the agent exactly once, never twice.
// The dying window is parked at the point of its death (a promise never settled), never timed.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import { systemClock, type Clock } from '../../../src/extension/core/ports/clock';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import type { StartTurnResult, TurnPort } from '../../../src/extension/core/ports/turns';
import type { LivenessSettings } from '../../../src/extension/core/supervisor/livenessSettings';
import { TurnSupervisor } from '../../../src/extension/core/supervisor/turnSupervisor';
import { completionFor, openWindow, tempStorageRoot, waitForEvent } from '../../fakes/wakeupHarness';
import { FakeAgent } from '../supervisor/fakeAgent';
import { closeSupervisedWindow, wakeupPrompts, type SupervisedWindow } from './supervisedWindows';

const QUIET: LivenessSettings = { enabled: true, timeoutMs: 600_000, toolTimeoutMs: 600_000, graceMs: 5_000 };
const CLAIM_TTL_MS = 60_000;

type TestWindow = SupervisedWindow;

/** System time moved by `aheadMs`: a window that opens that much later (leases and claims read it). */
function clockAhead(aheadMs: number): Clock {
  return { now: () => systemClock.now() + aheadMs, wallNow: () => systemClock.wallNow() + aheadMs, setTimer: systemClock.setTimer };
}

describe('wakeups across a window that died mid-delivery', function () {
  this.timeout(60_000);
  const sid = 'sess-dead-window';
  let root: string;
  const opened: TestWindow[] = [];
  /** Lets the dead window's parked work go at cleanup (it never goes on within a test). */
  const parked: Array<() => void> = [];

  async function open(windowId: string, aheadMs = 0, turns?: (sup: TurnSupervisor) => TurnPort): Promise<TestWindow> {
    const clock = clockAhead(aheadMs);
    const agent = new FakeAgent();
    const sup = new TurnSupervisor({ storageRoot: root, clock, logger: silentLogger, agents: agent, settings: () => QUIET, windowId });
    await sup.sessions.init();
    const win = await openWindow(root, turns ? turns(sup) : sup, { windowId, clock });
    const w = { ...win, sup, agent };
    opened.push(w);
    return w;
  }

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-deadwin-');
  });

  afterEach(async () => {
    for (const go of parked.splice(0)) go();
    for (const w of opened.splice(0)) await closeSupervisedWindow(w, sid);
    await fs.rm(root, { recursive: true, force: true });
  });

  for (const aheadMs of [5_000, CLAIM_TTL_MS + 1_000]) {
    const when = aheadMs > CLAIM_TTL_MS ? 'after' : 'before';
    it(`a reload between a turn's end and its drain's wakeup: the next window (${when} the claim deadline) wakes the agent once`, async () => {
      // A's drain claims as its turn ends; the window dies before the wakeup turn starts (parked there for good).
      let dies!: () => void;
      const died = new Promise<void>((resolve) => (dies = resolve));
      const a = await open('window-a', 0, (sup): TurnPort => ({
        startTurn: (sessionId, prompt, options) => {
          if (options.source !== 'wakeup') return sup.startTurn(sessionId, prompt, options);
          dies();
          return new Promise<StartTurnResult>((resolve) => parked.push(() => resolve({ kind: 'failed', reason: 'the window is gone' })));
        },
        hasActiveTurn: (sessionId) => sup.hasActiveTurn(sessionId),
        onTurnTeardown: (listener) => sup.onTurnTeardown(listener),
        onTurnEnding: (listener) => sup.onTurnEnding(listener),
        setAdmissionHook: (hook) => sup.setAdmissionHook(hook),
        isPaused: (sessionId) => sup.isPaused(sessionId),
      }));
      await a.sup.sessions.create('dead window', sid);
      const user = await a.sup.startTurn(sid, 'a user message', { source: 'user' });
      assert.equal(user.kind, 'started');
      await a.coordinator.onCompletion(completionFor('t-drain', sid));
      a.agent.finish();
      await (user as { ended: Promise<unknown> }).ended;
      await died;
      assert.deepEqual((await a.outbox.entries(sid)).map((e) => [e.state, e.claimedBy]), [['claimed', 'window-a']]);
      a.coordinator.dispose();

      const b = await open('window-b', aheadMs);
      await b.coordinator.sweep();
      if (aheadMs < CLAIM_TTL_MS) {
        // Inside the deadline the claim is still A's: nothing yet, nothing lost.
        assert.equal(b.agent.prompts, 0);
        assert.deepEqual((await b.outbox.entries(sid)).map((e) => e.state), ['claimed']);
        const later = await open('window-b2', CLAIM_TTL_MS + 1_000);
        await later.coordinator.sweep();
        await waitForEvent(later, (e) => e.type === 'delivered');
        await later.coordinator.sweep();
        await later.coordinator.idle();
        assert.equal(later.agent.prompts, 1, 'one wakeup in the window that came after the deadline');
      } else {
        await waitForEvent(b, (e) => e.type === 'delivered');
        await b.coordinator.sweep();
        await b.coordinator.idle();
        assert.equal(b.agent.prompts, 1, 'one wakeup');
      }
      assert.deepEqual((await b.outbox.entries(sid)).map((e) => e.state), ['delivered']);
      assert.equal((await wakeupPrompts(b, sid)).length, 1, 'the completion woke the agent once');
    });
  }

  for (const next of ['sweep', 'user turn'] as const) {
    it(`a reload between storing the wakeup prompt and marking it delivered: the next window's ${next} wakes nothing again`, async () => {
      const a = await open('window-a');
      await a.sup.sessions.create('dead window', sid);
      // The window dies right after the wakeup's prompt is stored: its `deliver` never reaches the outbox.
      a.outbox.deliver = () => new Promise<number>((resolve) => parked.push(() => resolve(0)));
      await a.coordinator.onCompletion(completionFor('t-stored', sid));
      // The prompt is stored before the agent gets it (and before `deliver`, parked).
      while (!a.agent.current) await new Promise<void>((resolve) => setImmediate(resolve));
      assert.equal(a.agent.prompts, 1);
      assert.deepEqual((await a.outbox.entries(sid)).map((e) => e.state), ['claimed']);
      a.coordinator.dispose();

      const b = await open('window-b', CLAIM_TTL_MS + 1_000);
      if (next === 'sweep') {
        await b.coordinator.sweep();
        await b.coordinator.idle();
        assert.equal(b.agent.prompts, 0, 'the agent was not woken again');
      } else {
        const user = await b.sup.startTurn(sid, 'the person writes', { source: 'user' });
        assert.equal(user.kind, 'started');
        while (!b.agent.current) await new Promise<void>((resolve) => setImmediate(resolve));
        assert.ok(!b.agent.current!.request.text.includes('Background task'), `the user turn carried it again: ${b.agent.current!.request.text}`);
        b.agent.finish();
        await (user as { ended: Promise<unknown> }).ended;
        await b.coordinator.idle();
        assert.equal(b.agent.prompts, 1, 'no wakeup after the user turn');
      }
      assert.deepEqual((await b.outbox.entries(sid)).map((e) => e.state), ['delivered']);
      assert.equal((await wakeupPrompts(b, sid)).length, 1, 'one wakeup prompt in the transcript');
    });
  }
});
