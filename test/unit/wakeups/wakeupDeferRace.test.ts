// Delivery scenarios of docs/background-tasks.md: a completion landing in or around a turn's teardown is never lost or doubled.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import { FakeTurnPort } from '../../fakes/fakeTurnPort';
import { SupervisorTurnPort } from '../../fakes/supervisorTurnPort';
import { completionFor, deliveryOutcome, openWindow, pendingKeys, tempStorageRoot, waitForEvent, type Window } from '../../fakes/wakeupHarness';

// The same nine scenarios against the scripted port and against real supervisors (real lease, admission,
// pause and busy paths), so a rule the fake models but the supervisor breaks is caught.
const PORTS = [
  { name: 'scripted turn port', open: async () => new FakeTurnPort() },
  {
    name: 'real turn supervisor',
    open: async (root: string) => {
      const port = new SupervisorTurnPort(root);
      await port.init();
      return port;
    },
  },
];

for (const PORT of PORTS) describe(`wakeup defer race (reference suite port) — ${PORT.name}`, function () {
  this.timeout(60_000);
  let root: string;
  let turns: FakeTurnPort | SupervisorTurnPort;
  let win: Window;

  beforeEach(async () => {
    root = await tempStorageRoot();
    turns = await PORT.open(root);
    // maxPerTurn 1: one wakeup per teardown (docs/background-tasks.md Rule 3).
    win = await openWindow(root, turns, { maxPerTurn: () => 1 });
  });

  afterEach(async () => {
    win.coordinator.dispose();
    // Work under way still writes to the storage: let it finish before removing it.
    await win.coordinator.idle();
    if (turns instanceof SupervisorTurnPort) await turns.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('1. a completion during a turn teardown still wakes the agent', async () => {
    const sid = 'sess-teardown';
    const turn = await turns.beginTurn(sid);
    await win.coordinator.onCompletion(completionFor('proc-fast-1', sid));

    // Deferred, not fired: no turn started, the completion is stored for the session.
    const deferred = await waitForEvent(win, deliveryOutcome(win, sid, 'completion'));
    assert.equal(deferred.type === 'delivery' && deferred.outcome, 'active');
    assert.equal(turns.calls.length, 0);
    assert.deepEqual(await pendingKeys(win, sid), ['proc-fast-1:exit']);

    await turns.unregister(turn);
    assert.equal(await turns.hasActiveTurn(sid), false);
    turns.emitTeardown({ sessionId: sid, turnId: turn, source: 'user', reason: 'completed' });
    const delivery = await waitForEvent(win, (e) => e.type === 'delivery' && e.trigger === 'teardown');
    assert.equal(delivery.type === 'delivery' && delivery.outcome, 'started');

    assert.equal(turns.calls.length, 1);
    const call = turns.calls[0];
    assert.equal(call.sessionId, sid);
    assert.equal(call.source, 'wakeup');
    assert.ok(call.prompt.startsWith('[IMPORTANT: Background task proc-fast-1'), call.prompt);
    assert.deepEqual(await pendingKeys(win, sid), []);
  });

  it('2. an idle completion fires once and the teardown drain does not fire it again', async () => {
    const sid = 'sess-idle';
    await win.coordinator.onCompletion(completionFor('proc-idle-1', sid));
    const [call] = await turns.waitForCalls((c) => c.length >= 1);
    await waitForEvent(win, (e) => e.type === 'delivered');
    assert.equal(call.source, 'wakeup');
    assert.deepEqual(await pendingKeys(win, sid), []);

    // The wakeup turn ends: its teardown runs the drain, which finds nothing.
    await turns.endTurn(call.turnId as string);
    const drained = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'));
    assert.equal(drained.type === 'delivery' && drained.outcome, 'nothing');
    assert.equal(await win.coordinator.drain(sid), 'nothing');
    assert.equal(turns.calls.length, 1);
  });

  it('3. a user turn carries the pending completion and its teardown does not deliver it again', async () => {
    const sid = 'sess-shared';
    const first = await turns.beginTurn(sid);
    await win.coordinator.onCompletion(completionFor('proc-shared-1', sid));
    assert.deepEqual(await pendingKeys(win, sid), ['proc-shared-1:exit']);

    // The first turn is unregistered; before its teardown hook runs, the person's turn is admitted.
    const ended = await turns.unregister(first);
    const user = await turns.userTurn(sid, 'what next?');
    assert.ok(user.prefix.startsWith('[IMPORTANT: Background task proc-shared-1'), user.prefix);
    await waitForEvent(win, (e) => e.type === 'delivered' && e.via === 'carried');

    // A duplicate exit signal for the same task adds nothing.
    await win.coordinator.onCompletion(completionFor('proc-shared-1', sid));
    assert.ok(win.events.some((e) => e.type === 'enqueued' && e.duplicate));

    turns.emitTeardown(ended);
    const late = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'));
    assert.equal(late.type === 'delivery' && late.outcome, 'active');
    await turns.endTurn(user.turnId);
    assert.equal(await win.coordinator.drain(sid), 'nothing');
    assert.equal(turns.wakeupCalls().length, 0, 'no separate wakeup after the user turn carried it');
    const delivered = win.events.filter((e) => e.type === 'delivered').flatMap((e) => (e.type === 'delivered' ? e.keys : []));
    assert.deepEqual(delivered, ['proc-shared-1:exit']);
  });

  it('4. no wakeup loop: the wakeup turn and three more drains start nothing', async () => {
    const sid = 'sess-loop';
    const turn = await turns.beginTurn(sid);
    await win.coordinator.onCompletion(completionFor('proc-loop-1', sid));
    await turns.endTurn(turn);
    const [call] = await turns.waitForCalls((c) => c.length >= 1);
    await waitForEvent(win, (e) => e.type === 'delivered');
    assert.deepEqual(await pendingKeys(win, sid), []);

    await turns.endTurn(call.turnId as string);
    for (let i = 0; i < 3; i += 1) assert.equal(await win.coordinator.drain(sid), 'nothing');
    assert.equal(turns.calls.length, 1, 'the wakeup turn re-fired its own completion');
  });

  it('5. multi-turn guard: the first teardown leaves it, the last one delivers once', async () => {
    const sid = 'sess-multi';
    const a = await turns.beginTurn(sid);
    const b = await turns.beginTurn(sid);
    await win.coordinator.onCompletion(completionFor('proc-multi-1', sid));

    await turns.endTurn(a);
    const first = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'));
    assert.equal(first.type === 'delivery' && first.outcome, 'active');
    assert.equal(turns.calls.length, 0);
    assert.deepEqual(await pendingKeys(win, sid), ['proc-multi-1:exit']);

    const mark = win.events.length;
    await turns.endTurn(b);
    const last = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'), 5_000, mark);
    assert.equal(last.type === 'delivery' && last.outcome, 'started');
    assert.equal(turns.calls.length, 1);
    assert.deepEqual(await pendingKeys(win, sid), []);
  });

  it('6. busy on the teardown path puts the completion back once, and the next teardown delivers it', async () => {
    const sid = 'sess-409';
    const turn = await turns.beginTurn(sid);
    await win.coordinator.onCompletion(completionFor('proc-409-1', sid));
    turns.script.push('busy');
    await turns.endTurn(turn);
    const busy = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'));
    assert.equal(busy.type === 'delivery' && busy.outcome, 'busy');
    assert.equal(turns.calls.length, 1);

    const entries = (await win.outbox.entries(sid)).filter((e) => e.state === 'pending');
    assert.equal(entries.length, 1);
    assert.equal(entries[0].taskId, 'proc-409-1');

    // The turn that won the session ends: its teardown delivers.
    const mark = win.events.length;
    await turns.endTurn(await turns.beginTurn(sid));
    const next = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'), 5_000, mark);
    assert.equal(next.type === 'delivery' && next.outcome, 'started');
    assert.deepEqual(await pendingKeys(win, sid), []);
  });

  it('7. paused: the completion is parked, not re-queued, and the first turn after the pause carries it', async () => {
    const sid = 'sess-paused';
    const turn = await turns.beginTurn(sid);
    await win.coordinator.onCompletion(completionFor('proc-paused-1', sid));
    turns.script.push('paused');
    await turns.endTurn(turn);
    const parked = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'));
    assert.equal(parked.type === 'delivery' && parked.outcome, 'paused');
    assert.deepEqual((await win.outbox.entries(sid)).map((e) => e.state), ['parked']);

    // While paused: drains and sweeps start nothing, and a user's turn is not blocked (nor does it carry it).
    await turns.setPaused(sid, true);
    assert.equal(await win.coordinator.drain(sid), 'held');
    await win.coordinator.sweep();
    const user = await turns.userTurn(sid);
    assert.equal(user.prefix, '');
    // It meets the same dead provider (a success would lift the pause, docs/background-tasks.md Rule 7).
    const mark = win.events.length;
    await turns.endTurn(user.turnId, 'providerFailure');
    const heldAtTeardown = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'), 5_000, mark);
    assert.equal(heldAtTeardown.type === 'delivery' && heldAtTeardown.outcome, 'held');
    assert.equal(await win.coordinator.drain(sid), 'held');
    assert.equal(turns.wakeupCalls().length, 1, 'a paused wakeup was retried');

    // The person fixes the key and resumes: that turn carries the parked completion.
    await turns.setPaused(sid, false);
    const resumed = await turns.startTurn(sid, 'resume', { source: 'resume' });
    assert.equal(resumed.kind, 'started');
    assert.ok(turns.calls.at(-1)?.prefix?.includes('proc-paused-1'));
    await waitForEvent(win, (e) => e.type === 'delivered' && e.via === 'carried');
    assert.deepEqual((await win.outbox.entries(sid)).map((e) => e.state), ['delivered']);
  });

  it('8. three deferred completions, maxPerTurn 1: one per teardown, 2 then 1 then 0 left', async () => {
    const sid = 'sess-multi-defer';
    const turn = await turns.beginTurn(sid);
    for (const id of ['proc-A', 'proc-B', 'proc-C']) await win.coordinator.onCompletion(completionFor(id, sid));
    assert.equal((await pendingKeys(win, sid)).length, 3);

    let ending = turn;
    for (const left of [2, 1, 0]) {
      const mark = win.events.length;
      await turns.endTurn(ending);
      const d = await waitForEvent(win, deliveryOutcome(win, sid, 'teardown'), 5_000, mark);
      assert.equal(d.type === 'delivery' && d.outcome, 'started');
      assert.equal((await pendingKeys(win, sid)).length, left);
      ending = turns.wakeupCalls(sid).at(-1)?.turnId as string;
    }
    assert.equal(turns.calls.length, 3);
    assert.equal(new Set(turns.calls.map((c) => c.prompt)).size, 3);
    await turns.endTurn(ending);
    assert.equal(await win.coordinator.drain(sid), 'nothing');
  });

  it('9. busy on the idle path re-queues with its task id, and a second busy adds no duplicate', async () => {
    const sid = 'sess-idle-409';
    turns.script.push('busy');
    await win.coordinator.onCompletion(completionFor('proc-idle-409', sid));
    const busy = await waitForEvent(win, deliveryOutcome(win, sid, 'completion'));
    assert.equal(busy.type === 'delivery' && busy.outcome, 'busy');
    let entries = await win.outbox.entries(sid);
    assert.equal(entries.length, 1);
    assert.equal(entries[0].taskId, 'proc-idle-409');
    assert.equal(entries[0].state, 'pending');

    // The same completion signalled again, and its delivery attempt meets a second busy race: still exactly one entry.
    const mark = win.events.length;
    turns.script.push('busy');
    await win.coordinator.onCompletion(completionFor('proc-idle-409', sid));
    const second = await waitForEvent(win, deliveryOutcome(win, sid, 'completion'), 5_000, mark);
    assert.equal(second.type === 'delivery' && second.outcome, 'busy');
    turns.script.push('busy');
    assert.equal(await win.coordinator.drain(sid), 'busy');
    entries = await win.outbox.entries(sid);
    assert.equal(entries.length, 1);
    assert.equal(entries[0].state, 'pending');

    assert.equal(await win.coordinator.drain(sid), 'started');
    assert.deepEqual((await win.outbox.entries(sid)).map((e) => e.state), ['delivered']);
    assert.equal(turns.calls.filter((c) => c.result === 'started').length, 1);
  });
});
