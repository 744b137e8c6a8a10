// Supervisor behaviour around the invariants: bounds per waiting kind, approvals, suspend, quiet, abort, pause, hooks, recovery.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { TurnLeaseStore } from '../../../src/extension/core/lease/turnLease';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { INTERRUPTED_TOOL_TEXT } from '../../../src/extension/core/supervisor/reclaim';
import { Harness, SETTINGS, waitFor } from './harness';

const TIMEOUT = SETTINGS.timeoutMs;

async function deadHolderMidTurn(h: Harness): Promise<void> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  const crashed = new TurnLeaseStore(h.sup.sessions.root, h.clock, silentLogger, { ttlMs: 3_600_000 });
  const got = await crashed.acquire(h.sessionId, { ...crashed.holderFor('window-dead', 'dead-turn'), pid: child.pid! });
  assert.equal(got.kind, 'acquired');
  if (got.kind !== 'acquired') return;
  const w = h.sup.sessions.transcriptWriter(h.sessionId, crashed.guard(got.token));
  await w.append([
    { type: 'turnStarted', turnId: 'dead-turn', source: 'user', epoch: got.token.epoch },
    { type: 'agentUpdate', turnId: 'dead-turn', update: { sessionUpdate: 'tool_call', toolCallId: 'tc-open', title: 'run tests', status: 'in_progress' } },
    { type: 'agentUpdate', turnId: 'dead-turn', update: { sessionUpdate: 'tool_call', toolCallId: 'tc-done', title: 'read', status: 'pending' } },
    { type: 'agentUpdate', turnId: 'dead-turn', update: { sessionUpdate: 'tool_call_update', toolCallId: 'tc-done', status: 'completed' } },
  ]);
}

