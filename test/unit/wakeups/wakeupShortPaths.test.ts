// The two short paths of a wakeup: an idle session's completion stored and claimed in one append, and the
// teardown drain's claim taken while the ending turn still writes its end record and releases its lease.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { WakeupOutbox, type ClaimOptions } from '../../../src/extension/core/wakeups/wakeupOutbox';
import { FakeClock } from '../../fakes/fakeClock';
import { FakeTurnPort } from '../../fakes/fakeTurnPort';
import { SupervisorTurnPort } from '../../fakes/supervisorTurnPort';
import { completionFor, pendingKeys, ticks, waitForEvent, windowsPerTest } from '../../fakes/wakeupHarness';

const claimAll: ClaimOptions = { max: 5, ttlMs: 60_000 };

/** The outbox file's ops, in order. */
async function ops(root: string, sessionId: string): Promise<Array<{ op: string; key?: string; keys?: string[] }>> {
  const text = await fs.readFile(path.join(root, 'wakeups', `${encodeURIComponent(sessionId)}.jsonl`), 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { op: string; key?: string; keys?: string[] });
}

/** Resolves once the outbox's next `claim()` has finished. */
function claimDone(outbox: WakeupOutbox): Promise<void> {
  return new Promise<void>((resolve) => {
    const claim = outbox.claim.bind(outbox);
    outbox.claim = async (sessionId, options) => {
      const got = await claim(sessionId, options);
      resolve();
      return got;
    };
  });
}

