// A window frozen (SIGSTOP-like) in the middle of a delivery, its claim lapsed meanwhile, wakes up after another
// window delivered the same completion: it must not wake the agent a second time with the claim it lost
// (docs/background-tasks.md, "The outbox"). The frozen window is parked at a point (a promise it waits on) and
// woken by the test; time passes by moving each window's clock, never by waiting.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import { systemClock, type Clock } from '../../../src/extension/core/ports/clock';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import type { StartTurnOptions, StartTurnResult, TurnPort } from '../../../src/extension/core/ports/turns';
import type { LivenessSettings } from '../../../src/extension/core/supervisor/livenessSettings';
import { TurnSupervisor } from '../../../src/extension/core/supervisor/turnSupervisor';
import { completionFor, openWindow, tempStorageRoot, waitForEvent } from '../../fakes/wakeupHarness';
import { FakeAgent } from '../supervisor/fakeAgent';
import { closeSupervisedWindow, wakeupPrompts, type SupervisedWindow } from './supervisedWindows';

const QUIET: LivenessSettings = { enabled: true, timeoutMs: 600_000, toolTimeoutMs: 600_000, graceMs: 5_000 };
const CLAIM_TTL_MS = 60_000;

interface TestWindow extends SupervisedWindow {
  /** Moves this window's clock on (the time it spent frozen). */
  advance(ms: number): void;
}

/** System time plus an offset the test moves. */
function movableClock(): { clock: Clock; advance(ms: number): void } {
  let ahead = 0;
  const clock: Clock = { now: () => systemClock.now() + ahead, wallNow: () => systemClock.wallNow() + ahead, setTimer: systemClock.setTimer };
  return { clock, advance: (ms) => (ahead += ms) };
}

/** A turn port whose wakeup starts stop at a parking point until the test lets the first of them go on. */
function freezingTurns(sup: TurnSupervisor): { turns: TurnPort; frozen: Promise<void>; thaw(): Promise<StartTurnResult> } {
  let parkedAt!: () => void;
  const frozen = new Promise<void>((resolve) => (parkedAt = resolve));
  let go: (() => Promise<StartTurnResult>) | undefined;
  const turns: TurnPort = {
    startTurn: (sessionId: string, prompt: string, options: StartTurnOptions) => {
      if (options.source !== 'wakeup' || go) return sup.startTurn(sessionId, prompt, options);
      return new Promise<StartTurnResult>((resolve) => {
        go = async () => {
          const result = await sup.startTurn(sessionId, prompt, options);
          resolve(result);
          return result;
        };
        parkedAt();
      });
    },
    hasActiveTurn: (sessionId) => sup.hasActiveTurn(sessionId),
    onTurnTeardown: (listener) => sup.onTurnTeardown(listener),
    onTurnEnding: (listener) => sup.onTurnEnding(listener),
    setAdmissionHook: (hook) => sup.setAdmissionHook(hook),
    isPaused: (sessionId) => sup.isPaused(sessionId),
  };
  return { turns, frozen, thaw: () => go!() };
}

