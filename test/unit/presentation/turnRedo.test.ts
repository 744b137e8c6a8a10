// Edit, Retry and Regenerate of a session's last exchange: which message may be redone and when (lastExchange.ts),
// the host's refusals of stale, forged or racing requests, the restore question, and what is sent (turnRedo.ts).

import * as assert from 'node:assert/strict';
import type { EntryView, SessionSnapshot } from '../../../src/shared/sessionView';
import { lastExchange, redoRefusal, replacedEntries, type RedoHow } from '../../../src/shared/lastExchange';
import { TurnRedo, type RestoreChoice, type TurnRedoDeps } from '../../../src/extension/presentation/turnRedo';
import { mentionsFromSummaries } from '../../../src/extension/presentation/redoContext';
import { agentEntry, snapshotWith, userEntry } from '../webview/viewBuilders';

const notice = (id: string, kind: 'error' | 'abort' | 'interrupted' | 'info'): EntryView => ({ kind: 'notice', id, at: 1, notice: { id, kind, text: kind, resumable: false, at: 1 } });
const checkpoint = (turnId: string, files: number): EntryView => ({
  kind: 'checkpoint', id: `cp-${turnId}`, at: 1, turnId, restorable: true,
  changes: { files: Array.from({ length: files }, (_, i) => ({ path: `f${i}.ts`, change: 'modified' as const, added: 1, removed: 0 })), count: files, added: files, removed: 0 },
});
const builtin = (entries: EntryView[], patch: Partial<SessionSnapshot> = {}) => snapshotWith(entries, { session: { id: 's1', title: 'S', builtin: true }, ...patch });

describe('the last exchange: what may be edited, retried, regenerated', () => {
  it('the person\'s last message is editable once no turn runs; retry only after a failed, stopped or interrupted turn', () => {
    const answered = lastExchange(builtin([userEntry('u1'), agentEntry('a1'), userEntry('u2'), agentEntry('a2')]));
    assert.ok(answered.ok);
    assert.equal(answered.exchange.user.id, 'u2');
    assert.equal(answered.exchange.answerId, 'a2');
    assert.deepEqual(answered.exchange.can, { edit: true, retry: false, regenerate: true });
    for (const [kind, end] of [['error', 'failed'], ['abort', 'stopped'], ['interrupted', 'interrupted']] as const) {
      const ended = lastExchange(builtin([userEntry('u1'), agentEntry('a1'), notice('n', kind)]));
      assert.ok(ended.ok);
      assert.equal(ended.exchange.end, end);
      assert.equal(ended.exchange.can.retry, true, kind);
    }
    const stopped = lastExchange(builtin([userEntry('u1')], { turn: { phase: 'aborted', silenceSeconds: 0 } }));
    assert.ok(stopped.ok && stopped.exchange.can.retry);
  });

  it('nothing while a turn runs here or in another window', () => {
    for (const turn of [{ phase: 'running' as const, silenceSeconds: 0 }, { phase: 'idle' as const, silenceSeconds: 0, where: 'another window' }]) {
      const found = lastExchange(builtin([userEntry('u1'), notice('n', 'error')], { turn }));
      assert.ok(found.ok);
      assert.deepEqual(found.exchange.can, { edit: false, retry: false, regenerate: false });
    }
  });

  it('regenerate only for the built-in agent, whose history Vigil can rewrite', () => {
    const other = lastExchange(snapshotWith([userEntry('u1'), agentEntry('a1')]));
    assert.ok(other.ok);
    assert.equal(other.exchange.can.regenerate, false);
    assert.equal(other.exchange.can.edit, true);
  });

  it('a wakeup or a resume after the message makes it no longer the last exchange', () => {
    const wakeup: EntryView = { kind: 'wakeup', id: 'w1', at: 1, text: 'done', taskIds: ['t1'] };
    assert.equal(lastExchange(builtin([userEntry('u1'), agentEntry('a1'), wakeup, agentEntry('a2')])).ok, false);
    const resume: EntryView = { kind: 'user', id: 'r1', text: 'Resume', at: 1, source: 'resume' };
    assert.equal(lastExchange(builtin([userEntry('u1'), notice('n', 'abort'), resume])).ok, false);
    assert.equal(lastExchange(builtin([])).ok, false);
  });

  it('names the checkpoint of a turn that changed files, and only then', () => {
    const found = lastExchange(builtin([userEntry('u1'), agentEntry('a1'), checkpoint('t1', 2)]));
    assert.ok(found.ok);
    assert.deepEqual(found.exchange.restorable, { turnId: 't1', files: 2 });
    const none = lastExchange(builtin([userEntry('u1'), agentEntry('a1'), checkpoint('t1', 0)]));
    assert.ok(none.ok && none.exchange.restorable === undefined);
  });

  it('refuses a request for another session, an older message, or the wrong kind, saying why', () => {
    const s = builtin([userEntry('u1'), agentEntry('a1'), userEntry('u2'), agentEntry('a2')]);
    assert.equal(redoRefusal(s, 's1', 'edit', 'u2'), undefined);
    assert.equal(redoRefusal(s, 's1', 'regenerate', 'a2'), undefined);
    assert.match(redoRefusal(s, 's2', 'edit', 'u2')!, /no longer shown/);
    assert.match(redoRefusal(s, 's1', 'edit', 'u1')!, /Only your last message/);
    assert.match(redoRefusal(s, 's1', 'regenerate', 'a1')!, /Only the last answer/);
    assert.match(redoRefusal(s, 's1', 'retry', 'u2')!, /failed, was stopped or was interrupted/);
    assert.match(redoRefusal({ ...s, turn: { phase: 'running', silenceSeconds: 0 } }, 's1', 'edit', 'u2')!, /turn of this session is running/);
  });

  it('dims the exchange a replacing message took out of the agent\'s history, not one an agent still has', () => {
    const edited: EntryView = { ...userEntry('u2'), redo: { how: 'edit', replaced: true } } as EntryView;
    assert.deepEqual([...replacedEntries([userEntry('u0'), agentEntry('a0'), userEntry('u1'), agentEntry('a1'), edited, agentEntry('a2')])], ['u1', 'a1']);
    const sent: EntryView = { ...userEntry('u2'), redo: { how: 'edit', replaced: false } } as EntryView;
    assert.equal(replacedEntries([userEntry('u1'), agentEntry('a1'), sent]).size, 0);
  });
});

