// One model per session: each session's events are folded once, into its own model; the view is
// given only the shown one's changes; models of sessions neither shown nor running here are dropped.

import * as assert from 'node:assert/strict';
import type { SessionMeta } from '../../../src/extension/core/store/sessionStore';
import type { TranscriptRecord } from '../../../src/extension/core/store/transcriptRecords';
import { SessionModels } from '../../../src/extension/presentation/sessionModels';
import type { PresenterSeed } from '../../../src/extension/presentation/sessionPresenter';
import type { ApprovalView, HostEvent, SessionSnapshot } from '../../../src/shared/sessionView';

function meta(id: string): SessionMeta {
  return { id, title: `Session ${id}`, createdAt: 1, updatedAt: 1, state: 'idle' };
}

function seed(id: string, records: TranscriptRecord[] = []): PresenterSeed {
  return { meta: meta(id), records, live: undefined, tasks: [], approvals: [] };
}

function prompt(text: string, at = 10): TranscriptRecord {
  return { type: 'userPrompt', at, source: 'user', text };
}

const approval: ApprovalView = { requestId: 'r1', title: 'Run npm test', at: 20 };

function setup() {
  const posted: HostEvent[] = [];
  const live = new Set<string>();
  const models = new SessionModels({ post: (event) => posted.push(event), isLive: (id) => live.has(id), now: () => 100 });
  return { models, posted, live };
}

