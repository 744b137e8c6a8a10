// The watchdog scenarios of docs/turn-supervisor.md (I3, I4, I6–I11), against Vigil's supervisor.

import * as assert from 'node:assert/strict';
import { Harness, SETTINGS, TTL_MS, waitFor } from './harness';
import { ParkingPoint } from './parking';

const TIMEOUT = SETTINGS.timeoutMs;
const REFRESH_INTERVAL = TTL_MS / 3;

describe('turn liveness watchdog (ported from the reference suite)', () => {
  it('I4 force-aborts a silently stalled turn within [timeout, timeout + 250 ms], "no progress", ends interrupted', async () => {
    const h = await Harness.create();
    const seen: { at?: number; message?: string; live?: string } = {};
    h.hooks.onPublished = (_ctx, state) => {
      seen.at = h.clock.now();
      seen.message = state.message;
      seen.live = h.sup.interruptState(h.sessionId)?.message;
    };
    const { ended } = await h.start();
    const entry = h.clock.now();
    await h.run(TIMEOUT - 500);
    assert.equal(h.of('stallObserved').length, 0, 'no stall before the bound');
    await h.run(750, 250);
    const result = await ended;
    assert.ok(seen.at !== undefined, 'the watchdog published an interrupt');
    assert.ok(seen.at - entry >= TIMEOUT && seen.at - entry <= TIMEOUT + 250, `fired ${seen.at - entry} ms after entry`);
    assert.match(seen.message ?? '', /no progress/);
    assert.equal(seen.live, seen.message, 'the published state was visible while the turn ran');
    assert.equal(result.reason, 'interrupted');
    assert.match(result.message ?? '', /no progress/);
    assert.ok(h.logged('error', 'Turn liveness watchdog fired', 'stalled-session'));
    assert.equal(h.sup.interruptState(h.sessionId), undefined, 'cleared by the turn\'s finally');
    assert.equal(await h.leaseHolder(), null, 'lease released on the interrupted exit path');
  });

  it('I3 does not fire while the turn keeps making progress, and the lease keeps renewing', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    for (let i = 0; i < 15; i += 1) {
      await h.run(2_000);
      h.agent.emit({ description: `tick ${i}` });
    }
    h.agent.finish();
    const result = await ended;
    assert.equal(result.reason, 'completed');
    assert.equal(h.of('stallObserved').length, 0);
    assert.equal(h.sup.interruptState(h.sessionId), undefined);
    assert.ok(!h.logged('error', 'Turn liveness watchdog fired'));
    assert.ok(h.refreshes.filter((r) => r.result === 'ok').length >= 20, `refreshes: ${h.refreshes.length}`);
    assert.equal(await h.leaseHolder(), null);
  });

  it('I10 stops lease renewal when the interrupt cannot unwind a wedge (renewal stops before the definitive notice)', async () => {
    const h = await Harness.create();
    h.agent.onCancel = 'ignore';
    let renewingAtNotice: boolean | undefined;
    let committedAt: number | undefined;
    h.sup.subscribe((e) => {
      if (e.type !== 'abortCommitted') return;
      committedAt = h.clock.now();
      renewingAtNotice = h.sup.getSnapshot(h.sessionId)?.leaseRenewing;
    });
    const { ended } = await h.start();
    await h.run(TIMEOUT + 250, 250);
    assert.ok(committedAt !== undefined, 'abort committed');
    assert.equal(renewingAtNotice, false, 'renewal had stopped when the definitive notice went out');
    // The wedge keeps going: no refresh may start later than one interval after the commit.
    await h.run(SETTINGS.graceMs + 1_000);
    const result = await ended;
    assert.deepEqual(h.refreshStarts.filter((t) => t > committedAt! + REFRESH_INTERVAL), []);
    assert.ok(h.agent.calls.includes('cancel') && h.agent.calls.includes('kill'), `calls: ${h.agent.calls}`);
    assert.equal(result.reason, 'interrupted');
    assert.equal(await h.leaseHolder(), null, 'still released when the turn unwound');
  });

  it('I6 declines the abort when activity resumes during the stall warning; nothing definitive is said', async () => {
    const h = await Harness.create();
    const published: string[] = [];
    h.hooks.onPublished = (_c, s) => void published.push(s.message);
    h.sup.subscribe((e) => {
      // The warning's delivery is what unblocks the wedge: activity lands inside the observe window.
      if (e.type === 'stallObserved') h.agent.emit({ description: 'turn resumed' });
    });
    const { ended } = await h.start();
    await h.run(TIMEOUT + 250, 250);
    const refreshesAtStall = h.refreshes.length;
    for (let i = 0; i < 4; i += 1) {
      await h.run(1_000);
      h.agent.emit({ description: 'still alive' });
    }
    h.agent.finish();
    const result = await ended;
    assert.equal(h.of('stallObserved').length, 1, 'the stall was surfaced');
    assert.ok(h.logged('error', 'Turn liveness watchdog fired', 'stalled-session', 'attempting recovery'));
    assert.deepEqual(published, []);
    assert.equal(h.of('abortCommitted').length, 0, 'a declined abort never emits the definitive notice');
    assert.ok(!h.logged('error', 'watchdog aborted turn'));
    assert.equal(result.reason, 'completed');
    assert.ok(h.refreshes.length > refreshesAtStall, 'lease kept renewing');
    assert.equal(await h.leaseHolder(), null);
  });

  it('I6 declines when activity lands while the observation is parked (afterObserve)', async () => {
    const h = await Harness.create();
    const park = new ParkingPoint();
    h.hooks.afterObserve = park.hook;
    const { ended } = await h.start();
    await h.run(TIMEOUT, 250);
    await park.parked;
    h.agent.emit({ description: 'turn resumed' });
    park.release();
    await h.run(1_000);
    h.agent.finish();
    assert.equal((await ended).reason, 'completed');
    assert.equal(h.of('abortCommitted').length, 0);
  });

  it('I11 publishes the definitive settlement only after the commit, after the observational one', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    await h.run(TIMEOUT + 250, 250);
    const result = await ended;
    assert.equal(result.reason, 'interrupted');
    const kinds = h.events.map((e) => e.type).filter((t) => t === 'stallObserved' || t === 'abortCommitted');
    assert.deepEqual(kinds, ['stallObserved', 'abortCommitted']);
    // What a person reads: a one-line summary in the words of the status line, the facts and the mechanism folded under it.
    const [stall] = h.of('stallObserved');
    assert.equal(stall.message, 'Stalled: no progress for 10 s');
    assert.match(stall.detail, /^No progress for 10 s \(waiting on: \w+\)\. Vigil is stopping the turn/);
    assert.match(stall.detail, /attempting recovery/);
    assert.doesNotMatch(`${stall.message} ${stall.detail}`, /abort|stopped/i, 'the observational surface never says anything was aborted');
    const [stop] = h.of('abortCommitted');
    assert.equal(stop.message, 'Stopped: no progress for 10 s');
    assert.match(stop.detail, /^No progress for 10 s \(waiting on: \w+\)\. What the turn did before it stopped is kept\. Resume continues it/);
    assert.match(stop.detail, /Turn aborted by the liveness watchdog \(10 s without progress\); lease renewal stopped so the session can be reclaimed\./);
    assert.match(result.message ?? '', /no progress/, 'the published interrupt message says "no progress"');
    assert.ok(h.logged('error', 'Turn liveness watchdog fired', 'attempting recovery'));
    assert.ok(h.logged('error', 'watchdog aborted turn', 'lease renewal stopped'));
    assert.equal(await h.leaseHolder(), null);
  });

  it('I6 declines when activity resumes after revalidation (between R1 and R2)', async () => {
    const h = await Harness.create();
    let injected = 0;
    h.hooks.afterR1 = () => {
      injected += 1;
      h.agent.emit({ description: 'resumed after revalidation' });
    };
    const published: string[] = [];
    h.hooks.onPublished = (_c, s) => void published.push(s.message);
    const { ended } = await h.start();
    await h.run(TIMEOUT + 250, 250);
    await h.run(2_000);
    h.agent.finish();
    const result = await ended;
    assert.ok(injected >= 1, 'the window was hit');
    assert.deepEqual(published, []);
    assert.equal(result.reason, 'completed');
    assert.equal(h.of('abortCommitted').length, 0);
    assert.ok(h.refreshes.filter((r) => r.result === 'ok').length >= 10);
    assert.equal(await h.leaseHolder(), null);
  });

  it('I6 declines when activity resumes inside the interrupt publication window (barrier wait) — 200 runs', async function () {
    this.timeout(120_000);
    const h = await Harness.create();
    for (let i = 0; i < 200; i += 1) {
      h.agent.calls.length = 0;
      const waits = new ParkingPoint();
      h.hooks.insideBarrierWait = waits.hook;
      const published: string[] = [];
      h.hooks.onPublished = (_c, s) => void published.push(s.message);
      const { ended } = await h.start();
      // An in-flight commit (e.g. a file edit being applied) that the abort must wait for.
      const commit = h.sup.reserveBarrier(h.sessionId, 'apply edit')!;
      assert.equal(commit.begin(), true);
      await h.clock.advance(TIMEOUT);
      await waits.parked;
      h.agent.emit({ description: 'resumed inside interrupt publication window' });
      commit.finish();
      waits.release();
      await waitFor(() => h.sup.getSnapshot(h.sessionId)?.phase === 'running' && waits.calls === 1, 'the parked abort to finish');
      await h.clock.advance(1_000);
      const state = h.sup.interruptState(h.sessionId);
      h.agent.finish();
      const result = await ended;
      assert.equal(waits.calls, 1, `iteration ${i}: unexpected barrier-wait admissions`);
      assert.equal(state, undefined, `iteration ${i}: interrupt state published against a stale generation`);
      assert.deepEqual(published, [], `iteration ${i}`);
      assert.ok(!h.agent.calls.includes('cancel'), `iteration ${i}: hard cancel sent`);
      assert.equal(result.reason, 'completed', `iteration ${i}`);
    }
    assert.equal(h.of('abortCommitted').length, 0);
    assert.equal(await h.leaseHolder(), null);
  });

  it('I9 declines fail-closed when the interrupt throws: nothing published, lease keeps renewing', async () => {
    const h = await Harness.create();
    let raised = 0;
    h.hooks.afterR2 = () => {
      raised += 1;
      throw new Error('synthetic interrupt publication failure');
    };
    const published: string[] = [];
    h.hooks.onPublished = (_c, s) => void published.push(s.message);
    const { ended } = await h.start();
    await h.run(TIMEOUT + 250, 250);
    const okBefore = h.refreshes.filter((r) => r.result === 'ok').length;
    await h.run(3_000, 250);
    assert.ok(raised >= 2, `the abort was retried (raised ${raised})`);
    assert.equal(h.sup.interruptState(h.sessionId), undefined);
    assert.deepEqual(published, []);
    assert.equal(h.sup.getSnapshot(h.sessionId)?.leaseRenewing, true);
    assert.ok(h.refreshes.filter((r) => r.result === 'ok').length > okBefore, 'lease kept renewing');
    assert.equal(h.of('stallObserved').length, 1, 'I12: surfaced once for the generation despite retries');
    h.agent.finish();
    const result = await ended;
    assert.equal(result.reason, 'completed');
    assert.ok(h.logged('error', 'Turn liveness watchdog fired', 'stalled-session'));
    assert.equal(h.of('abortCommitted').length, 0);
    assert.equal(await h.leaseHolder(), null);
  });

  it('I9 escalates to a process-tree kill after a further grace of silence when the interrupt keeps throwing', async () => {
    const h = await Harness.create();
    h.agent.onCancel = 'ignore';
    h.hooks.afterR2 = () => {
      throw new Error('synthetic interrupt publication failure');
    };
    const { ended } = await h.start();
    await h.run(TIMEOUT + SETTINGS.graceMs - 1_000, 250);
    assert.ok(!h.agent.calls.includes('kill'), 'no kill before the further grace');
    await h.run(2_000, 250);
    const result = await ended;
    assert.ok(h.agent.calls.includes('kill'));
    assert.match(h.of('escalated')[0].detail ?? '', /interrupt kept failing/);
    assert.equal(result.reason, 'interrupted');
    assert.equal(await h.leaseHolder(), null);
  });

  it('I7 consumes the claim and publishes the first state atomically (activity at the consume/publish edge) — 200 runs', async function () {
    this.timeout(120_000);
    const h = await Harness.create();
    for (let i = 0; i < 200; i += 1) {
      const edge = new ParkingPoint();
      h.hooks.atConsumePublishEdge = edge.hook;
      let publishedAfterTouch = false;
      let touched = false;
      h.hooks.onPublished = () => void (publishedAfterTouch ||= touched);
      const { ended } = await h.start();
      await h.clock.advance(TIMEOUT);
      await edge.parked;
      h.agent.emit({ description: 'turn resumed' });
      touched = true;
      edge.release();
      await waitFor(() => h.logged('info', 'declined'), 'the parked abort to decline');
      h.logs.length = 0;
      h.agent.finish();
      const result = await ended;
      assert.equal(publishedAfterTouch, false, `iteration ${i}: interrupt state published after a competing touch()`);
      assert.equal(result.reason, 'completed', `iteration ${i}`);
    }
  });

  it('I7 a committed abort publishes while the clock still reads the claimed generation', async () => {
    const h = await Harness.create();
    const checks: boolean[] = [];
    h.hooks.onPublished = (ctx) => void checks.push(h.sup.getSnapshot(h.sessionId)?.generation === ctx.generation);
    const { ended } = await h.start();
    await h.run(TIMEOUT, 250);
    await ended;
    assert.deepEqual(checks, [true]);
  });

  it('I8 a declined abort does not cancel a pending commit barrier', async () => {
    const h = await Harness.create();
    h.hooks.afterR2 = () => h.agent.emit({ description: 'turn resumed' });
    const { ended } = await h.start();
    const pending = h.sup.reserveBarrier(h.sessionId, 'compaction')!;
    await h.run(TIMEOUT + 250, 250);
    assert.equal(h.sup.interruptState(h.sessionId), undefined, 'declined');
    assert.equal(pending.begin(), true, 'the pending commit still begins');
    pending.finish();
    h.agent.finish();
    assert.equal((await ended).reason, 'completed');
  });

  it('I8 a declined abort parked on an in-flight barrier leaves the barriers operational', async () => {
    const h = await Harness.create();
    const wait = new ParkingPoint();
    h.hooks.insideBarrierWait = wait.hook;
    const { ended } = await h.start();
    const inFlight = h.sup.reserveBarrier(h.sessionId, 'compaction')!;
    assert.equal(inFlight.begin(), true);
    await h.clock.advance(TIMEOUT);
    await wait.parked;
    h.agent.emit({ description: 'turn resumed mid-wait' });
    inFlight.finish();
    wait.release();
    await waitFor(() => h.logged('info', 'declined'), 'decline');
    const fresh = h.sup.reserveBarrier(h.sessionId, 'compaction')!;
    assert.equal(fresh.begin(), true, 'a fresh barrier still begins');
    fresh.finish();
    h.agent.finish();
    assert.equal((await ended).reason, 'completed');
  });

  it('I8 a committed abort cancels a pending barrier only after publishing', async () => {
    const h = await Harness.create();
    let cancelledAtPublish: boolean | undefined;
    const { ended } = await h.start();
    const pending = h.sup.reserveBarrier(h.sessionId, 'compaction')!;
    h.hooks.onPublished = () => void (cancelledAtPublish = pending.cancelled);
    await h.run(TIMEOUT, 250);
    await ended;
    assert.equal(cancelledAtPublish, false);
    assert.equal(pending.begin(), false, 'cancelled after the claim survived');
  });
});
