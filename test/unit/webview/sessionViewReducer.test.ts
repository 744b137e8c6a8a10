// The session view reducer: streaming merges, tool call updates, the notices lifecycle, and size.

import * as assert from 'node:assert/strict';
import type { HostEvent, NoticeView, SessionSnapshot, TurnStatusView } from '../../../src/shared/sessionView';
import { applyHostEvent, isTurnLive, noticeEntryId, toolEntryId } from '../../../src/shared/sessionViewReducer';
import { agentEntry, longTranscript, snapshotWith, task, toolCall, userEntry } from './viewBuilders';

function fold(state: SessionSnapshot, events: HostEvent[]): SessionSnapshot {
  return events.reduce(applyHostEvent, state);
}

function status(phase: TurnStatusView['phase'], turnId = 'turn1', patch: Partial<TurnStatusView> = {}): TurnStatusView {
  return { phase, turnId, silenceSeconds: 0, ...patch };
}

function notice(id: string, kind: NoticeView['kind'], text: string, resumable = false): NoticeView {
  return { id, kind, text, resumable, at: 10 };
}

describe('session view reducer', () => {
  it('merges streaming chunks into one agent entry and ends the stream', () => {
    const s = fold(snapshotWith([userEntry('u1')]), [
      { type: 'chunkAppended', entryId: 'a1', entryKind: 'agent', text: 'Hel', at: 5 },
      { type: 'chunkAppended', entryId: 'a1', entryKind: 'agent', text: 'lo **wor', at: 6 },
      { type: 'chunkAppended', entryId: 'a1', entryKind: 'agent', text: 'ld**', at: 7 },
    ]);
    assert.equal(s.entries.length, 2);
    assert.deepEqual(s.entries[1], { kind: 'agent', id: 'a1', markdown: 'Hello **world**', streaming: true, at: 5 });
    const ended = applyHostEvent(s, { type: 'streamEnded', entryId: 'a1' });
    assert.equal(ended.entries[1].kind === 'agent' && ended.entries[1].streaming, false);
  });

  it('keeps thoughts apart from the message they precede', () => {
    const s = fold(snapshotWith(), [
      { type: 'chunkAppended', entryId: 'th1', entryKind: 'thought', text: 'let me ', at: 1 },
      { type: 'chunkAppended', entryId: 'th1', entryKind: 'thought', text: 'think', at: 2 },
      { type: 'chunkAppended', entryId: 'a1', entryKind: 'agent', text: 'Answer', at: 3 },
      { type: 'chunkAppended', entryId: 'a1', entryKind: 'thought', text: 'x', at: 4 },
    ]);
    assert.deepEqual(s.entries.map((e) => [e.kind, e.id]), [['thought', 'th1'], ['agent', 'a1'], ['thought', 'a1:thought']]);
    assert.equal(s.entries[0].kind === 'thought' && s.entries[0].text, 'let me think');
  });

  it('never mutates the state it is given', () => {
    const before = snapshotWith([agentEntry('a1', 'x', true)]);
    const frozen = JSON.stringify(before);
    applyHostEvent(before, { type: 'chunkAppended', entryId: 'a1', entryKind: 'agent', text: 'y', at: 2 });
    applyHostEvent(before, { type: 'turnStatusChanged', turn: status('idle') });
    assert.equal(JSON.stringify(before), frozen);
  });

  it('creates and updates tool calls by id, keeping earlier fields', () => {
    const s = fold(snapshotWith(), [
      { type: 'toolCallCreated', toolCall: toolCall('c1', { rawInput: { command: 'npm test' } }), at: 1 },
      { type: 'toolCallUpdated', toolCallId: 'c1', patch: { status: 'in_progress' } },
      { type: 'toolCallUpdated', toolCallId: 'c1', patch: { status: 'completed', endedAt: 9, content: [{ type: 'text', text: 'ok' }] } },
    ]);
    assert.equal(s.entries.length, 1);
    const entry = s.entries[0];
    assert.equal(entry.id, toolEntryId('c1'));
    assert.ok(entry.kind === 'toolCall');
    assert.deepEqual(entry.toolCall, { ...toolCall('c1', { rawInput: { command: 'npm test' } }), status: 'completed', endedAt: 9, content: [{ type: 'text', text: 'ok' }] });
  });

  it('shows an update for a tool call it never saw instead of dropping it', () => {
    const s = applyHostEvent(snapshotWith(), { type: 'toolCallUpdated', toolCallId: 'ghost', patch: { status: 'failed', title: 'edit a.ts' } });
    assert.ok(s.entries[0].kind === 'toolCall');
    assert.equal(s.entries[0].toolCall.toolCallId, 'ghost');
    assert.equal(s.entries[0].toolCall.status, 'failed');
    assert.equal(s.entries[0].toolCall.title, 'edit a.ts');
  });

  it('replaces a plan in place when it is updated', () => {
    const s = fold(snapshotWith(), [
      { type: 'planUpdated', entryId: 'plan', at: 1, items: [{ content: 'a', priority: 'high', status: 'pending' }] },
      { type: 'entryAppended', entry: userEntry('u1') },
      { type: 'planUpdated', entryId: 'plan', at: 2, items: [{ content: 'a', priority: 'high', status: 'completed' }] },
    ]);
    assert.deepEqual(s.entries.map((e) => e.id), ['plan', 'u1']);
    assert.ok(s.entries[0].kind === 'plan');
    assert.equal(s.entries[0].items[0].status, 'completed');
  });

  describe('notices lifecycle', () => {
    const quiet = notice('q1', 'quiet', 'Quiet: no progress for 170 s');
    const stall = notice('st1', 'stall', 'Stalled: no progress for 312 s');
    const abort = notice('ab1', 'abort', 'Stopped: no progress for 300 s', true);

    it('quiet → stall → abort → resume: banners come and go, the abort stays in the transcript', () => {
      let s = fold(snapshotWith([agentEntry('a1', 'partial', true)], { approvals: [{ requestId: 'p1', title: 'write', at: 1 }] }), [
        { type: 'turnStatusChanged', turn: status('running') },
        { type: 'turnStatusChanged', turn: status('quiet', 'turn1', { silenceSeconds: 170, waitingOn: 'model' }), notice: quiet },
      ]);
      assert.deepEqual(s.notices.map((n) => n.kind), ['quiet']);
      s = applyHostEvent(s, { type: 'turnStatusChanged', turn: status('stalled', 'turn1', { silenceSeconds: 312 }), notice: stall });
      assert.deepEqual(s.notices.map((n) => n.text), [stall.text], 'the stall replaces the quiet indicator');
      assert.ok(!s.entries.some((e) => e.kind === 'notice'), 'an observation is not history');
      assert.ok(isTurnLive(s.turn.phase));

      s = applyHostEvent(s, { type: 'turnStatusChanged', turn: status('aborted'), notice: abort });
      assert.deepEqual(s.notices.map((n) => n.kind), ['abort'], 'the definitive notice replaces the stall banner: it says how long the turn was silent');
      const last = s.entries[s.entries.length - 1];
      assert.equal(last.id, noticeEntryId('ab1'));
      assert.equal(s.entries[0].kind === 'agent' && s.entries[0].streaming, false, 'a settled turn streams no more');
      assert.deepEqual(s.approvals, [], 'open approvals are cancelled with the turn');

      const again = applyHostEvent(s, { type: 'turnStatusChanged', turn: status('aborted'), notice: abort });
      assert.equal(again.entries.length, s.entries.length, 'the same notice is not appended twice');

      s = applyHostEvent(s, { type: 'turnStatusChanged', turn: status('running', 'turn2') });
      assert.deepEqual(s.notices, [], 'a new turn (the resume) clears the pinned notices');
      assert.ok(s.entries.some((e) => e.id === noticeEntryId('ab1')), 'the history keeps the abort');
    });

    it('an interrupted session keeps its Resume notice until a turn runs again', () => {
      let s = applyHostEvent(snapshotWith(), {
        type: 'turnStatusChanged', turn: status('interrupted'), notice: notice('i1', 'interrupted', 'The window closed during this turn.', true),
      });
      s = applyHostEvent(s, { type: 'taskChanged', task: task('t1') });
      s = applyHostEvent(s, { type: 'turnStatusChanged', turn: status('interrupted', 'turn1', { silenceSeconds: 3 }) });
      assert.deepEqual(s.notices.map((n) => n.id), ['i1']);
      s = applyHostEvent(s, { type: 'turnStatusChanged', turn: status('idle') });
      assert.deepEqual(s.notices, []);
    });

    it('pins one notice per kind: a repeated one replaces the last', () => {
      let s = applyHostEvent(snapshotWith(), { type: 'turnStatusChanged', turn: status('running') });
      for (let i = 0; i < 5; i++) {
        s = applyHostEvent(s, { type: 'turnStatusChanged', turn: status('running'), notice: notice(`busy${i}`, 'info', `This session is busy in another window (${i})`) });
      }
      s = applyHostEvent(s, { type: 'turnStatusChanged', turn: status('running'), notice: notice('e1', 'error', 'Agent did not unwind; killing it') });
      assert.deepEqual(s.notices.map((n) => n.id), ['busy4', 'e1']);
    });

    it('an error notice stays pinned through the same turn and goes with the next one', () => {
      let s = applyHostEvent(snapshotWith(), { type: 'turnStatusChanged', turn: status('running', 'turn1') });
      s = applyHostEvent(s, { type: 'turnStatusChanged', turn: status('idle', 'turn1'), notice: notice('e1', 'error', 'API key rejected (vigil.model.provider)') });
      assert.deepEqual(s.notices.map((n) => n.kind), ['error']);
      assert.ok(s.entries.some((e) => e.id === noticeEntryId('e1')));
      s = applyHostEvent(s, { type: 'turnStatusChanged', turn: status('running', 'turn2') });
      assert.deepEqual(s.notices, []);
    });
  });

  it('withdraws one pinned notice by id, and only that one', () => {
    const s = fold(snapshotWith([]), [
      { type: 'turnStatusChanged', turn: status('idle'), notice: notice('settings-wait', 'info', 'Waiting for settings…') },
      { type: 'turnStatusChanged', turn: status('idle'), notice: notice('folder', 'error', 'another folder') },
    ]);
    assert.deepEqual(s.notices.map((n) => n.id), ['settings-wait', 'folder']);
    const withdrawn = applyHostEvent(s, { type: 'noticeWithdrawn', noticeId: 'settings-wait' });
    assert.deepEqual(withdrawn.notices.map((n) => n.id), ['folder']);
    assert.deepEqual(applyHostEvent(withdrawn, { type: 'noticeWithdrawn', noticeId: 'gone' }).notices, withdrawn.notices);
  });

  it('upserts tasks and approvals by id', () => {
    const s = fold(snapshotWith(), [
      { type: 'taskChanged', task: task('t1') },
      { type: 'taskChanged', task: task('t2') },
      { type: 'taskChanged', task: task('t1', { status: 'exited', exitCode: 0, endedAt: 5 }) },
      { type: 'approvalRequested', approval: { requestId: 'p1', title: 'write a.ts', at: 1 } },
      { type: 'approvalRequested', approval: { requestId: 'p2', title: 'run rm', at: 2 } },
      { type: 'approvalResolved', requestId: 'p1' },
    ]);
    assert.deepEqual(s.tasks.map((t) => [t.id, t.status, t.exitCode]), [['t1', 'exited', 0], ['t2', 'running', undefined]]);
    assert.deepEqual(s.approvals.map((a) => a.requestId), ['p2']);
  });

  it('handles a 10,000-entry session: chunks, appends and updates land on the right entries', () => {
    // Throughput is a figure of bench/webview.bench.ts, not asserted here.
    let s = snapshotWith(longTranscript(10_000));
    for (let i = 0; i < 200; i++) s = applyHostEvent(s, { type: 'chunkAppended', entryId: 'tail', entryKind: 'agent', text: 'x', at: i });
    for (let i = 0; i < 200; i++) s = applyHostEvent(s, { type: 'entryAppended', entry: userEntry(`n${i}`) });
    s = applyHostEvent(s, { type: 'entryAppended', entry: userEntry('u0', 'replaced') });
    s = applyHostEvent(s, { type: 'toolCallUpdated', toolCallId: 't2', patch: { status: 'failed' } });
    assert.equal(s.entries.length, 10_201);
    const tail = s.entries[10_000];
    assert.equal(tail.kind === 'agent' && tail.markdown.length, 200);
    assert.equal(s.entries[0].kind === 'user' && s.entries[0].text, 'replaced', 'an old id is replaced in place, not appended');
    assert.equal(s.entries[2].kind === 'toolCall' && s.entries[2].toolCall.status, 'failed');
  });

  it('finds entries correctly when two states branch from one', () => {
    const base = snapshotWith([userEntry('u1')]);
    const left = applyHostEvent(base, { type: 'entryAppended', entry: userEntry('x') });
    const right = applyHostEvent(base, { type: 'entryAppended', entry: userEntry('y') });
    const right2 = applyHostEvent(right, { type: 'entryAppended', entry: userEntry('x', 'second') });
    const left2 = applyHostEvent(left, { type: 'entryAppended', entry: userEntry('x', 'again') });
    assert.deepEqual(right2.entries.map((e) => e.id), ['u1', 'y', 'x']);
    assert.deepEqual(left2.entries.map((e) => [e.id, e.kind === 'user' && e.text]), [['u1', 'question u1'], ['x', 'again']]);
  });
});