describe('session models (one per session)', () => {
  it('folds the events of a session that is not shown into its own model, and gives the view only the shown one\'s', () => {
    const { models, posted, live } = setup();
    live.add('a');
    const a = models.show(seed('a', [prompt('first')]));
    models.supervisorEvent({ type: 'turnStarted', sessionId: 'a', turnId: 't1', source: 'user', startedAt: 50 });
    const b = models.show(seed('b'));
    posted.length = 0;

    models.records('a', [prompt('while b is shown', 30)]);
    models.approvalRequested('a', approval);
    models.supervisorEvent({ type: 'approvalWaiting', sessionId: 'a', turnId: 't1', open: true });

    assert.equal(posted.length, 0, 'nothing of session a reaches the view while b is shown');
    assert.equal(models.get('a'), a);
    assert.deepEqual(a.snapshot.entries.map((e) => e.kind === 'user' && e.text), ['first', 'while b is shown']);
    assert.deepEqual(a.snapshot.approvals, [approval]);
    assert.equal(a.phase, 'awaitingApproval');
    assert.equal(b.snapshot.entries.length, 0);
    assert.deepEqual(b.snapshot.approvals, []);

    models.records('b', [prompt('for b')]);
    assert.equal(posted.length, 1);
    assert.ok(posted[0].type === 'entryAppended' && posted[0].entry.kind === 'user' && posted[0].entry.text === 'for b');
  });

  it('shows a kept session again as it stands, without folding anything again', () => {
    const { models, posted, live } = setup();
    live.add('a');
    const a = models.show(seed('a', [prompt('first')]));
    models.show(seed('b'));
    models.records('a', [prompt('later', 30)]);
    const entriesBefore = a.snapshot.entries;
    assert.ok(models.kept('a'));
    assert.equal(models.kept('b'), false, 'the shown session is not "kept": opening it again reads it again');

    const again = models.reshow('a');
    assert.equal(again, a, 'the same model, not a new fold of the transcript');
    assert.equal(models.shown, a);
    assert.equal(a.snapshot.entries, entriesBefore, 'its entries are the very same array');
    posted.length = 0;
    models.records('a', [prompt('now shown', 40)]);
    models.records('b', [prompt('b meanwhile', 40)]);
    assert.deepEqual(posted.map((e) => e.type === 'entryAppended' && e.entry.kind === 'user' && e.entry.text), ['now shown']);
    assert.equal(models.get('b'), undefined, 'b is neither shown nor running here: dropped');
  });

  it('drops the models of sessions no longer shown once no turn of theirs runs here', () => {
    const { models, live } = setup();
    models.show(seed('a'));
    models.show(seed('b'));
    assert.equal(models.get('a'), undefined);
    assert.equal(models.size, 1);
    assert.equal(models.reshow('a'), undefined, 'a dropped session is read again, never shown stale');

    live.add('b');
    models.supervisorEvent({ type: 'turnStarted', sessionId: 'b', turnId: 't1', source: 'wakeup', startedAt: 50 });
    models.show(seed('c'));
    assert.equal(models.size, 2, 'b runs a turn here: kept');
    live.delete('b');
    models.supervisorEvent({ type: 'turnEnded', ended: { sessionId: 'b', turnId: 't1', source: 'wakeup', reason: 'completed' } });
    assert.equal(models.get('b'), undefined, 'its turn ended: dropped');
    assert.equal(models.size, 1);
    assert.equal(models.shown?.sessionId, 'c');
  });

  it('ignores events of sessions it holds no model for', () => {
    const { models, posted } = setup();
    models.show(seed('a'));
    posted.length = 0;
    models.records('z', [prompt('elsewhere')]);
    models.approvalRequested('z', approval);
    models.task({ id: 't', sessionId: 'z' } as never);
    models.supervisorEvent({ type: 'turnStarted', sessionId: 'z', turnId: 't1', source: 'user', startedAt: 1 });
    assert.deepEqual(posted, []);
    assert.equal(models.size, 1);
  });

  it('a replaced model of the same session posts nothing any more', () => {
    const { models, posted } = setup();
    const old = models.show(seed('a'));
    const fresh = models.show(seed('a', [prompt('read again')]));
    posted.length = 0;
    old.records([prompt('stale')]);
    assert.deepEqual(posted, []);
    fresh.records([prompt('current')]);
    assert.equal(posted.length, 1);
  });

  it('knows the state of a turn that runs here in a session no model holds, and hands it to the model that shows it', () => {
    const { models, live } = setup();
    live.add('w');
    models.show(seed('a'));
    // A wakeup in session w, which no model holds: the list still reads its state from the same events.
    models.supervisorEvent({ type: 'turnStarted', sessionId: 'w', turnId: 't1', source: 'wakeup', startedAt: 50 });
    models.supervisorEvent({ type: 'approvalWaiting', sessionId: 'w', turnId: 't1', open: true });
    assert.equal(models.get('w'), undefined, 'no model is built for it');
    assert.equal(models.phaseOf('w'), 'awaitingApproval');
    assert.equal(models.phaseOf('nobody'), undefined);
    // Shown now: the view says what the list said (the supervisor's snapshot alone would say running).
    const w = models.show({ ...seed('w'), live: { sessionId: 'w', turnId: 't1', source: 'wakeup', phase: 'running', waitingOn: { kind: 'agent' }, lastActivity: '', generation: 2, silenceMs: 0, leaseRenewing: true, startedAt: 50 } });
    assert.equal(w.phase, 'awaitingApproval');
    assert.equal(models.phaseOf('w'), 'awaitingApproval');
  });

  it('forgets a turn state of its own when the turn ends: the stored state speaks then', () => {
    const { models, live } = setup();
    live.add('w');
    models.supervisorEvent({ type: 'turnStarted', sessionId: 'w', turnId: 't1', source: 'wakeup', startedAt: 50 });
    live.delete('w');
    models.supervisorEvent({ type: 'turnEnded', ended: { sessionId: 'w', turnId: 't1', source: 'wakeup', reason: 'interrupted', message: 'Stopped: no progress for 6 s' } });
    assert.equal(models.phaseOf('w'), undefined);
  });

  describe('editor tabs watching a model', () => {
    const watcher = () => {
      const events: HostEvent[] = [];
      const snapshots: SessionSnapshot[] = [];
      return { events, snapshots, watcher: { event: (e: HostEvent) => void events.push(e), snapshot: (s: SessionSnapshot) => void snapshots.push(s) } };
    };
    const texts = (events: HostEvent[]) => events.map((e) => e.type === 'entryAppended' && e.entry.kind === 'user' && e.entry.text);

    it('a tab and the side bar of one session are told each change of the same model, once', () => {
      const { models, posted } = setup();
      const a = models.show(seed('a'));
      const tab = watcher();
      models.watch('a', tab.watcher);
      posted.length = 0;
      models.records('a', [prompt('sent from the tab')]);
      assert.deepEqual(texts(posted), ['sent from the tab']);
      assert.deepEqual(texts(tab.events), ['sent from the tab']);
      assert.deepEqual(a.snapshot.entries.length, 1, 'folded once, into the one model');
    });

    it('a watched session keeps its model while the side bar moves on, and tells only its own tab', () => {
      const { models, posted } = setup();
      const a = models.show(seed('a'));
      const tabA = watcher();
      const unwatch = models.watch('a', tabA.watcher);
      models.show(seed('b'));
      assert.equal(models.get('a'), a, 'kept: a tab shows it');
      assert.ok(models.kept('a'), 'showing it in the side bar again reuses the tab\'s model');
      posted.length = 0;
      models.records('a', [prompt('for a')]);
      models.records('b', [prompt('for b')]);
      assert.deepEqual(texts(tabA.events), ['for a']);
      assert.deepEqual(texts(posted), ['for b']);
      assert.deepEqual(models.onScreen().sort(), ['a', 'b']);
      unwatch();
      assert.equal(models.get('a'), undefined, 'its tab closed, the side bar shows another: dropped');
      assert.equal(models.watched('a'), false);
      models.records('a', [prompt('after the tab closed')]);
      assert.deepEqual(texts(tabA.events), ['for a'], 'a closed tab hears nothing more');
    });

    it('a model held for a tab does not change what the side bar shows', () => {
      const { models, posted } = setup();
      models.show(seed('a'));
      const tab = watcher();
      const held = models.hold(seed('t'));
      models.watch('t', tab.watcher);
      assert.equal(models.shown?.sessionId, 'a');
      posted.length = 0;
      held.records([prompt('in the tab')]);
      assert.deepEqual(posted, [], 'the side bar hears nothing of the tab\'s session');
      assert.deepEqual(texts(tab.events), ['in the tab']);
    });

    it('a session read again gives its tab the new model\'s snapshot, and the old model falls silent', () => {
      const { models } = setup();
      const old = models.show(seed('a'));
      const tab = watcher();
      models.watch('a', tab.watcher);
      const fresh = models.show(seed('a', [prompt('read again')]));
      assert.equal(tab.snapshots.at(-1), fresh.snapshot);
      old.records([prompt('stale')]);
      assert.deepEqual(tab.events, []);
    });

    it('two tabs of one session both hear it; closing one leaves the other', () => {
      const { models } = setup();
      models.hold(seed('a'));
      const one = watcher();
      const two = watcher();
      const stopOne = models.watch('a', one.watcher);
      models.watch('a', two.watcher);
      stopOne();
      models.records('a', [prompt('still watched')]);
      assert.deepEqual(texts(one.events), []);
      assert.deepEqual(texts(two.events), ['still watched']);
      assert.ok(models.get('a'));
    });
  });
});
