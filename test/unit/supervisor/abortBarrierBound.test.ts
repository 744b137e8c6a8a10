// An abort waiting on an in-flight commit barrier waits at most the grace, then escalates to a kill.

import * as assert from 'node:assert/strict';
import type { TurnEnded } from '../../../src/extension/core/ports/turns';
import { Harness, waitFor } from './harness';

const BOUND_MS = 300;
const GRACE_MS = 500;

function settledFlag(ended: Promise<TurnEnded>): { result?: TurnEnded } {
  const box: { result?: TurnEnded } = {};
  void ended.then((r) => (box.result = r));
  return box;
}

describe('the abort\'s wait on an in-flight commit barrier is bounded', () => {
  it('a barrier that never finishes: the stall is shown, then after the grace the agent is killed and the turn ends interrupted', async () => {
    const h = await Harness.create({ timeoutMs: BOUND_MS, graceMs: GRACE_MS });
    h.agent.onCancel = 'ignore';
    const { ended } = await h.start();
    const box = settledFlag(ended);
    const stuck = h.sup.reserveBarrier(h.sessionId, 'apply edit')!;
    assert.equal(stuck.begin(), true);

    await h.run(BOUND_MS, 50);
    assert.equal(h.of('stallObserved').length, 1, 'the person sees the stall while the abort waits');
    assert.equal(h.of('abortCommitted').length, 0, 'the abort waits for the in-flight commit first');
    await h.run(GRACE_MS - 100, 50);
    assert.ok(!h.agent.calls.includes('kill'), 'no kill before the grace');

    await h.run(200, 50);
    assert.ok(h.agent.calls.includes('kill'), `the agent was killed after the grace (calls: ${h.agent.calls.join(',')})`);
    assert.match(h.of('abortCommitted')[0]?.detail ?? '', /apply edit.*did not finish/, 'the stuck commit is named in the details');
    assert.match(h.of('escalated')[0]?.detail ?? '', /apply edit/);
    await waitFor(() => box.result !== undefined, 'the killed turn to end');
    assert.equal(box.result?.reason, 'interrupted');
    assert.match(box.result?.message ?? '', /no progress/);
    assert.equal(await h.leaseHolder(), null, 'the lease was released');
    assert.equal(stuck.cancelled, false, 'an in-flight barrier is never cancelled');
  });

  it('a transcript write on a hung disk: the turn is killed after the grace, ends, and releases its lease', async () => {
    const h = await Harness.create({ timeoutMs: BOUND_MS, graceMs: GRACE_MS });
    // Every fenced write hangs once `hung` is set, as on a disk that stopped answering.
    let hung = false;
    const lease = h.sup.lease;
    const guard = lease.guard.bind(lease);
    lease.guard = (token) => {
      const fenced = guard(token);
      return (write) => (hung ? new Promise<never>(() => undefined) : fenced(write));
    };
    const { ended } = await h.start();
    const box = settledFlag(ended);
    hung = true;
    h.agent.emit({ description: 'model: streaming', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } });

    await h.run(BOUND_MS + GRACE_MS + 200, 50);
    assert.equal(h.of('stallObserved').length, 1);
    assert.ok(h.agent.calls.includes('kill'), 'killed after the grace');
    assert.match(h.of('abortCommitted')[0]?.detail ?? '', /transcript batch.*did not finish/);
    await h.run(10_000, 250);
    await waitFor(() => box.result !== undefined, 'the killed turn to end');
    assert.equal(box.result?.reason, 'interrupted', 'the turn ended although its end record could not be stored');
    assert.ok(h.logged('error', 'was not stored within'));
    assert.equal(await h.leaseHolder(), null, 'the lease was released');
  });

  it('a barrier that finishes within the grace is waited for, and the abort proceeds as usual', async () => {
    const h = await Harness.create({ timeoutMs: BOUND_MS, graceMs: GRACE_MS });
    const { ended } = await h.start();
    const commit = h.sup.reserveBarrier(h.sessionId, 'apply edit')!;
    assert.equal(commit.begin(), true);
    await h.run(BOUND_MS + GRACE_MS - 100, 50);
    assert.equal(h.of('abortCommitted').length, 0);
    commit.finish();
    await h.run(100, 50);
    const result = await ended;
    assert.equal(result.reason, 'interrupted');
    assert.doesNotMatch(h.of('abortCommitted')[0]?.message ?? '', /did not finish/);
    assert.ok(h.agent.calls.includes('cancel'));
    assert.ok(!h.agent.calls.includes('kill'), 'the agent cooperated with the cancel');
  });
});