function harness(snapshot: SessionSnapshot, o: { active?: boolean; choice?: RestoreChoice; restored?: boolean } = {}) {
  const calls: string[] = [];
  const sent: Array<{ text: string; mentions: unknown[]; redo: { how: RedoHow; replaced: boolean } }> = [];
  let release: (() => void) | undefined;
  const deps: TurnRedoDeps = {
    snapshotOf: (id) => (id === 's1' ? snapshot : snapshotWith([], { session: { id, title: 'other' } })),
    shownSessionId: () => 's1',
    hasActiveTurn: async () => o.active ?? false,
    workFolder: async () => '/ws',
    askRestore: async (files, how) => {
      calls.push(`ask ${files} ${how}`);
      return o.choice;
    },
    restore: async (_s, turnId) => {
      calls.push(`restore ${turnId}`);
      return o.restored ?? true;
    },
    send: async (_s, text, mentions, redo) => {
      calls.push('send');
      sent.push({ text, mentions, redo });
      await new Promise<void>((resolve) => (release = resolve));
    },
  };
  return { redo: new TurnRedo(deps), calls, sent, release: () => release?.() };
}

describe('TurnRedo: the host\'s checks and what it sends', () => {
  const failed = () => builtin([userEntry('u1', 'fix the bug'), notice('n', 'error')]);

  it('retries the last message with its text, marked as replacing the failed exchange in the built-in agent', async () => {
    const h = harness(failed());
    const done = h.redo.redo({ sessionId: 's1', entryId: 'u1', how: 'retry' });
    await Promise.resolve();
    while (h.sent.length === 0) await new Promise((r) => setImmediate(r));
    h.release();
    await done;
    assert.deepEqual(h.sent, [{ text: 'fix the bug', mentions: [], redo: { how: 'retry', replaced: true } }]);
  });

  it('a second click while the first is on its way is refused, not sent twice', async () => {
    const h = harness(failed());
    const first = h.redo.redo({ sessionId: 's1', entryId: 'u1', how: 'retry' });
    await assert.rejects(h.redo.redo({ sessionId: 's1', entryId: 'u1', how: 'retry' }), /already being sent again/);
    while (h.sent.length === 0) await new Promise((r) => setImmediate(r));
    h.release();
    await first;
    assert.equal(h.sent.length, 1);
  });

  it('refuses while a turn of the session runs in another window (its lease), and a stale message id', async () => {
    await assert.rejects(harness(failed(), { active: true }).redo.redo({ sessionId: 's1', entryId: 'u1', how: 'retry' }), /running \(here or in another window\)/);
    const h = harness(failed());
    await assert.rejects(h.redo.redo({ sessionId: 's1', entryId: 'u0', how: 'edit', text: 'x' }), /Only your last message/);
    await assert.rejects(h.redo.redo({ sessionId: 's2', entryId: 'u1', how: 'retry' }), /no longer shown|no message of yours/);
    assert.deepEqual(h.calls, []);
  });

  it('an agent that keeps its own history is sent the edit as a new message', async () => {
    const h = harness(snapshotWith([userEntry('u1', 'old'), agentEntry('a1')]));
    const done = h.redo.redo({ sessionId: 's1', entryId: 'u1', how: 'edit', text: '  new words ' });
    while (h.sent.length === 0) await new Promise((r) => setImmediate(r));
    h.release();
    await done;
    assert.deepEqual(h.sent[0], { text: 'new words', mentions: [], redo: { how: 'edit', replaced: false } });
  });

  it('asks before restoring the files the replaced turn changed, and acts only on the answer', async () => {
    const changed = () => builtin([userEntry('u1'), agentEntry('a1'), checkpoint('t1', 3)]);
    const restore = harness(changed(), { choice: 'restore' });
    const sending = restore.redo.redo({ sessionId: 's1', entryId: 'u1', how: 'edit', text: 'again' });
    while (restore.sent.length === 0) await new Promise((r) => setImmediate(r));
    restore.release();
    await sending;
    assert.deepEqual(restore.calls, ['ask 3 edit', 'restore t1', 'send']);

    const keep = harness(changed(), { choice: 'keep' });
    const kept = keep.redo.redo({ sessionId: 's1', entryId: 'a1', how: 'regenerate' });
    while (keep.sent.length === 0) await new Promise((r) => setImmediate(r));
    keep.release();
    await kept;
    assert.deepEqual(keep.calls, ['ask 3 regenerate', 'send']);

    const cancelled = harness(changed());
    await assert.rejects(cancelled.redo.redo({ sessionId: 's1', entryId: 'u1', how: 'edit', text: 'again' }), /Not sent: you cancelled/);
    assert.deepEqual(cancelled.calls, ['ask 3 edit']);

    const declined = harness(changed(), { choice: 'restore', restored: false });
    await assert.rejects(declined.redo.redo({ sessionId: 's1', entryId: 'u1', how: 'edit', text: 'again' }), /not restored/);
    assert.deepEqual(declined.calls, ['ask 3 edit', 'restore t1']);
  });

  it('sends a message again with the mentions this window sent it with, else the files its summary names', async () => {
    const withFiles = builtin([{ ...userEntry('u1', 'look'), attachments: [{ kind: 'file', name: 'a.ts', uri: 'file:///ws/src/a.ts' }] } as EntryView, notice('n', 'abort')]);
    const h = harness(withFiles);
    h.redo.memory.remember('s1', 'look', [{ kind: 'file', path: 'src/a.ts' }]);
    let done = h.redo.redo({ sessionId: 's1', entryId: 'u1', how: 'retry' });
    while (h.sent.length === 0) await new Promise((r) => setImmediate(r));
    h.release();
    await done;
    assert.deepEqual(h.sent[0].mentions, [{ kind: 'file', path: 'src/a.ts' }]);

    const reloaded = harness(withFiles);
    done = reloaded.redo.redo({ sessionId: 's1', entryId: 'u1', how: 'retry' });
    while (reloaded.sent.length === 0) await new Promise((r) => setImmediate(r));
    reloaded.release();
    await done;
    assert.deepEqual(reloaded.sent[0].mentions, [{ kind: 'file', path: 'src/a.ts' }]);

    const image = builtin([{ ...userEntry('u1', 'see'), attachments: [{ kind: 'image', name: 'shot.png' }] } as EntryView, notice('n', 'error')]);
    await assert.rejects(harness(image).redo.redo({ sessionId: 's1', entryId: 'u1', how: 'retry' }), /shot\.png cannot be attached again/);
  });

  it('rebuilds only files inside the folder from a summary', () => {
    assert.deepEqual(mentionsFromSummaries([{ kind: 'file', name: 'a', uri: 'file:///ws/a.ts' }, { kind: 'file', name: 'p', uri: 'file:///etc/passwd' }, { kind: 'selection', name: 's', uri: 'file:///ws/a.ts' }], '/ws'), {
      mentions: [{ kind: 'file', path: 'a.ts' }],
      missing: ['p', 's'],
    });
  });
});
