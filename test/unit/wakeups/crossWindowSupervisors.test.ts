// The delivery rules of docs/background-tasks.md across windows: two real supervisors with their coordinators on one storage root.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import { authFailure, openSupervisorWindow, runningTurn, type SupervisorWindow } from '../../fakes/supervisorWindows';
import { completionFor, deliveryOutcome, tempStorageRoot, waitForEvent } from '../../fakes/wakeupHarness';

describe('wakeups across windows, through real supervisors', function () {
  this.timeout(60_000);
  const sid = 'sess-two-windows';
  let root: string;
  let a: SupervisorWindow;
  let b: SupervisorWindow;

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-xwin-');
    a = await openSupervisorWindow(root, 'window-a');
    b = await openSupervisorWindow(root, 'window-b');
    await a.sup.sessions.create('two windows', sid);
  });

  afterEach(async () => {
    for (const w of [a, b]) await w.shutDown(sid);
    await fs.rm(root, { recursive: true, force: true });
  });

  async function states(): Promise<string[]> {
    return (await b.outbox.entries(sid)).map((e) => e.state);
  }

  it('rule 7 across windows: a pause set by a turn in A holds a completion in B that B earlier saw unpaused', async () => {
    // B looks at the session first: not paused, nothing to deliver.
    assert.equal(await b.coordinator.drain(sid), 'nothing');
    assert.equal(await b.sup.isPaused(sid), false);

    const user = await runningTurn(a, sid);
    a.agent.fail(authFailure());
    assert.equal((await user.ended).reason, 'failed');

    await b.coordinator.onCompletion(completionFor('t-after-pause', sid));
    const delivery = await waitForEvent(b, deliveryOutcome(b, sid, 'completion'));
    assert.ok(delivery.type === 'delivery' && (delivery.outcome === 'held' || delivery.outcome === 'paused'), `B delivered against a paused provider: ${JSON.stringify(delivery)}`);
    assert.equal(b.agent.prompts, 0, 'no wakeup turn ran in B against the failing provider');
    assert.ok(!(await states()).includes('delivered'), 'the completion was consumed while paused');
    // Sweeps and drains in either window keep it.
    await b.coordinator.sweep();
    assert.equal(await b.coordinator.drain(sid), 'held');
    assert.equal(await a.coordinator.drain(sid), 'held');
    assert.equal(a.agent.prompts + b.agent.prompts, 1);
    assert.ok(!(await states()).includes('delivered'));
  });

  it('rule 7 across windows: a pause lifted by a user turn in A (then closed) lets B deliver at its next sweep', async () => {
    const failing = await runningTurn(a, sid);
    a.agent.fail(authFailure());
    await failing.ended;

    // B sees the pause: its completion is held.
    await b.coordinator.onCompletion(completionFor('t-held', sid));
    const held = await waitForEvent(b, deliveryOutcome(b, sid, 'completion'));
    assert.equal(held.type === 'delivery' && held.outcome, 'held');

    // The person fixes the key in A and sends a message; it succeeds, which lifts the pause. A's window closes
    // before its teardown drain could deliver anything.
    const fixed = await runningTurn(a, sid);
    a.coordinator.dispose();
    a.agent.finish();
    assert.equal((await fixed.ended).reason, 'completed');
    a.close();

    await b.coordinator.sweep();
    const swept = await waitForEvent(b, deliveryOutcome(b, sid, 'sweep'));
    assert.equal(swept.type === 'delivery' && swept.outcome, 'started', `B kept the completion held after the pause lifted: ${JSON.stringify(swept)}`);
    await waitForEvent(b, (e) => e.type === 'delivered');
    assert.equal(b.agent.prompts, 1);
    assert.ok(b.agent.current?.request.text.includes('t-held'));
    assert.deepEqual(await states(), ['delivered']);
  });

  it('rules 2 and 3 across windows: a turn held by A makes B start nothing, and A\'s teardown delivers once', async () => {
    const user = await runningTurn(a, sid);
    assert.equal(await b.sup.hasActiveTurn(sid), true, 'B sees the turn A holds through its lease');

    await b.coordinator.onCompletion(completionFor('t-during-a', sid));
    const deferred = await waitForEvent(b, deliveryOutcome(b, sid, 'completion'));
    assert.equal(deferred.type === 'delivery' && deferred.outcome, 'active', 'B tried to start a turn while A held the session');
    // A teardown drain in B (e.g. B's own earlier turn ending) must also leave it.
    assert.equal(await b.coordinator.drain(sid), 'active');
    await b.coordinator.sweep();
    assert.equal(b.agent.prompts, 0);
    assert.deepEqual(await states(), ['pending']);

    a.agent.finish();
    await user.ended;
    const drained = await waitForEvent(a, deliveryOutcome(a, sid, 'teardown'));
    assert.equal(drained.type === 'delivery' && drained.outcome, 'started');
    await waitForEvent(a, (e) => e.type === 'delivered');
    assert.equal(a.agent.prompts, 2);
    assert.equal(b.agent.prompts, 0);
    assert.deepEqual(await states(), ['delivered']);
  });
});
