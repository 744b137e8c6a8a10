// A window that shows a session follows a turn another window runs, live, from the store: running
// (never idle) "in another window", its streaming text and tool cards, its approvals, and its end.

import * as assert from 'node:assert/strict';
import type { HostEvent } from '../../../src/shared/sessionView';
import { RemoteTurnFeed } from '../../../src/extension/presentation/remoteTurnFeed';
import { SessionPresenter } from '../../../src/extension/presentation/sessionPresenter';
import { waitFor } from '../supervisor/harness';
import { SESSION, TwoWindows } from './twoWindows';

describe('following a turn that another window runs', () => {
  let t: TwoWindows;
  let stop: (() => void) | undefined;
  beforeEach(async () => {
    t = await TwoWindows.create();
  });
  afterEach(() => {
    stop?.();
    t.dispose();
  });

  /** Window B opens the session as the session controller does: tail first, then follows from the size before it. */
  async function openInB(): Promise<{ presenter: SessionPresenter; feed: RemoteTurnFeed; posted: HostEvent[] }> {
    const offset = await t.b.cw.transcriptSize(SESSION);
    const { records } = await t.b.sup.sessions.readTail(SESSION, 10_000);
    const meta = (await t.b.sup.sessions.get(SESSION))!;
    const posted: HostEvent[] = [];
    const presenter = new SessionPresenter({ meta, records, live: undefined, tasks: [], approvals: [], elicitations: [] }, (e) => posted.push(e));
    const feed = new RemoteTurnFeed(presenter, () => assert.fail('no rewrite expected'));
    stop = t.b.cw.follow(SESSION, offset, records, (u) => feed.apply(u), 3_600_000);
    return { presenter, feed, posted };
  }

  async function until(what: string, check: () => boolean): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await t.b.cw.kick();
      await new Promise<void>((r) => setImmediate(r));
    }
  }

  it('shows the other window’s turn running, streaming, its tool card and approval, then its end', async () => {
    const { ended } = await t.start(t.a);
    const { presenter, feed } = await openInB();
    await until('the remote turn to show', () => presenter.phase === 'running');
    assert.equal(presenter.snapshot.turn.where, 'another window', 'says where the turn runs');
    assert.ok(feed.current, 'the feed knows the remote turn');

    t.a.agent.emit({ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello from A' } } });
    t.a.agent.emit({ description: 'tool: write', waitingOn: { kind: 'tool', name: 'write', observable: false }, update: { sessionUpdate: 'tool_call', toolCallId: 'tc-9', title: 'write notes.txt', kind: 'edit', status: 'in_progress' } });
    await until('the streamed text and the tool card', () => {
      const json = JSON.stringify(presenter.snapshot.entries);
      return json.includes('Hello from A') && json.includes('tc-9');
    });
    assert.equal(JSON.stringify(presenter.snapshot.entries).split('Hello from A').length, 2, 'the text is shown once');

    t.a.agent.emit({ description: 'permission: write', waitingOn: { kind: 'approval' }, approval: 'opened' });
    const asked = t.a.prompter.ask({ sessionId: SESSION, title: 'write notes.txt', kind: 'edit' }, new AbortController().signal);
    await until('the approval to show in B', () => presenter.snapshot.approvals.length === 1 && presenter.phase === 'awaitingApproval');
    const requestId = presenter.snapshot.approvals[0].requestId;
    assert.ok(feed.isRemoteApproval(requestId));
    assert.deepEqual(await t.b.cw.control.answer(SESSION, requestId, 'allowOnce'), { kind: 'won' });
    assert.equal(await t.pumpUntil(asked, 'A to take B’s answer'), 'allowOnce');
    t.a.agent.emit({ description: 'permission closed', waitingOn: { kind: 'model' }, approval: 'closed' });
    await until('the approval to leave B', () => presenter.snapshot.approvals.length === 0);

    t.a.agent.finish();
    await ended;
    await until('the end to show', () => presenter.phase === 'idle');
    assert.equal(presenter.snapshot.turn.where, undefined);
    assert.equal(feed.current, undefined);
  });

  it('never shows idle while another window holds the turn, even before its board is written', async () => {
    const { presenter } = await openInB();
    const started = t.a.sup.startTurn(SESSION, 'go', { source: 'user' });
    await (await started.then((r) => (r.kind === 'started' ? r : assert.fail('not started')))).turnId;
    await waitFor(() => t.a.agent.current !== undefined);
    // The lease alone is enough: the board may lag.
    await t.a.cw.mailbox.clearBoard(SESSION, (await t.a.sup.lease.read(SESSION))!.holder!.turnId);
    await until('the lease to be seen', () => presenter.phase === 'running');
    t.a.agent.finish();
  });

  it('waits for the end record of a turn whose lease is gone, and skips records this window wrote itself', async () => {
    const meta = (await t.b.sup.sessions.get(SESSION))!;
    const presenter = new SessionPresenter({ meta, records: [], live: undefined, tasks: [], approvals: [], elicitations: [] }, () => undefined);
    const own = { type: 'interrupted' as const, at: 2, turnId: 'x', reason: 'taken over here' };
    const feed = new RemoteTurnFeed(presenter, () => assert.fail('no reset'), (r) => r === own);
    const remote = { turnId: 'x', windowId: 'window-a', source: 'user' as const, startedAt: 1, phase: 'awaitingApproval' as const, waitingOn: 'your approval', lastActivityAt: 1 };
    feed.apply({ records: [], reset: false, remote, approvals: [], elicitations: [] });
    assert.equal(presenter.phase, 'awaitingApproval');
    // The takeover already moved the lease, its end record is not read yet: not ended, not idle.
    feed.apply({ records: [], reset: false, remote: undefined, approvals: [], elicitations: [] });
    assert.equal(presenter.phase, 'awaitingApproval');
    feed.apply({ records: [own], reset: false, remote: undefined, approvals: [], elicitations: [] });
    assert.equal(presenter.phase, 'interrupted');
    const texts = JSON.stringify(presenter.snapshot);
    assert.ok(texts.includes('taken over here'), 'the end says why');
    assert.equal(presenter.snapshot.entries.filter((e) => e.kind === 'notice' && e.notice.text === 'taken over here').length, 1, 'the own record is not shown twice');
  });

  it('keeps waiting for the end record however many passes run while a takeover holds the lease', async () => {
    const meta = (await t.b.sup.sessions.get(SESSION))!;
    const presenter = new SessionPresenter({ meta, records: [], live: undefined, tasks: [], approvals: [], elicitations: [] }, () => undefined);
    const end = { type: 'interrupted' as const, at: 2, turnId: 'y', reason: 'taken over by the other window' };
    const feed = new RemoteTurnFeed(presenter, () => assert.fail('no reset'));
    const remote = { turnId: 'y', windowId: 'window-a', source: 'user' as const, startedAt: 1, phase: 'running' as const, waitingOn: 'agent', lastActivityAt: 1 };
    feed.apply({ records: [], reset: false, remote, approvals: [], elicitations: [] });
    // Every write of the takeover (lease, epoch mark, lock) wakes the follower before the end record lands.
    for (let pass = 0; pass < 20; pass += 1) feed.apply({ records: [], reset: false, remote: undefined, approvals: [], elicitations: [], recovering: true });
    assert.equal(presenter.phase, 'running', 'not ended with a guessed reason while the takeover writes the end');
    feed.apply({ records: [end], reset: false, remote: undefined, approvals: [], elicitations: [] });
    assert.equal(presenter.phase, 'interrupted');
    assert.ok(JSON.stringify(presenter.snapshot).includes('taken over by the other window'), 'the end says what the takeover wrote');
  });
});