describe('a frozen window whose claim lapsed', function () {
  this.timeout(60_000);
  const sid = 'sess-frozen-window';
  let root: string;
  const opened: TestWindow[] = [];

  async function open(windowId: string, turns?: (sup: TurnSupervisor) => TurnPort, leaseTtlMs?: number): Promise<TestWindow> {
    const { clock, advance } = movableClock();
    const agent = new FakeAgent();
    const sup = new TurnSupervisor({ storageRoot: root, clock, logger: silentLogger, agents: agent, settings: () => QUIET, windowId, ...(leaseTtlMs ? { leaseTtlMs } : {}) });
    await sup.sessions.init();
    const win = await openWindow(root, turns ? turns(sup) : sup, { windowId, clock });
    const w = { ...win, sup, agent, advance };
    opened.push(w);
    return w;
  }

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-frozenwin-');
  });

  afterEach(async () => {
    for (const w of opened.splice(0)) await closeSupervisedWindow(w, sid);
    await fs.rm(root, { recursive: true, force: true });
  });

  it('frozen between its drain\'s claim and the wakeup turn, woken after another window delivered it: the agent is woken once', async () => {
    let freezing!: ReturnType<typeof freezingTurns>;
    const a = await open('window-a', (sup) => (freezing = freezingTurns(sup)).turns);
    await a.sup.sessions.create('frozen window', sid);
    const user = await a.sup.startTurn(sid, 'a user message', { source: 'user' });
    assert.equal(user.kind, 'started');
    await a.coordinator.onCompletion(completionFor('t-frozen', sid));
    a.agent.finish();
    await (user as { ended: Promise<unknown> }).ended;
    // A's drain claimed the completion as its turn ended; the window freezes before its wakeup turn starts.
    await freezing.frozen;
    assert.deepEqual((await a.outbox.entries(sid)).map((e) => [e.state, e.claimedBy]), [['claimed', 'window-a']]);

    // B comes after A's claim deadline: it claims the lapsed claim and wakes the agent.
    const b = await open('window-b');
    b.advance(CLAIM_TTL_MS + 1_000);
    await b.coordinator.sweep();
    await waitForEvent(b, (e) => e.type === 'delivered');
    assert.equal(b.agent.prompts, 1, 'B woke the agent');
    b.agent.finish();
    while (b.sup.getSnapshot(sid) !== undefined) await new Promise<void>((resolve) => setImmediate(resolve));
    await b.coordinator.idle();

    // A wakes up (its clock has moved on as much) and goes on with the wakeup turn of the claim it lost.
    a.advance(CLAIM_TTL_MS + 1_000);
    const late = await freezing.thaw();
    await waitForEvent(a, (e) => e.type === 'delivery' && e.trigger === 'teardown');
    await a.coordinator.idle();
    assert.notEqual(late.kind, 'started', 'the frozen window started a wakeup turn with a claim another window had taken');
    assert.equal(a.agent.prompts, 1, 'A prompted its agent with the user turn only');
    assert.equal((await wakeupPrompts(b, sid)).length, 1, 'one wakeup prompt in the transcript');
    assert.deepEqual((await b.outbox.entries(sid)).map((e) => e.state), ['delivered']);
  });
  it('woken as another window claims the lapsed claim, finds the session held and gives it back: the agent is woken once', async () => {
    let freezing!: ReturnType<typeof freezingTurns>;
    const a = await open('window-a', (sup) => (freezing = freezingTurns(sup)).turns);
    await a.sup.sessions.create('frozen window', sid);
    const user = await a.sup.startTurn(sid, 'a user message', { source: 'user' });
    assert.equal(user.kind, 'started');
    await a.coordinator.onCompletion(completionFor('t-given-back', sid));
    a.agent.finish();
    await (user as { ended: Promise<unknown> }).ended;
    await freezing.frozen;

    // Parking points: A's wakeup stops once its lease is taken; B's claim waits until then.
    let leaseTaken!: () => void;
    const taken = new Promise<void>((resolve) => (leaseTaken = resolve));
    let goOn!: () => void;
    const resumed = new Promise<void>((resolve) => (goOn = resolve));
    const acquire = a.sup.lease.acquire.bind(a.sup.lease);
    a.sup.lease.acquire = async (...args) => {
      const got = await acquire(...args);
      leaseTaken();
      await resumed;
      return got;
    };
    const b = await open('window-b');
    b.advance(CLAIM_TTL_MS + 1_000);
    let claiming!: () => void;
    const atClaim = new Promise<void>((resolve) => (claiming = resolve));
    const claim = b.outbox.claim.bind(b.outbox);
    b.outbox.claim = async (...args) => {
      claiming();
      await taken;
      return claim(...args);
    };
    // B finds the session idle and goes to claim; A wakes and takes the lease; B claims the lapsed claim, is refused
    // by A's lease (busy) and gives the completion back; then A goes on with the wakeup of the claim it lost.
    const swept = b.coordinator.sweep();
    await atClaim;
    a.advance(CLAIM_TTL_MS + 1_000);
    const late = freezing.thaw();
    await waitForEvent(b, (e) => e.type === 'delivery' && e.outcome === 'busy');
    goOn();
    await swept;
    await late;
    await waitForEvent(a, (e) => e.type === 'delivery' && e.trigger === 'teardown');
    for (;;) {
      if (a.agent.current) a.agent.finish();
      while (a.sup.getSnapshot(sid) !== undefined) await new Promise<void>((resolve) => setImmediate(resolve));
      await a.coordinator.idle();
      // The idle sweep (every 2 s) delivers what is still pending; asked here instead of waited for.
      await a.coordinator.sweep();
      await a.coordinator.idle();
      if (!a.agent.current && a.sup.getSnapshot(sid) === undefined) break;
    }
    assert.equal((await wakeupPrompts(a, sid)).length, 1, 'one wakeup prompt in the transcript');
    assert.deepEqual((await a.outbox.entries(sid)).map((e) => e.state), ['delivered']);
  });
});
