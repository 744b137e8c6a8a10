// Invariants of docs/turn-supervisor.md not covered by turnLivenessWatchdog.test.ts: I1, I2, I5, I12–I14, I16.

import * as assert from 'node:assert/strict';
import { ActivityClock } from '../../../src/extension/core/supervisor/activityClock';
import { TurnLeaseStore, type LeaseToken } from '../../../src/extension/core/lease/turnLease';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { writeJsonAtomic } from '../../../src/extension/core/store/atomicFile';
import { leaseFile } from '../../../src/extension/core/store/storePaths';
import { FakeClock, flushMicrotasks } from '../../fakes/fakeClock';
import { Harness, SETTINGS, TTL_MS, waitFor } from './harness';

const TIMEOUT = SETTINGS.timeoutMs;

async function stealLease(h: Harness): Promise<void> {
  const record = (await h.sup.lease.read(h.sessionId))!;
  const thief = { ...record.holder!, windowId: 'window-b', turnId: 'thief' };
  await writeJsonAtomic(leaseFile(h.sup.sessions.root, h.sessionId), { ...record, epoch: record.epoch + 1, holder: thief });
}

describe('turn supervisor invariants', () => {
  it('I1 timeoutSeconds ≤ 0: no watchdog is armed at all', async () => {
    const h = await Harness.create({ enabled: false, timeoutMs: 0 });
    const { ended } = await h.start();
    await h.run(10 * TIMEOUT, 5_000);
    assert.equal(h.of('stallObserved').length, 0);
    assert.equal(h.of('quiet').length, 0);
    h.agent.finish();
    assert.equal((await ended).reason, 'completed');
  });

  it('I2 the clock is stamped at turn entry: a stale clock from an earlier turn never aborts a new one', async () => {
    const h = await Harness.create();
    const first = await h.start();
    h.agent.finish();
    await first.ended;
    await h.clock.advance(3_600_000);
    const second = await h.start();
    await h.run(TIMEOUT - 500);
    assert.equal(h.of('stallObserved').length, 0, 'the idle hour between turns is not silence of this turn');
    assert.equal(h.sup.getSnapshot(h.sessionId)?.lastActivity, 'turn entry');
    h.agent.finish();
    assert.equal((await second.ended).reason, 'completed');
  });

  it('I5 touch() advances the generation, stamps time and description, and clears the claim in one step', async () => {
    const clock = new FakeClock();
    const c = new ActivityClock(clock);
    const g = c.generation;
    assert.equal(c.reserve(g), true);
    assert.equal(c.abortClaim, g);
    await clock.advance(1234);
    c.touch('tool: run_command npm test');
    assert.equal(c.generation, g + 1);
    assert.equal(c.abortClaim, null);
    assert.equal(c.lastActivityAt, 1234);
    assert.equal(c.lastActivity, 'tool: run_command npm test');
    assert.equal(c.consume(g), false, 'a claim cleared by touch() can no longer be consumed');
    assert.equal(c.reserve(g), false, 'nor reserved again for the old generation');
    assert.equal(c.reserve(g + 1) && c.consume(g + 1), true);
  });

  it('I12 the observational surface fires once per generation, and again for a new generation', async () => {
    const h = await Harness.create();
    h.hooks.afterR2 = () => {
      throw new Error('interrupt keeps failing');
    };
    const { ended } = await h.start();
    await h.run(TIMEOUT + 3_000, 250);
    assert.equal(h.of('stallObserved').length, 1);
    h.agent.emit({ description: 'progress' });
    await h.run(TIMEOUT + 250, 250);
    assert.equal(h.of('stallObserved').length, 2);
    h.agent.finish();
    await ended;
  });

  describe('I13 every exit path releases the lease (holder-qualified) and clears only its own interrupt', () => {
    const paths: Array<[string, (h: Harness) => Promise<void>, string]> = [
      ['completed', async (h) => h.agent.finish(), 'completed'],
      ['agent cancelled on its own', async (h) => h.agent.finish('cancelled'), 'cancelled'],
      ['prompt failed', async (h) => h.agent.fail(new Error('model exploded')), 'failed'],
      ['user abort', async (h) => void (await h.sup.abort(h.sessionId)), 'aborted'],
      ['watchdog interrupt', async (h) => h.run(TIMEOUT + 250, 250), 'interrupted'],
      [
        'wedged agent killed after grace',
        async (h) => {
          h.agent.onCancel = 'ignore';
          await h.run(TIMEOUT + SETTINGS.graceMs + 500, 250);
        },
        'interrupted',
      ],
    ];
    for (const [name, drive, reason] of paths) {
      it(`I13 ${name}`, async () => {
        const h = await Harness.create();
        const { ended } = await h.start();
        await drive(h);
        const result = await ended;
        assert.equal(result.reason, reason);
        assert.equal(await h.leaseHolder(), null);
        assert.equal(h.sup.interruptState(h.sessionId), undefined);
        assert.equal(h.sup.getSnapshot(h.sessionId), undefined);
        assert.equal(await h.sup.hasActiveTurn(h.sessionId), false);
      });
    }

    it('I13 the agent cannot even be obtained', async () => {
      const h = await Harness.create();
      h.agent.getError = new Error('agent command not found');
      const r = await h.sup.startTurn(h.sessionId, 'hi', { source: 'user' });
      assert.equal(r.kind, 'started');
      const result = await (r as { ended: Promise<{ reason: string; message?: string }> }).ended;
      assert.equal(result.reason, 'failed');
      assert.match(result.message ?? '', /not found/);
      assert.equal(await h.leaseHolder(), null);
    });

    it('I13 an interrupt state that is not this turn\'s own survives its teardown', async () => {
      const h = await Harness.create();
      const { ended } = await h.start();
      const slot = (h.sup as unknown as { slots: Map<string, { interrupt: { state?: { turnId: string } } }> }).slots.get(h.sessionId)!;
      const foreign = { turnId: 'another-turn', cause: 'user', message: 'x', toolReason: 'x', hardCancel: new AbortController().signal };
      slot.interrupt.state = foreign;
      h.agent.finish();
      await ended;
      assert.equal(slot.interrupt.state, foreign);
    });

    it('I13 a release with a stale token never releases the current holder', async () => {
      const h = await Harness.create();
      const { ended } = await h.start();
      await stealLease(h);
      h.agent.finish();
      await ended;
      assert.equal(await h.leaseHolder(), 'thief');
    });
  });

  it('I14 a lease loss during an active turn always interrupts it', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    await h.run(1_000);
    await stealLease(h);
    await h.run(TTL_MS / 3 + 100);
    const result = await ended;
    assert.equal(h.of('leaseLost').length, 1);
    assert.equal(h.of('abortCommitted')[0]?.cause, 'leaseLost');
    assert.equal(result.reason, 'interrupted');
    assert.equal(result.message, 'Stopped: another window took this session over');
    assert.equal(h.of('leaseLost')[0].message, 'Session turn lease lost');
    assert.equal(await h.leaseHolder(), 'thief', 'the new holder keeps its lease');
  });

  it('I14 a transcript write refused for a stale epoch is a lease loss too', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    await stealLease(h);
    h.agent.emit({ description: 'model: streaming', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } });
    const result = await ended;
    assert.equal(result.reason, 'interrupted');
    assert.equal(h.of('leaseLost').length, 1);
  });

  it('I14 a refresh miss after deactivation is not a loss, and the next turn is never hit', async () => {
    const h = await Harness.create();
    const lease = h.sup.lease;
    const refresh = lease.refresh.bind(lease);
    let gate!: () => void;
    const parked = new Promise<void>((r) => (gate = r));
    let parkedOnce = false;
    lease.refresh = async (token: LeaseToken) => {
      if (!parkedOnce) {
        parkedOnce = true;
        await parked;
      }
      return refresh(token);
    };
    const first = await h.start();
    await h.clock.advance(TTL_MS / 3);
    assert.equal(parkedOnce, true, 'a refresh is in flight');
    await h.sup.abort(h.sessionId, 'stop');
    assert.equal((await first.ended).reason, 'aborted');
    const second = await h.start();
    gate();
    await waitFor(() => h.refreshes.length >= 1, 'the stale refresh to answer');
    assert.equal(h.refreshes[0].result, 'lost', 'the parked refresh did miss');
    await h.run(2 * TTL_MS);
    assert.equal(h.of('leaseLost').length, 0);
    assert.equal(h.sup.interruptState(h.sessionId), undefined);
    h.agent.finish();
    assert.equal((await second.ended).reason, 'completed');
  });

  describe('I16 waiting for a session busy in another window', () => {
    async function otherWindowHolds(h: Harness): Promise<void> {
      const other = new TurnLeaseStore(h.sup.sessions.root, h.clock, silentLogger, { ttlMs: 3_600_000 });
      const r = await other.acquire(h.sessionId, other.holderFor('window-b', 'their-turn'));
      assert.equal(r.kind, 'acquired');
    }
    const busyWait = { retryMs: 1_000, noticeEveryMs: 3_000, maxWaitMs: 20_000 };

    it('I16 a waiting acquire reports at the notice cadence and returns at once when its turn is aborted', async () => {
      const h = await Harness.create({}, { busyWait });
      await otherWindowHolds(h);
      let settled: { kind: string; reason?: string } | undefined;
      void h.sup.startTurn(h.sessionId, 'hi', { source: 'user' }).then((r) => (settled = r as typeof settled));
      await waitFor(() => h.of('busyWaiting').length === 1, 'the first busy notice');
      assert.match(h.of('busyWaiting')[0].message, /busy in another window/);
      assert.equal(await h.sup.hasActiveTurn(h.sessionId), true);
      for (let i = 0; i < 6; i += 1) {
        await waitFor(() => h.clock.pendingTimers === 1, 'the retry timer');
        await h.clock.advance(1_000);
      }
      await waitFor(() => h.clock.pendingTimers === 1, 'the retry timer');
      assert.deepEqual(h.of('busyWaiting').map((e) => e.waitedMs), [0, 3_000, 6_000], 'first miss, then every 3 s');
      assert.equal(await h.sup.abort(h.sessionId), true);
      await flushMicrotasks();
      await waitFor(() => settled !== undefined, 'the aborted wait to return');
      assert.equal(settled?.kind, 'failed');
      assert.match(settled?.reason ?? '', /Aborted while waiting/);
      assert.equal(h.agent.prompts, 0);
    });

    it('I16 the caller\'s AbortSignal ends the wait too, and a long wait fails with a retryable "session busy"', async () => {
      const h = await Harness.create({}, { busyWait });
      await otherWindowHolds(h);
      const controller = new AbortController();
      const waiting = h.sup.startTurn(h.sessionId, 'hi', { source: 'user', signal: controller.signal });
      await waitFor(() => h.of('busyWaiting').length === 1, 'busy notice');
      controller.abort();
      assert.equal((await waiting).kind, 'failed');
      let r: Awaited<ReturnType<typeof h.sup.startTurn>> | undefined;
      void h.sup.startTurn(h.sessionId, 'hi', { source: 'user' }).then((x) => (r = x));
      while (r === undefined) {
        await waitFor(() => h.clock.pendingTimers === 1 || r !== undefined, 'the retry timer');
        if (r === undefined) await h.clock.advance(1_000);
      }
      assert.equal(r.kind, 'failed');
      assert.ok(h.clock.now() >= busyWait.maxWaitMs, 'failed only after the bound');
      assert.match((r as { reason: string }).reason, /Session busy.*Try again/);
    });

    it('I16 a wakeup turn does not wait: busy at once, no notice', async () => {
      const h = await Harness.create({}, { busyWait });
      await otherWindowHolds(h);
      assert.deepEqual(await h.sup.startTurn(h.sessionId, 'wake', { source: 'wakeup' }), { kind: 'busy' });
      assert.equal(h.of('busyWaiting').length, 0);
    });
  });
});
