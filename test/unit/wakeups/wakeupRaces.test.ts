// Races and guards of the delivery rules: teardown interleavings, two windows, the sweep, admission bounds.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { TurnPort } from '../../../src/extension/core/ports/turns';
import { WakeupCoordinator } from '../../../src/extension/core/wakeups/wakeupCoordinator';
import { WakeupOutbox } from '../../../src/extension/core/wakeups/wakeupOutbox';
import { FakeClock } from '../../fakes/fakeClock';
import { FakeTurnPort } from '../../fakes/fakeTurnPort';
import { completionFor, openWindow, pendingKeys, ticks, waitForEvent, windowsPerTest } from '../../fakes/wakeupHarness';

describe('wakeup delivery races and guards', () => {
  const suite = windowsPerTest();
  const open = suite.open;

  it('a completion landing anywhere around a teardown is delivered exactly once (120 interleavings)', async function () {
    this.timeout(120_000);
    const turns = new FakeTurnPort();
    const win = await open(turns);
    for (let i = 0; i < 120; i += 1) {
      const sid = `race-${i}`;
      const turn = turns.beginTurn(sid);
      const completion = completionFor(`t-${i}`, sid);
      const landing = i % 4;
      // 0: before unregistration; 1: between unregistration and the hook; 2: right after the hook; 3: some I/O later.
      const arrive = (async () => {
        if (landing > 0) await ticks(landing === 3 ? 1 + (i % 5) : landing - 1);
        await win.coordinator.onCompletion(completion);
      })();
      const ended = turns.unregister(turn);
      if (landing === 1) await arrive;
      turns.emitTeardown(ended);
      await arrive;
      const wakeup = await turns.waitForCalls((c) => c.some((x) => x.sessionId === sid), 10_000);
      const mine = wakeup.filter((c) => c.sessionId === sid);
      assert.equal(mine.length, 1, `interleaving ${i}: ${mine.length} wakeups`);
      // Let every queued drain of this session finish, then check nothing is left or doubled.
      assert.equal(await win.coordinator.drain(sid), 'active');
      turns.endTurn(mine[0].turnId as string);
      assert.equal(await win.coordinator.drain(sid), 'nothing');
      assert.equal(turns.calls.filter((c) => c.sessionId === sid).length, 1);
    }
  });

  it('two windows draining the same teardown start one wakeup per completion (100 rounds)', async function () {
    this.timeout(120_000);
    // One turn port for both windows stands for the cross-window lease: one turn per session at a time.
    const turns = new FakeTurnPort();
    const a = await open(turns, { windowId: 'a', maxPerTurn: () => 5 });
    const b = await openWindow(suite.root(), new FakeTurnPort(), { windowId: 'b' });
    b.coordinator.dispose();
    // Window b listens to the same teardowns but sees the lease through the shared port.
    const bShared = new WakeupCoordinator({ turns: turnsView(turns), outbox: b.outbox, sweepIntervalMs: 3_600_000 });
    bShared.start();
    try {
      for (let i = 0; i < 100; i += 1) {
        const sid = `two-${i % 10}`;
        const turn = turns.beginTurn(sid);
        await a.coordinator.onCompletion(completionFor(`t-${i}`, sid));
        turns.endTurn(turn);
        const calls = await turns.waitForCalls((c) => c.some((x) => x.prompt.includes(`t-${i} `)), 10_000);
        await Promise.all([a.coordinator.drain(sid), bShared.drain(sid)]);
        const carrying = calls.filter((c) => c.prompt.includes(`t-${i} `) && c.result === 'started');
        assert.equal(carrying.length, 1, `round ${i}: carried ${carrying.length} times`);
        for (const c of calls.filter((x) => x.sessionId === sid && x.turnId && turns.activeTurns(sid).includes(x.turnId))) turns.unregister(c.turnId as string);
      }
      const entries = (await Promise.all(Array.from({ length: 10 }, (_, s) => a.outbox.entries(`two-${s}`)))).flat();
      assert.equal(entries.length, 100);
      assert.ok(entries.every((e) => e.state === 'delivered'), JSON.stringify(entries.filter((e) => e.state !== 'delivered')));
    } finally {
      bShared.dispose();
    }
  });

  it('the idle sweep delivers a completion that went back to pending after the last teardown', async () => {
    const clock = new FakeClock();
    const turns = new FakeTurnPort();
    const win = await open(turns, { clock, sweepIntervalMs: 2_000 });
    const sid = 'sweep';
    turns.script.push('busy');
    await win.coordinator.onCompletion(completionFor('t-late', sid));
    await waitForEvent(win, (e) => e.type === 'delivery' && e.outcome === 'busy');
    assert.deepEqual(await pendingKeys(win, sid), ['t-late:exit']);
    // No teardown will come: only the sweep can deliver it, within one interval.
    await clock.advance(2_000);
    await waitForEvent(win, (e) => e.type === 'delivery' && e.trigger === 'sweep' && e.outcome === 'started');
    assert.equal(turns.wakeupCalls(sid).filter((c) => c.result === 'started').length, 1);
    assert.deepEqual(await pendingKeys(win, sid), []);
  });

  it('a failed wakeup start backs off instead of looping, and is retried after the backoff', async () => {
    const clock = new FakeClock();
    const turns = new FakeTurnPort();
    const win = await open(turns, { clock, sweepIntervalMs: 2_000, failureBackoffMs: 30_000 });
    turns.script.push('failed');
    await win.coordinator.onCompletion(completionFor('t-fail', 'f'));
    await waitForEvent(win, (e) => e.type === 'delivery' && e.outcome === 'failed');
    await clock.advance(2_000);
    await win.coordinator.sweep();
    assert.equal(turns.calls.length, 1, 'retried during the backoff');
    await clock.advance(30_000);
    await win.coordinator.sweep();
    await waitForEvent(win, (e) => e.type === 'delivered');
    assert.equal(turns.calls.length, 2);
  });

  it('teardown never throws into, nor waits for, the ending turn, even when the outbox is broken', async () => {
    const turns = new FakeTurnPort();
    const win = await open(turns);
    const sid = 'broken';
    const turn = turns.beginTurn(sid);
    await win.coordinator.onCompletion(completionFor('t-1', sid));
    // Break the storage: the outbox file becomes unreadable (a folder in its place).
    const file = path.join(suite.root(), 'wakeups', `${sid}.jsonl`);
    await fs.rm(file);
    await fs.mkdir(file);
    // FakeTurnPort rethrows listener errors, so a throwing teardown hook would fail here.
    turns.endTurn(turn);
    const failed = await waitForEvent(win, (e) => e.type === 'delivery' && e.trigger === 'teardown');
    assert.equal(failed.type === 'delivery' && failed.outcome, 'error');
    assert.equal(turns.calls.length, 0);

    // A supervisor whose state never answers: the teardown listener still returns at once, with nothing to await.
    const stuck: TurnPort = { ...turnsView(turns), hasActiveTurn: () => new Promise<boolean>(() => undefined) };
    const outbox = await WakeupOutbox.open({ storageRoot: suite.root(), windowId: 'slow' });
    let teardown!: (e: { sessionId: string; turnId: string; source: 'user'; reason: 'completed' }) => unknown;
    const slow = new WakeupCoordinator({ turns: { ...stuck, onTurnTeardown: (l) => ((teardown = l), () => undefined), setAdmissionHook: () => undefined }, outbox });
    slow.start();
    assert.equal(teardown({ sessionId: 'x', turnId: 'y', source: 'user', reason: 'completed' }), undefined);
    slow.dispose();
  });

  it('a slow outbox never holds a user turn longer than the admission bound', async () => {
    const clock = new FakeClock();
    const turns = new FakeTurnPort();
    const win = await open(turns, { clock, admissionTimeoutMs: 2_000 });
    const sid = 'slow-admission';
    const turn = turns.beginTurn(sid);
    await win.coordinator.onCompletion(completionFor('t-1', sid));
    turns.unregister(turn);
    // Hold the session's outbox lock as another window would, so the hook's claim cannot proceed.
    const lockfile = await import('proper-lockfile');
    const release = await lockfile.lock(path.join(suite.root(), 'wakeups', `${sid}.jsonl`), { realpath: false });
    const user = turns.userTurn(sid);
    // Once the hook armed its bound (the sweep timer is the other one), time passes beyond it.
    while (clock.pendingTimers < 2) await ticks(1);
    await clock.advance(2_000);
    const admitted = await user;
    assert.equal(admitted.prefix, '', 'the turn starts without the completion');
    await release();
    // The late claim is given back, and the completion is delivered once the user turn has ended.
    turns.endTurn(admitted.turnId);
    const delivered = await waitForEvent(win, (e) => e.type === 'delivered', 10_000);
    assert.equal(delivered.type === 'delivered' && delivered.via, 'wakeup');
    assert.equal(turns.wakeupCalls(sid).filter((c) => c.result === 'started').length, 1);
  });

  it('maxPerTurn defaults to 5 and falls back to 5 for invalid values', async () => {
    for (const [setting, expected] of [[undefined, 5], [0, 5], [Number.NaN, 5], [2.5, 5], [2, 2]] as const) {
      const turns = new FakeTurnPort();
      const win = await open(turns, setting === undefined ? {} : { maxPerTurn: () => setting });
      const sid = `max-${String(setting)}`;
      const turn = turns.beginTurn(sid);
      for (let i = 0; i < 7; i += 1) await win.coordinator.onCompletion(completionFor(`m-${i}`, sid));
      turns.endTurn(turn);
      await turns.waitForCalls((c) => c.length === 1);
      await waitForEvent(win, (e) => e.type === 'delivered');
      assert.equal((await pendingKeys(win, sid)).length, 7 - expected, `maxPerTurn ${String(setting)}`);
    }
  });
});

/** A TurnPort view over the shared fake for a second coordinator (it must not replace the first one's hook). */
function turnsView(turns: FakeTurnPort): TurnPort {
  return {
    startTurn: (s, p, o) => turns.startTurn(s, p, o),
    hasActiveTurn: (s) => turns.hasActiveTurn(s),
    onTurnTeardown: (l) => turns.onTurnTeardown(l),
    setAdmissionHook: () => undefined,
    isPaused: (s) => turns.isPaused(s),
  };
}
