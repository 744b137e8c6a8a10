// Supervisor events become the view's turn status and pinned notices, in the order the contract
// gives: quiet, then the observational stall, then the definitive abort with Resume.

import * as assert from 'node:assert';
import { TurnStatusTracker } from '../../../src/extension/presentation/turnStatusTracker';
import type { SessionMeta } from '../../../src/extension/core/store/sessionStore';
import { STOPPED_MEANS } from '../../../src/shared/turnWords';

const meta = (state: SessionMeta['state'], stateReason?: string): SessionMeta => ({ id: 's', title: 'S', createdAt: 0, updatedAt: 0, state, stateReason });

describe('turn status tracker', () => {
  it('follows a stalled turn to its abort and keeps it resumable after the turn ends', () => {
    const t = new TurnStatusTracker(() => 1_000);
    t.initial(meta('idle'), undefined);
    assert.strictEqual(t.apply({ type: 'turnStarted', sessionId: 's', turnId: 't', source: 'user', startedAt: 0 })?.type, 'turnStatusChanged');
    assert.strictEqual(t.status.phase, 'running');
    const quiet = t.apply({ type: 'quiet', sessionId: 's', turnId: 't', silentMs: 150_000, waitingOn: { kind: 'model' }, boundMs: 300_000 });
    assert.ok(quiet?.type === 'turnStatusChanged');
    assert.strictEqual(quiet.turn.phase, 'quiet');
    assert.strictEqual(quiet.notice!.text, 'Quiet: no progress for 150 s', 'the summary names the state with the term the status line uses');
    assert.match(quiet.notice!.detail ?? '', /^No progress for 150 s \(waiting on: model\)\. Vigil stops the turn after 300 s without progress/);
    const stall = t.apply({ type: 'stallObserved', sessionId: 's', turnId: 't', seconds: 300, waitingOn: { kind: 'model' }, message: 'Stalled: no progress for 300 s', detail: 'why' });
    assert.ok(stall?.type === 'turnStatusChanged');
    assert.strictEqual(stall.turn.phase, 'stalled');
    assert.strictEqual(stall.notice?.kind, 'stall');
    assert.strictEqual(stall.notice?.resumable, false);
    assert.deepStrictEqual([stall.notice?.text, stall.notice?.detail], ['Stalled: no progress for 300 s', 'why'], 'the supervisor words its summary and details');
    const abort = t.apply({ type: 'abortCommitted', sessionId: 's', turnId: 't', cause: 'watchdog', message: 'Stopped: no progress for 300 s', detail: 'how' });
    assert.ok(abort?.type === 'turnStatusChanged');
    assert.strictEqual(abort.notice?.kind, 'abort');
    assert.strictEqual(abort.notice?.resumable, true);
    // Late activity after a committed abort never reopens the turn in the view.
    assert.strictEqual(t.apply({ type: 'activity', sessionId: 's', turnId: 't', description: 'x', waitingOn: { kind: 'agent' } }), undefined);
    t.apply({ type: 'turnEnded', ended: { sessionId: 's', turnId: 't', source: 'user', reason: 'aborted' } });
    assert.strictEqual(t.status.phase, 'aborted');
  });

  it('a watchdog abort that ends as interrupted keeps its one abort notice (no second Resume)', () => {
    const t = new TurnStatusTracker(() => 5);
    t.apply({ type: 'turnStarted', sessionId: 's', turnId: 't', source: 'user', startedAt: 0 });
    t.apply({ type: 'abortCommitted', sessionId: 's', turnId: 't', cause: 'watchdog', message: 'Stopped: no progress for 6 s', detail: 'how' });
    const ended = t.apply({ type: 'turnEnded', ended: { sessionId: 's', turnId: 't', source: 'user', reason: 'interrupted', message: 'Stopped: no progress for 6 s' } });
    assert.ok(ended?.type === 'turnStatusChanged');
    assert.strictEqual(ended.turn.phase, 'interrupted');
    assert.strictEqual(ended.notice, undefined);
    // A turn interrupted without a committed abort (its holder died) still gets its notice.
    t.apply({ type: 'turnStarted', sessionId: 's', turnId: 'u', source: 'user', startedAt: 1 });
    const lost = t.apply({ type: 'turnEnded', ended: { sessionId: 's', turnId: 'u', source: 'user', reason: 'interrupted', message: 'killed' } });
    assert.ok(lost?.type === 'turnStatusChanged');
    assert.strictEqual(lost.notice?.kind, 'interrupted');
  });

  it('a lost lease is said once, by the stop it causes', () => {
    const t = new TurnStatusTracker(() => 5);
    t.apply({ type: 'turnStarted', sessionId: 's', turnId: 't', source: 'user', startedAt: 0 });
    assert.strictEqual(t.apply({ type: 'leaseLost', sessionId: 's', turnId: 't', message: 'Session turn lease lost' }), undefined);
    const stop = t.apply({ type: 'abortCommitted', sessionId: 's', turnId: 't', cause: 'leaseLost', message: 'Stopped: another window took this session over', detail: 'how' });
    assert.ok(stop?.type === 'turnStatusChanged');
    assert.strictEqual(stop.notice?.text, 'Stopped: another window took this session over');
  });

  it('a tracker that followed the turn keeps what the supervisor snapshot cannot say when its session is opened', () => {
    const t = new TurnStatusTracker(() => 5);
    t.apply({ type: 'turnStarted', sessionId: 's', turnId: 't', source: 'wakeup', startedAt: 0 });
    t.apply({ type: 'approvalWaiting', sessionId: 's', turnId: 't', open: true });
    const live = { sessionId: 's', turnId: 't', source: 'wakeup' as const, phase: 'running' as const, waitingOn: { kind: 'agent' as const }, lastActivity: '', generation: 3, silenceMs: 0, leaseRenewing: true, startedAt: 0 };
    assert.strictEqual(t.initial(meta('idle'), live).turn.phase, 'awaitingApproval');
    assert.strictEqual(new TurnStatusTracker(() => 5).initial(meta('idle'), live).turn.phase, 'running', 'a fresh tracker has only the snapshot');
  });

  it('activity after a quiet spell returns to running', () => {
    const t = new TurnStatusTracker(() => 5);
    t.apply({ type: 'turnStarted', sessionId: 's', turnId: 't', source: 'user', startedAt: 0 });
    t.apply({ type: 'quiet', sessionId: 's', turnId: 't', silentMs: 10_000, waitingOn: { kind: 'model' }, boundMs: 20_000 });
    const back = t.apply({ type: 'activity', sessionId: 's', turnId: 't', description: 'model: streaming', waitingOn: { kind: 'tool', name: 'run_command', observable: true } });
    assert.ok(back?.type === 'turnStatusChanged');
    assert.strictEqual(back.turn.phase, 'running');
    assert.strictEqual(back.turn.waitingOn, 'tool run_command');
  });

  it('approval waiting is its own phase', () => {
    const t = new TurnStatusTracker();
    t.apply({ type: 'turnStarted', sessionId: 's', turnId: 't', source: 'user', startedAt: 0 });
    t.apply({ type: 'approvalWaiting', sessionId: 's', turnId: 't', open: true });
    assert.strictEqual(t.status.phase, 'awaitingApproval');
    t.apply({ type: 'approvalWaiting', sessionId: 's', turnId: 't', open: false });
    assert.strictEqual(t.status.phase, 'running');
  });

  it('opens an interrupted or aborted session with a resumable notice', () => {
    for (const state of ['interrupted', 'aborted'] as const) {
      const { turn, notice } = new TurnStatusTracker().initial(meta(state, 'holder died'), undefined);
      assert.strictEqual(turn.phase, state);
      assert.strictEqual(notice?.resumable, true);
      assert.strictEqual(notice?.text, 'holder died');
      assert.strictEqual(notice?.detail, STOPPED_MEANS, 'what it means for the work, folded');
    }
    assert.strictEqual(new TurnStatusTracker().initial(meta('aborted'), undefined).notice?.text, 'Stopped before it finished');
  });

  it('a failed turn shows its reason as an error and goes idle', () => {
    const t = new TurnStatusTracker();
    const ended = t.apply({ type: 'turnEnded', ended: { sessionId: 's', turnId: 't', source: 'user', reason: 'failed', message: 'The API key was rejected: set it with "Vigil: Set API Key…"' } });
    assert.ok(ended?.type === 'turnStatusChanged');
    assert.strictEqual(ended.turn.phase, 'idle');
    assert.strictEqual(ended.notice?.kind, 'error');
    assert.strictEqual(ended.notice?.actions, undefined, 'no remedies, no buttons');
  });

  it('a failed start carries its remedies to the notice as buttons (Open Log, Open Settings, Sign in…)', () => {
    const t = new TurnStatusTracker();
    const ended = t.apply({ type: 'turnEnded', ended: { sessionId: 's', turnId: 't', source: 'user', reason: 'failed', message: 'The agent exited (code 1) while starting.', remedies: ['openSettings', 'openLog'] } });
    assert.ok(ended?.type === 'turnStatusChanged');
    assert.deepStrictEqual(ended.notice?.actions, ['openSettings', 'openLog']);
  });
});
