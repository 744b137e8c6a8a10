// Many windows on one session: approvals answered from any window exactly once, abort from another
// window acknowledged by the holder, takeover with fencing when the holder does not answer, and the
// approval timeout — with two real TurnSupervisors on one storage root.

import * as assert from 'node:assert/strict';
import { timeoutMessage } from '../../../src/extension/core/crosswindow/remoteApprovals';
import { flushMicrotasks } from '../../fakes/fakeClock';
import { waitFor } from '../supervisor/harness';
import { SESSION, TwoWindows } from './twoWindows';

/** Waits for a state that real file I/O will reach; checks once per event-loop turn. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((r) => setImmediate(r));
  }
}

const question = { sessionId: SESSION, title: 'write_file notes.txt', kind: 'edit' };

describe('cross-window turns (two supervisors, one storage root)', () => {
  let t: TwoWindows;
  beforeEach(async () => {
    t = await TwoWindows.create();
  });
  afterEach(() => t.dispose());

  it('an approval is answered exactly once when two windows and the holder race (200 rounds)', async function () {
    this.timeout(120_000);
    const { ended } = await t.start(t.a);
    const c = await t.window('window-c');
    const tally = { b: 0, c: 0, local: 0 };
    try {
      for (let round = 0; round < 200; round += 1) {
        const turnAbort = new AbortController();
        const asked = t.a.prompter.ask(question, turnAbort.signal);
        await waitFor(() => t.a.local.open.length === 1, 'the holder to prompt locally');
        let requestId = '';
        await t.pumpUntil(
          (async () => {
            for (;;) {
              const listed = await t.b.cw.mailbox.listApprovals(SESSION);
              if (listed.length === 1) return (requestId = listed[0].requestId);
              await new Promise<void>((r) => setImmediate(r));
            }
          })(),
          'the approval to be published',
        );
        const localPrompt = t.a.local.open.shift()!;
        // Even rounds go through the full answer path; odd rounds start both claims in the same tick,
        // the tightest race two windows can run.
        const answerFrom = async (w: typeof c, answer: 'allowOnce' | 'reject') => {
          if (round % 2 === 0) return w.cw.control.answer(SESSION, requestId, answer);
          const r = await w.cw.mailbox.claimAnswer(SESSION, requestId, { version: 1, answer, by: w.id, at: 0 });
          return r.won ? { kind: 'won' as const } : { kind: 'lost' as const, answer: r.value?.answer };
        };
        const [rb, rc] = await Promise.all([
          answerFrom(t.b, 'allowOnce'),
          answerFrom(c, 'reject'),
          Promise.resolve().then(() => localPrompt.answer('allowAlways')),
        ]);
        const answer = await t.pumpUntil(asked, 'the holder to resolve the approval');
        const winners = [rb.kind === 'won', rc.kind === 'won'].filter(Boolean).length;
        assert.ok(winners <= 1, `round ${round}: two windows both won (${JSON.stringify([rb, rc])})`);
        const expected = rb.kind === 'won' ? 'allowOnce' : rc.kind === 'won' ? 'reject' : 'allowAlways';
        assert.equal(answer, expected, `round ${round}: the holder resolved with another answer than the winner's`);
        for (const r of [rb, rc]) if (r.kind === 'lost') assert.equal(r.answer, expected, `round ${round}: a loser was told another answer`);
        assert.ok(localPrompt.signal.aborted, 'the holder withdrew its own prompt');
        assert.deepEqual(await t.b.cw.mailbox.listApprovals(SESSION), [], 'the request was withdrawn from the store');
        tally[rb.kind === 'won' ? 'b' : rc.kind === 'won' ? 'c' : 'local'] += 1;
      }
    } finally {
      c.cw.dispose();
      c.sup.dispose();
    }
    t.a.agent.finish();
    assert.equal((await ended).reason, 'completed');
  });

  it('a late answer after the holder settled loses and is told the question is gone', async () => {
    await t.start(t.a);
    const turnAbort = new AbortController();
    const asked = t.a.prompter.ask(question, turnAbort.signal);
    await waitFor(() => t.a.local.open.length === 1, 'the local prompt');
    const [request] = await t.b.cw.mailbox.listApprovals(SESSION);
    t.a.local.open[0].answer('reject');
    assert.equal(await asked, 'reject');
    assert.deepEqual(await t.b.cw.control.answer(SESSION, request.requestId, 'allowOnce'), { kind: 'gone' });
  });

  it('an abort requested from another window is carried out by the holder and acknowledged', async () => {
    const { ended } = await t.start(t.a);
    const result = await t.pumpUntil(t.b.cw.control.abort(SESSION), 'the remote abort');
    assert.deepEqual(result, { kind: 'acknowledged', aborted: true });
    const end = await ended;
    assert.equal(end.reason, 'aborted');
    assert.ok(t.a.agent.calls.includes('cancel'), 'the holder cancelled its agent (normal user-abort path)');
    assert.equal(t.b.killed.length, 0, 'no takeover');
    assert.equal(await t.b.cw.control.remoteHolder(SESSION), undefined);
  });

  it('a holder that does not acknowledge within the bound is taken over; its later writes are refused', async () => {
    const { ended } = await t.start(t.a);
    // Window A is frozen: its cross-window side stops reading the mailbox.
    t.a.cw.dispose();
    t.a.agent.emit({ description: 'tool: run', waitingOn: { kind: 'tool', name: 'run', observable: false }, update: { sessionUpdate: 'tool_call', toolCallId: 'tc-1', title: 'run', status: 'in_progress' } });
    await until(async () => JSON.stringify((await t.b.sup.sessions.readAll(SESSION)).records).includes('tc-1'), 'the tool call to be stored');
    const before = await t.b.sup.lease.read(SESSION);
    const timersBefore = t.clock.pendingTimers;
    const aborting = t.b.cw.control.abort(SESSION);
    await waitFor(() => t.clock.pendingTimers > timersBefore, 'the ack wait to start');
    let settled = false;
    void aborting.then(() => (settled = true));
    await t.b.cw.kick();
    await flushMicrotasks();
    assert.equal(settled, false, 'no takeover before the bound');
    await t.clock.advance(3_000);
    const result = await aborting;
    assert.equal(result.kind, 'takenOver');
    const after = await t.b.sup.lease.read(SESSION);
    assert.ok(after!.epoch > before!.epoch, 'the takeover moved the fencing epoch on');
    assert.equal(after!.holder, null, 'the takeover lease was released');
    const meta = await t.b.sup.sessions.get(SESSION);
    assert.equal(meta?.state, 'interrupted', 'the session is resumable');
    // The old holder wakes up and writes: refused.
    t.a.agent.emit({ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'LATE WRITE' } } });
    await waitFor(() => t.a.logs.some((l) => l.message.includes('refused')), 'the stale write to be refused');
    const end = await ended;
    assert.equal(end.reason, 'interrupted');
    const { records } = await t.b.sup.sessions.readAll(SESSION);
    assert.ok(!JSON.stringify(records).includes('LATE WRITE'), 'the stale write never reached the transcript');
    const synthetic = records.filter((r) => r.type === 'syntheticToolResult');
    assert.deepEqual(synthetic.map((r) => (r as { toolCallId: string }).toolCallId), ['tc-1'], 'the unfinished tool call got a synthetic result');
    assert.ok(records.some((r) => r.type === 'interrupted'));
    // And window B can run a new turn.
    const next = await t.start(t.b);
    t.b.agent.finish();
    assert.equal((await next.ended).reason, 'completed');
  });

  for (const reused of [false, true]) {
    it(`a takeover kills the holder's agent ${reused ? 'never once its pid names another process' : 'while its pid still names it'}`, async () => {
      const agentPid = 4242;
      t.starts.set(agentPid, 'boot:1000');
      const a = await t.window('window-agent', agentPid);
      try {
        await t.start(a);
        await until(async () => (await t.b.cw.mailbox.readBoard(SESSION))?.agentStart === 'boot:1000', 'the board to name the agent and its start');
        a.cw.dispose();
        // The holder's agent ended and the system gave its pid to another process of the person's.
        if (reused) t.starts.set(agentPid, 'boot:2000');
        const timersBefore = t.clock.pendingTimers;
        const aborting = t.b.cw.control.abort(SESSION);
        await waitFor(() => t.clock.pendingTimers > timersBefore, 'the ack wait to start');
        await t.clock.advance(3_000);
        assert.deepEqual(await aborting, { kind: 'takenOver', killedAgent: !reused });
        assert.deepEqual(t.b.killed, reused ? [] : [agentPid]);
        if (reused) assert.ok(t.b.logs.some((l) => l.message.includes('now names another process')), 'the log says why nothing was killed');
      } finally {
        a.agent.finish();
        a.sup.dispose();
      }
    });
  }

  it('an approval nobody answers is rejected after the timeout, and the transcript says why', async () => {
    t.approvalTimeoutMs = 10_000;
    await t.start(t.a);
    // As the permission gate does: the watchdog is suspended while a question is open; the timeout is the bound.
    t.a.agent.emit({ description: 'permission: write', waitingOn: { kind: 'approval' }, approval: 'opened' });
    const asked = t.a.prompter.ask(question, new AbortController().signal);
    await waitFor(() => t.a.local.open.length === 1, 'the local prompt');
    await t.clock.advance(9_999);
    let answer: string | undefined;
    void asked.then((a) => (answer = a));
    await flushMicrotasks();
    assert.equal(answer, undefined, 'still waiting before the timeout');
    await t.clock.advance(1);
    assert.equal(await asked, 'reject');
    assert.ok(t.a.local.open[0].signal.aborted, 'the prompt was withdrawn');
    const text = timeoutMessage(question.title, 10);
    await until(async () => JSON.stringify((await t.a.sup.sessions.readAll(SESSION)).records).includes(JSON.stringify(text).slice(1, -1)), 'the timeout notice in the transcript');
  });

  it('every window sees an approval waiting, and whether anyone shows its session', async () => {
    await t.start(t.a);
    void t.a.prompter.ask(question, new AbortController().signal);
    await waitFor(() => t.a.local.open.length === 1, 'the local prompt');
    await t.b.cw.kick();
    assert.equal(t.b.cw.waiting.length, 1);
    assert.equal(t.b.cw.waiting[0].shown, false, 'no window shows the session');
    t.a.showing = SESSION;
    await t.a.cw.presence.publish(SESSION);
    await t.b.cw.kick();
    assert.equal(t.b.cw.waiting[0].shown, true);
    // A closed tab stops its view's heartbeat: the window reports that it shows nothing.
    t.a.showing = undefined;
    await t.a.cw.presence.publish(undefined);
    await t.b.cw.kick();
    assert.equal(t.b.cw.waiting[0].shown, false);
  });
});

describe('cross-window approvals with hostile input', () => {
  it('an over-long question is clipped, not hidden from other windows', async () => {
    const t = await TwoWindows.create();
    try {
      await t.start(t.a);
      void t.a.prompter.ask({ sessionId: SESSION, title: `write ${'x'.repeat(10_000)}`, kind: 'k'.repeat(100) }, new AbortController().signal);
      await waitFor(() => t.a.local.open.length === 1, 'the local prompt');
      const [request] = await t.b.cw.mailbox.listApprovals(SESSION);
      assert.ok(request, 'window B sees the question');
      assert.ok(request.title.length <= 2_000 && request.title.startsWith('write xxx'));
    } finally {
      t.dispose();
    }
  });
});