describe('wakeup short paths', () => {
  const suite = windowsPerTest();
  const open = suite.open;

  describe('the outbox: enqueue and claim in one append', () => {
    it('stores the completion and claims it after the older pending ones, in one append', async () => {
      const outbox = await WakeupOutbox.open({ storageRoot: suite.root(), windowId: 'w1' });
      await outbox.enqueue(completionFor('older', 's'));
      const got = await outbox.enqueueAndClaim(completionFor('new', 's'), Promise.resolve(claimAll));
      assert.equal(got.fresh, true);
      assert.deepEqual(got.claim?.keys, ['older:exit', 'new:exit']);
      assert.deepEqual(got.claim?.completions.map((c) => c.taskId), ['older', 'new']);
      const written = await ops(suite.root(), 's');
      assert.deepEqual(written.map((o) => o.op), ['enqueue', 'enqueue', 'claim']);
      // A fresh outbox instance (another window) folds the same state from the file.
      const other = await WakeupOutbox.open({ storageRoot: suite.root(), windowId: 'w2' });
      assert.deepEqual((await other.entries('s')).map((e) => [e.key, e.state, e.claimedBy]), [
        ['older:exit', 'claimed', 'w1'],
        ['new:exit', 'claimed', 'w1'],
      ]);
    });

    it('claims at most `max`, oldest first: the new completion waits when the claim is full', async () => {
      const outbox = await WakeupOutbox.open({ storageRoot: suite.root(), windowId: 'w1' });
      for (const id of ['a', 'b']) await outbox.enqueue(completionFor(id, 's'));
      const got = await outbox.enqueueAndClaim(completionFor('c', 's'), Promise.resolve({ max: 2, ttlMs: 60_000 }));
      assert.deepEqual(got.claim?.keys, ['a:exit', 'b:exit']);
      assert.deepEqual((await outbox.entries('s')).map((e) => e.state), ['claimed', 'claimed', 'pending']);
    });

    it('stores without claiming when told not to claim, or when the decision fails', async () => {
      const outbox = await WakeupOutbox.open({ storageRoot: suite.root(), windowId: 'w1' });
      const quiet = await outbox.enqueueAndClaim(completionFor('a', 's'), Promise.resolve(undefined));
      assert.deepEqual(quiet, { fresh: true, claim: undefined });
      const failed = await outbox.enqueueAndClaim(completionFor('b', 's'), Promise.reject(new Error('the lease could not be read')));
      assert.deepEqual(failed, { fresh: true, claim: undefined });
      assert.deepEqual((await ops(suite.root(), 's')).map((o) => o.op), ['enqueue', 'enqueue']);
      assert.deepEqual(await outbox.entries('s').then((es) => es.map((e) => e.state)), ['pending', 'pending']);
    });

    it('a duplicate is not stored again, and claims nothing that was delivered', async () => {
      const outbox = await WakeupOutbox.open({ storageRoot: suite.root(), windowId: 'w1' });
      const first = await outbox.enqueueAndClaim(completionFor('a', 's'), Promise.resolve(claimAll));
      await outbox.deliver(first.claim!);
      const again = await outbox.enqueueAndClaim(completionFor('a', 's'), Promise.resolve(claimAll));
      assert.deepEqual(again, { fresh: false, claim: undefined });
      assert.deepEqual((await ops(suite.root(), 's')).map((o) => o.op), ['enqueue', 'claim', 'deliver']);
    });
  });

  describe('an idle session', () => {
    it('a completion is stored, claimed and started with no claim of its own, and reported in order', async () => {
      const turns = new FakeTurnPort();
      const win = await open(turns);
      const claimed: string[] = [];
      const claim = win.outbox.claim.bind(win.outbox);
      win.outbox.claim = (sessionId, options) => {
        claimed.push(sessionId);
        return claim(sessionId, options);
      };
      await win.coordinator.onCompletion(completionFor('t1', 'idle'));
      // Resolved once stored: the file holds it already.
      assert.ok((await ops(suite.root(), 'idle')).some((o) => o.op === 'enqueue' && o.key === 't1:exit'));
      await waitForEvent(win, (e) => e.type === 'delivery');
      assert.equal(turns.wakeupCalls('idle').length, 1);
      assert.deepEqual(claimed, [], 'the short path claims in the enqueue');
      assert.deepEqual((await ops(suite.root(), 'idle')).map((o) => o.op), ['enqueue', 'claim', 'deliver']);
      assert.deepEqual(
        win.events.map((e) => e.type + (e.type === 'delivery' ? `:${e.trigger}:${e.outcome}` : '')),
        ['enqueued', 'delivered', 'delivery:completion:started'],
      );
    });

    it('a session with an active turn, a pause, or in another folder is stored and not claimed', async () => {
      const turns = new FakeTurnPort();
      const win = await open(turns, { mayDeliver: (sid) => sid !== 'elsewhere' });
      turns.beginTurn('active');
      turns.setPaused('held', true);
      for (const sid of ['active', 'held', 'elsewhere']) await win.coordinator.onCompletion(completionFor(`t-${sid}`, sid));
      for (const [sid, outcome] of [['active', 'active'], ['held', 'held'], ['elsewhere', 'elsewhere']]) {
        const e = await waitForEvent(win, (x) => x.type === 'delivery' && x.sessionId === sid);
        assert.equal(e.type === 'delivery' && e.outcome, outcome);
        assert.deepEqual((await ops(suite.root(), sid)).map((o) => o.op), ['enqueue']);
      }
      assert.equal(turns.calls.length, 0);
    });

    it('completions arriving together: each stored at once, each delivered exactly once (20 rounds)', async function () {
      this.timeout(60_000);
      const turns = new FakeTurnPort();
      const win = await open(turns);
      for (let round = 0; round < 20; round += 1) {
        const sid = `burst-${round}`;
        await Promise.all([0, 1, 2].map((i) => win.coordinator.onCompletion(completionFor(`t${i}`, sid))));
        // Every one is stored when its promise resolves, whichever path it took.
        assert.deepEqual((await win.outbox.entries(sid)).map((e) => e.key).sort(), ['t0:exit', 't1:exit', 't2:exit']);
        const carried = new Set<string>();
        while (carried.size < 3) {
          const calls = await turns.waitForCalls((c) => c.filter((x) => x.sessionId === sid && x.result === 'started').length > 0);
          const open = calls.filter((c) => c.sessionId === sid && c.result === 'started' && turns.activeTurns(sid).includes(c.turnId as string));
          assert.equal(open.length, 1, `round ${round}: one wakeup turn at a time`);
          for (const m of open[0].prompt.matchAll(/Background task (t\d)/g)) {
            assert.ok(!carried.has(m[1]), `round ${round}: ${m[1]} delivered twice`);
            carried.add(m[1]);
          }
          const before = turns.calls.length;
          turns.endTurn(open[0].turnId as string);
          if (carried.size < 3) await turns.waitForCalls((c) => c.length > before);
        }
        await win.coordinator.idle();
        assert.deepEqual(await pendingKeys(win, sid), []);
      }
    });
  });

  describe('an idle session with the real supervisor', () => {
    it('the wakeup turn takes its lease while the claim is being written', async function () {
      this.timeout(60_000);
      const turns = new SupervisorTurnPort(suite.root());
      await turns.init();
      try {
        const win = await open(turns);
        const sid = 'overlap';
        await turns.sup.sessions.create('overlap', sid);
        let acquiring!: () => void;
        const acquireStarted = new Promise<void>((resolve) => (acquiring = resolve));
        const acquire = turns.sup.lease.acquire.bind(turns.sup.lease);
        turns.sup.lease.acquire = (s, holder) => {
          acquiring();
          return acquire(s, holder);
        };
        let overlapped: boolean | undefined;
        const enqueueAndClaim = win.outbox.enqueueAndClaim.bind(win.outbox);
        win.outbox.enqueueAndClaim = async (c, claimWith) => {
          const taken = await enqueueAndClaim(c, claimWith);
          // Held until the lease is asked for: one that is asked only after the claim (in sequence) never is.
          overlapped = await Promise.race([acquireStarted.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3_000))]);
          return taken;
        };
        await win.coordinator.onCompletion(completionFor('t1', sid));
        await waitForEvent(win, (e) => e.type === 'delivered' && e.via === 'wakeup');
        assert.equal(overlapped, true);
        const [call] = turns.wakeupCalls(sid);
        assert.ok(call.prompt.startsWith('[IMPORTANT: Background task t1'), call.prompt);
      } finally {
        await turns.close();
      }
    });

    it('a duplicate of a delivered completion starts no turn and leaves the lease free', async function () {
      this.timeout(60_000);
      const turns = new SupervisorTurnPort(suite.root());
      await turns.init();
      try {
        const win = await open(turns);
        const sid = 'dup';
        await win.coordinator.onCompletion(completionFor('t1', sid));
        const [call] = await turns.waitForCalls((c) => c.length === 1);
        await waitForEvent(win, (e) => e.type === 'delivered');
        await turns.endTurn(call.turnId as string);
        await win.coordinator.idle();
        const mark = win.events.length;
        await win.coordinator.onCompletion(completionFor('t1', sid));
        const again = await waitForEvent(win, (e) => e.type === 'delivery' && e.trigger === 'completion', 15_000, mark);
        assert.equal(again.type === 'delivery' && again.outcome, 'nothing');
        assert.equal(turns.wakeupCalls(sid).filter((c) => c.result === 'started').length, 1);
        assert.equal(await turns.sup.lease.liveHolder(sid), undefined);
        assert.equal(await turns.sup.hasActiveTurn(sid), false);
      } finally {
        await turns.close();
      }
    });
  });

  describe('the teardown drain of a turn that is ending', () => {
    it('claims while the turn ends, starts the wakeup after its teardown, and asks nothing more at the teardown', async () => {
      const turns = new FakeTurnPort();
      const win = await open(turns);
      const sid = 'ending';
      const turn = turns.beginTurn(sid);
      await win.coordinator.onCompletion(completionFor('t1', sid));
      await waitForEvent(win, (e) => e.type === 'delivery' && e.outcome === 'active');
      const claimedEarly = claimDone(win.outbox);
      turns.announceEnding(turn);
      await claimedEarly;
      assert.deepEqual((await win.outbox.entries(sid)).map((e) => e.state), ['claimed']);
      assert.equal(turns.calls.length, 0, 'nothing starts while the turn is still ending');
      turns.endTurn(turn);
      await waitForEvent(win, (e) => e.type === 'delivered');
      assert.equal(turns.wakeupCalls(sid).length, 1);
      await win.coordinator.idle();
      const drains = win.events.filter((e) => e.type === 'delivery' && e.trigger === 'teardown');
      assert.deepEqual(drains.map((e) => e.type === 'delivery' && e.outcome), ['started']);
    });

    it('a completion landing anywhere around an announced end is delivered exactly once (120 interleavings)', async function () {
      this.timeout(120_000);
      const turns = new FakeTurnPort();
      const win = await open(turns);
      for (let i = 0; i < 120; i += 1) {
        const sid = `race-${i}`;
        const turn = turns.beginTurn(sid);
        const landing = i % 5;
        // 0: before the ending; 1: between ending and unregistration; 2: between unregistration and teardown;
        // 3: right after the teardown; 4: some I/O later.
        const arrive = async () => {
          if (landing >= 3) await ticks(landing === 4 ? 1 + (i % 7) : 0);
          await win.coordinator.onCompletion(completionFor(`t-${i}`, sid));
        };
        let arrived: Promise<void> | undefined;
        if (landing === 0) await arrive();
        turns.announceEnding(turn);
        if (landing === 1) arrived = arrive();
        await ticks(i % 3);
        const ended = turns.unregister(turn);
        if (landing === 2) await arrive();
        turns.emitTeardown(ended);
        if (landing >= 3) await arrive();
        await arrived;
        const [call] = (await turns.waitForCalls((c) => c.some((x) => x.sessionId === sid), 10_000)).filter((c) => c.sessionId === sid);
        assert.equal(call.result, 'started', `interleaving ${i}`);
        turns.endTurn(call.turnId as string);
        await win.coordinator.idle();
        assert.equal(await win.coordinator.drain(sid), 'nothing');
        assert.equal(turns.calls.filter((c) => c.sessionId === sid).length, 1, `interleaving ${i}: not exactly one wakeup`);
        assert.deepEqual(await pendingKeys(win, sid), []);
      }
    });

    it('a pause lifted by the ending turn: nothing is claimed early, and the drain after the teardown delivers', async () => {
      const turns = new FakeTurnPort();
      const win = await open(turns);
      const sid = 'paused';
      turns.setPaused(sid, true);
      const turn = turns.beginTurn(sid);
      await win.coordinator.onCompletion(completionFor('t1', sid));
      await win.coordinator.idle();
      const asked = new Promise<void>((resolve) => {
        const isPaused = turns.isPaused.bind(turns);
        turns.isPaused = (s) => {
          const paused = isPaused(s);
          resolve();
          return paused;
        };
      });
      turns.announceEnding(turn);
      await asked;
      // The end record lifts the pause (a successful user turn), then the turn is torn down.
      turns.setPaused(sid, false);
      await ticks(3);
      assert.deepEqual((await win.outbox.entries(sid)).map((e) => e.state), ['pending']);
      turns.endTurn(turn);
      await waitForEvent(win, (e) => e.type === 'delivered');
      assert.equal(turns.wakeupCalls(sid).length, 1);
    });

    it('an ending whose teardown is never heard of does not hold the session forever', async () => {
      const clock = new FakeClock();
      const turns = new FakeTurnPort();
      const win = await open(turns, { clock, claimTtlMs: 60_000 });
      const sid = 'lost';
      const turn = turns.beginTurn(sid);
      await win.coordinator.onCompletion(completionFor('t1', sid));
      turns.announceEnding(turn);
      await waitForEvent(win, (e) => e.type === 'delivery' && e.outcome === 'active');
      turns.unregister(turn);
      // No teardown event: after half the claim's lifetime the drain goes ahead.
      await clock.advance(30_000);
      await waitForEvent(win, (e) => e.type === 'delivered');
      assert.equal(turns.wakeupCalls(sid).length, 1);
    });

    it('with the real supervisor, the claim is taken before the ending turn releases its lease', async function () {
      this.timeout(60_000);
      const turns = new SupervisorTurnPort(suite.root());
      await turns.init();
      try {
        const win = await open(turns);
        const sid = 'real';
        const user = await turns.userTurn(sid, 'start something in the background');
        await win.coordinator.onCompletion(completionFor('t1', sid));
        await waitForEvent(win, (e) => e.type === 'delivery' && e.outcome === 'active');
        const claimed = claimDone(win.outbox);
        const statesAtRelease: string[][] = [];
        const release = turns.sup.lease.release.bind(turns.sup.lease);
        turns.sup.lease.release = async (token) => {
          // The early claim runs beside the end record, so it can finish before the release; a drain that
          // claims only after the teardown never does (then this bound, which only a failing run waits out).
          if (token.holder.turnId === user.turnId) {
            await Promise.race([claimed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
            statesAtRelease.push((await win.outbox.entries(sid)).map((e) => e.state));
          }
          return release(token);
        };
        await turns.endTurn(user.turnId);
        await waitForEvent(win, (e) => e.type === 'delivered' && e.via === 'wakeup');
        assert.deepEqual(statesAtRelease, [['claimed']]);
        assert.equal(turns.wakeupCalls(sid).length, 1);
      } finally {
        await turns.close();
      }
    });
  });
});