describe('turn supervisor lifecycle', () => {
  it('an unobservable agent-side tool gets the longer tool bound; back on the model, the short bound applies at once', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    h.agent.emit({ description: 'tool: run tests', waitingOn: { kind: 'tool', name: 'run tests', observable: false } });
    await h.run(TIMEOUT * 2);
    assert.equal(h.of('stallObserved').length, 0, 'no false abort of a long tool');
    assert.equal(h.sup.getSnapshot(h.sessionId)?.waitingOn.kind, 'tool');
    h.agent.emit({ description: 'model: streaming', waitingOn: { kind: 'model' } });
    const resumedAt = h.clock.now();
    await h.run(TIMEOUT + 250, 250);
    const result = await ended;
    assert.equal(result.reason, 'interrupted');
    assert.ok(h.of('stallObserved').length === 1);
    assert.ok(h.clock.now() - resumedAt <= TIMEOUT + 250);
  });

  it('an unobservable tool that stays silent past the tool bound is aborted, naming the tool', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    h.agent.emit({ description: 'tool: run tests', waitingOn: { kind: 'tool', name: 'run tests', observable: false } });
    await h.run(SETTINGS.toolTimeoutMs + 250, 1_000);
    assert.match(h.of('stallObserved')[0]?.detail ?? '', /waiting on: tool run tests/, 'the details say what it waited on');
    assert.equal((await ended).reason, 'interrupted');
  });

  it('a client terminal whose output is activity keeps the short bound', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    h.agent.emit({ description: 'tool: npm test', waitingOn: { kind: 'tool', name: 'npm test', observable: true } });
    await h.run(TIMEOUT - 1_000);
    h.sup.reportActivity(h.sessionId, 'output of npm test', { kind: 'tool', name: 'npm test', observable: true });
    await h.run(TIMEOUT - 1_000);
    assert.equal(h.of('stallObserved').length, 0, 'terminal output counted as activity');
    await h.run(1_250, 250);
    assert.equal((await ended).reason, 'interrupted');
  });

  it('the watchdog is suspended while the person is asked for approval', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    h.agent.emit({ description: 'permission: write file', approval: 'opened', waitingOn: { kind: 'approval' } });
    assert.deepEqual(h.of('approvalWaiting').map((e) => e.open), [true]);
    await h.run(TIMEOUT * 5, 5_000);
    assert.equal(h.of('stallObserved').length, 0, 'waiting on the user is not a stall');
    assert.equal(h.sup.getSnapshot(h.sessionId)?.waitingOn.kind, 'approval');
    h.agent.emit({ description: 'permission answered', approval: 'closed', waitingOn: { kind: 'agent' } });
    assert.deepEqual(h.of('approvalWaiting').map((e) => e.open), [true, false]);
    await h.run(TIMEOUT + 250, 250);
    assert.equal((await ended).reason, 'interrupted', 'the bound applies again after the answer');
  });

  it('a host suspend (wall clock jumps) is not counted as silence', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    await h.run(2_000);
    h.clock.suspend(3_600_000);
    await h.run(TIMEOUT - 2_500);
    assert.equal(h.of('stallObserved').length, 0);
    assert.ok(h.logged('info', 'Host suspend'));
    h.agent.finish();
    assert.equal((await ended).reason, 'completed');
  });

  it('quiet at half the bound, once per generation, with what the turn waits on; the snapshot counts the silence', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    h.agent.emit({ description: 'model: thinking', waitingOn: { kind: 'model' } });
    await h.run(TIMEOUT / 2);
    const quiet = h.of('quiet');
    assert.equal(quiet.length, 1);
    assert.equal(quiet[0].silentMs, TIMEOUT / 2);
    assert.equal(quiet[0].waitingOn.kind, 'model');
    const snap = h.sup.getSnapshot(h.sessionId)!;
    assert.equal(snap.silenceMs, TIMEOUT / 2);
    assert.equal(snap.phase, 'running');
    assert.equal(snap.lastActivity, 'model: thinking');
    await h.run(TIMEOUT / 2 - 500);
    assert.equal(h.of('quiet').length, 1);
    h.agent.finish();
    await ended;
  });

  it('the user\'s Abort publishes at once, settles with a notice, and leaves the session resumable', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    h.agent.emit({ description: 'tool: edit', update: { sessionUpdate: 'tool_call', toolCallId: 'tc1', title: 'edit', status: 'in_progress' } });
    assert.equal(await h.sup.abort(h.sessionId, 'Stop button'), true);
    assert.equal(h.sup.interruptState(h.sessionId)?.hardCancel.aborted, true);
    const result = await ended;
    assert.equal(result.reason, 'aborted');
    assert.equal(h.of('abortCommitted')[0].cause, 'user');
    assert.deepEqual((await h.sup.listResumable()).map((s) => s.id), [h.sessionId]);
    const records = (await h.sup.sessions.readAll(h.sessionId)).records;
    const synthetic = records.find((r) => r.type === 'syntheticToolResult');
    assert.equal(synthetic?.type === 'syntheticToolResult' && synthetic.toolCallId, 'tc1', 'the unfinished tool call is closed');
    assert.equal(records.at(-1)?.type, 'turnEnded');
    assert.equal(await h.sup.abort(h.sessionId), false, 'nothing left to abort');
    const resumed = await h.start('resume');
    assert.deepEqual(await h.sup.listResumable(), [], 'a resume clears the resumable state');
    h.agent.finish();
    assert.equal((await resumed.ended).reason, 'completed');
  });

  it('an Abort that arrives while the prompt is being admitted aborts the turn before the agent sees it', async () => {
    const h = await Harness.create();
    let release!: () => void;
    let entered!: () => void;
    const inHook = new Promise<void>((r) => (entered = r));
    h.sup.setAdmissionHook(() => {
      entered();
      return new Promise((r) => (release = () => r(undefined)));
    });
    const starting = h.sup.startTurn(h.sessionId, 'hi', { source: 'user' });
    await inHook;
    assert.equal(await h.sup.abort(h.sessionId), true);
    release();
    const r = await starting;
    assert.equal(r.kind, 'started');
    if (r.kind !== 'started') return;
    assert.equal((await r.ended).reason, 'aborted');
    assert.equal(h.agent.prompts, 0);
    assert.equal(await h.leaseHolder(), null);
  });

  it('a second prompt while a turn runs is refused (busy), never interleaved', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    assert.deepEqual(await h.sup.startTurn(h.sessionId, 'again', { source: 'user' }), { kind: 'busy' });
    assert.deepEqual(await h.sup.startTurn(h.sessionId, 'wake', { source: 'wakeup' }), { kind: 'busy' });
    h.agent.finish();
    await ended;
    assert.equal(h.agent.prompts, 1);
  });

  it('a provider credential failure pauses wakeups (not user turns) until unpaused', async () => {
    const h = await Harness.create();
    const { ended } = await h.start();
    h.agent.fail(new Error('401 from the provider', { cause: { code: 'PROVIDER_AUTH', message: 'bad key' } }));
    assert.equal((await ended).reason, 'failed');
    assert.equal(await h.sup.isPaused(h.sessionId), true);
    assert.deepEqual(await h.sup.startTurn(h.sessionId, 'wake', { source: 'wakeup' }), { kind: 'paused' });
    // Persisted with its reason, so a reloaded window keeps the pause.
    const storedPause = await until(async () => (await h.sup.sessions.get(h.sessionId))?.wakeupsPaused);
    assert.match(storedPause, /bad key|401/);
    const user = await h.start('user');
    h.agent.finish();
    await user.ended;
    assert.equal(await h.sup.isPaused(h.sessionId), false, 'a successful user turn clears the pause');
    assert.equal(await until(async () => ((await h.sup.sessions.get(h.sessionId))?.wakeupsPaused === undefined ? true : undefined)), true);
  });

  it('the admission hook contributes a prefix before the prompt is persisted; teardown runs after release', async () => {
    const h = await Harness.create();
    const calls: string[] = [];
    h.sup.setAdmissionHook(() => ({ prefix: '[task 7 finished]', onPersisted: () => calls.push('persisted'), onNotPersisted: () => calls.push('not') }));
    assert.throws(() => h.sup.setAdmissionHook(() => undefined), /already set/);
    const teardown: Array<Promise<string | null | undefined>> = [];
    h.sup.onTurnTeardown((ended) => {
      calls.push(`teardown:${ended.reason}`);
      assert.equal(h.sup.getSnapshot(h.sessionId), undefined, 'unregistered before teardown');
      teardown.push(h.leaseHolder());
    });
    h.sup.onTurnTeardown(() => {
      throw new Error('a broken listener');
    });
    const { ended } = await h.start();
    assert.equal(h.agent.current?.request.text, '[task 7 finished]\n\nnew message');
    h.agent.finish();
    await ended;
    assert.deepEqual(calls, ['persisted', 'teardown:completed']);
    assert.equal(await teardown[0], null, 'lease already released when the teardown hook ran');
    const prompt = (await h.sup.sessions.readAll(h.sessionId)).records.find((r) => r.type === 'userPrompt');
    assert.equal(prompt?.type === 'userPrompt' && prompt.text, '[task 7 finished]\n\nnew message');
    assert.ok(h.logged('error', 'teardown listener failed'));
  });

  it('a contribution whose claim was lost meanwhile: a user turn is stored without it, a wakeup turn stores nothing and frees the lease', async () => {
    const h = await Harness.create();
    const calls: string[] = [];
    // The outbox answers that the claim no longer holds (a window frozen past its deadline lost it).
    h.sup.setAdmissionHook(({ source }) => ({
      prefix: '[task 7 finished]',
      claimId: 'w/lost',
      persist: (store) => store(false),
      onPersisted: () => calls.push(`${source} persisted`),
      onNotPersisted: () => calls.push(`${source} not`),
    }));
    const { ended } = await h.start();
    assert.equal(h.agent.current?.request.text, 'new message', 'the user turn carried a claim it lost');
    h.agent.finish();
    await ended;
    const prompts = (await h.sup.sessions.readAll(h.sessionId)).records.filter((r) => r.type === 'userPrompt');
    assert.deepEqual(prompts.map((r) => r.type === 'userPrompt' && [r.text, r.claimId]), [['new message', undefined]]);
    const wakeup = await h.sup.startTurn(h.sessionId, '[task 8 finished]', { source: 'wakeup' });
    assert.equal(wakeup.kind, 'failed');
    assert.equal(h.agent.prompts, 1, 'no wakeup prompt reached the agent');
    assert.equal(await h.leaseHolder(), null, 'the lease is free again');
    assert.equal((await h.sup.sessions.readAll(h.sessionId)).records.filter((r) => r.type === 'userPrompt').length, 1);
    assert.deepEqual(calls, ['user not', 'wakeup not']);
  });

  it('startup recovery marks a session whose holder died mid-turn interrupted, closing its unfinished tool calls', async () => {
    const h = await Harness.create();
    await deadHolderMidTurn(h);
    assert.deepEqual(await h.sup.recoverInterrupted(), [h.sessionId]);
    const records = (await h.sup.sessions.readAll(h.sessionId)).records;
    const synthetic = records.filter((r) => r.type === 'syntheticToolResult');
    assert.deepEqual(synthetic.map((r) => r.type === 'syntheticToolResult' && [r.toolCallId, r.text]), [['tc-open', INTERRUPTED_TOOL_TEXT]]);
    assert.equal(records.at(-1)?.type, 'interrupted');
    assert.equal((await h.sup.listResumable())[0]?.state, 'interrupted');
    assert.equal(await h.leaseHolder(), null, 'the recovery lease was released');
    assert.deepEqual(await h.sup.recoverInterrupted(), [], 'idempotent');
  });

  it('a turn whose acquire reclaims a dead holder marks the old turn interrupted before its own records', async () => {
    const h = await Harness.create();
    await deadHolderMidTurn(h);
    assert.equal(await h.sup.hasActiveTurn(h.sessionId), false, 'a provably dead holder is no active turn');
    const { ended, turnId } = await h.start();
    h.agent.finish();
    await ended;
    const types = (await h.sup.sessions.readAll(h.sessionId)).records.map((r) => `${r.type}:${r.turnId}`);
    assert.deepEqual(types.slice(4), ['syntheticToolResult:dead-turn', 'interrupted:dead-turn', `turnStarted:${turnId}`, `userPrompt:${turnId}`, `turnEnded:${turnId}`]);
  });

  it('startTurn fails cleanly for a missing session or a bad id', async () => {
    const h = await Harness.create();
    assert.equal((await h.sup.startTurn('nope', 'hi', { source: 'user' })).kind, 'failed');
    assert.equal((await h.sup.startTurn('../x', 'hi', { source: 'user' })).kind, 'failed');
  });

  it('activity events are throttled; the transcript keeps every update', async () => {
    const h = await Harness.create({}, { activityThrottleMs: 250 });
    const { ended } = await h.start();
    for (let i = 0; i < 50; i += 1) h.agent.emit({ description: `chunk ${i}`, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: String(i) } } });
    await h.clock.advance(300);
    h.agent.emit({ description: 'chunk 50' });
    h.agent.finish();
    await ended;
    assert.equal(h.of('activity').length, 2);
    await waitFor(() => true);
    const updates = (await h.sup.sessions.readAll(h.sessionId)).records.filter((r) => r.type === 'agentUpdate');
    assert.equal(updates.length, 50);
  });
});

/** Polls a condition that a background write settles (bounded; fails the test when it never holds). */
async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition did not hold in time');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
