// An agent's elicitation (a form or a link) treated as an approval is, with two real TurnSupervisors on one
// storage root: shown and answerable in every window of the session, the first answer wins and closes the
// others' forms, and nobody's answer within the approval timeout declines it, the transcript saying so.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { CreateElicitationRequest, CreateElicitationResponse } from '@agentclientprotocol/sdk';
import { ElicitationHost, type ElicitationQuestion } from '../../../src/extension/core/acp/elicitationHost';
import { elicitationTimeoutMessage } from '../../../src/extension/core/crosswindow/remoteElicitations';
import type { SupervisorEvent } from '../../../src/extension/core/supervisor/supervisorEvents';
import { answerElicitation, elicitationUrl, type ElicitationRoutes } from '../../../src/extension/presentation/elicitationAnswers';
import { checkAnswer, ElicitationBroker } from '../../../src/extension/presentation/elicitationBroker';
import { RemoteTurnFeed } from '../../../src/extension/presentation/remoteTurnFeed';
import { SessionPresenter } from '../../../src/extension/presentation/sessionPresenter';
import type { ElicitationView } from '../../../src/shared/sessionView';
import { flushMicrotasks } from '../../fakes/fakeClock';
import { recordingLogger, waitFor } from '../supervisor/harness';
import { SESSION, TwoWindows, type Window } from './twoWindows';

const schema = { type: 'object', properties: { region: { type: 'string', enum: ['eu', 'us'] } }, required: ['region'] };
const formParams = { sessionId: 'acp-1', mode: 'form', message: 'Deploy where?', requestedSchema: schema } as unknown as CreateElicitationRequest;

/** Waits for a state that real file I/O will reach, delivering mailbox changes to both windows meanwhile. */
async function until(t: TwoWindows, what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await t.a.cw.kick();
    await t.b.cw.kick();
    await new Promise<void>((r) => setImmediate(r));
  }
}

describe('cross-window elicitations (two supervisors, one storage root)', () => {
  let t: TwoWindows;
  let stop: (() => void) | undefined;
  beforeEach(async () => {
    t = await TwoWindows.create();
  });
  afterEach(() => {
    stop?.();
    stop = undefined;
    t.dispose();
  });

  /** The holder's elicitation host as an ACP agent handle builds it, its form the session view's broker. */
  function holderOf(w: Window): { broker: ElicitationBroker; host: ElicitationHost; closed: string[]; ask(params: CreateElicitationRequest, signal?: AbortSignal): Promise<CreateElicitationResponse> } {
    const broker = new ElicitationBroker();
    const host = new ElicitationHost(SESSION, w.cw.elicitationPrompter(broker), recordingLogger(w.logs));
    const closed: string[] = [];
    // As acpConnection does: the turn waits on the person (its watchdog suspended) while the question is open.
    const hooks = {
      opened: (title: string) => w.agent.emit({ description: `permission: ${title}`, waitingOn: { kind: 'approval' }, approval: 'opened' }),
      closed: (_title: string, answer: string) => {
        closed.push(answer);
        w.agent.emit({ description: 'permission closed', waitingOn: { kind: 'model' }, approval: 'closed' });
      },
    };
    return { broker, host, closed, ask: (params, signal = new AbortController().signal) => host.create(params, hooks, signal) };
  }

  /** Window B shows the session as the session controller does: tail first, then follows the store. */
  async function openInB(): Promise<{ presenter: SessionPresenter; feed: RemoteTurnFeed; shown(): ElicitationView[] }> {
    const offset = await t.b.cw.transcriptSize(SESSION);
    const { records } = await t.b.sup.sessions.readTail(SESSION, 10_000);
    const presenter = new SessionPresenter({ meta: (await t.b.sup.sessions.get(SESSION))!, records, live: undefined, tasks: [], approvals: [] }, () => undefined);
    const feed = new RemoteTurnFeed(presenter, () => assert.fail('no rewrite expected'));
    stop = t.b.cw.follow(SESSION, offset, records, (u) => feed.apply(u), 3_600_000);
    return { presenter, feed, shown: () => presenter.snapshot.elicitations ?? [] };
  }

  it('a form waiting in one window is shown and answered in another; the first answer wins and every form closes', async () => {
    await t.start(t.a);
    const a = holderOf(t.a);
    const response = a.ask(formParams);
    const b = await openInB();
    await until(t, 'B to show the form', () => b.shown().length === 1);
    // The holder's own form opens once publishing is done (a reader may see the file a moment before).
    await waitFor(() => a.broker.openFor(SESSION).length === 1, 'the holder to show it too');
    const [view] = b.shown();
    assert.equal(view.mode, 'form');
    assert.equal(view.message, 'Deploy where?');
    assert.equal(b.presenter.phase, 'awaitingApproval', 'B says the turn waits on the person');
    await until(t, 'the status bar of every window to count it', () => t.b.cw.waiting.length === 1);
    assert.equal(t.b.cw.waiting[0].request.title, 'answer a form: Deploy where?');

    // B answers as its session controller does: checked against the form first, then claimed in the store.
    const routes: ElicitationRoutes = {
      local: new ElicitationBroker(),
      remote: (requestId) => b.feed.remoteElicitation(requestId),
      claim: (sessionId, requestId, answer) => t.b.cw.control.answerElicitation(sessionId, requestId, answer),
    };
    await assert.rejects(answerElicitation(routes, SESSION, view.requestId, 'accept', { region: 'mars' }), /region: Choose one of the options/);
    assert.equal(await answerElicitation(routes, SESSION, view.requestId, 'accept', { region: 'eu' }), 'remote');
    assert.deepEqual(await t.pumpUntil(response, 'the holder to take B’s answer'), { action: 'accept', content: { region: 'eu' } });
    assert.deepEqual(a.broker.openFor(SESSION), [], 'the holder’s form closed');
    assert.deepEqual(a.closed, ['accept'], 'the wait on the person ended');
    await until(t, 'B’s form to close', () => b.shown().length === 0);
    assert.equal(await answerElicitation(routes, SESSION, view.requestId, 'decline'), 'gone', 'a late answer loses');
    await until(t, 'the status bar to clear', () => t.b.cw.waiting.length === 0);
  });

  it('nobody answers: declined after the approval timeout, the transcript says so, and the watchdog resumes', async () => {
    t.approvalTimeoutMs = 10_000;
    await t.start(t.a);
    const events: SupervisorEvent[] = [];
    t.a.sup.subscribe((e) => events.push(e));
    const a = holderOf(t.a);
    const response = a.ask(formParams);
    await waitFor(() => a.broker.openFor(SESSION).length === 1, 'the holder’s form');
    const b = await openInB();
    await until(t, 'B to show the form', () => b.shown().length === 1);
    let settled: CreateElicitationResponse | undefined;
    void response.then((r) => (settled = r));
    // Far past the watchdog's 10 s: a turn that waits on the person is not stalled.
    await t.clock.advance(9_999);
    await flushMicrotasks();
    assert.equal(settled, undefined, 'still waiting before the timeout');
    assert.ok(!events.some((e) => e.type === 'stallObserved'), 'no stall while the person is asked');
    await t.clock.advance(1);
    assert.deepEqual(await response, { action: 'decline' });
    assert.deepEqual(a.broker.openFor(SESSION), [], 'the holder’s form was withdrawn');
    assert.deepEqual(a.closed, ['decline']);
    assert.ok(events.some((e) => e.type === 'approvalWaiting' && !e.open), 'the turn no longer waits on the person');
    await until(t, 'B’s form to close', () => b.shown().length === 0);
    const question: ElicitationQuestion = { sessionId: SESSION, mode: 'form', message: 'Deploy where?', schema };
    const text = elicitationTimeoutMessage(question, 10);
    assert.match(text, /nobody answered within 10 s in any window, so Vigil declined it for you/);
    await until(t, 'the timeout notice in the transcript', async () => JSON.stringify((await t.a.sup.sessions.readAll(SESSION)).records).includes(JSON.stringify(text).slice(1, -1)));
    // The watchdog runs again: the quiet agent is now a stall.
    await t.clock.advance(10_000);
    assert.ok(events.some((e) => e.type === 'stallObserved'), 'the watchdog resumed');
  });

  it('an abort of the turn cancels it everywhere: the store answers cancel, and a later answer is told it is gone', async () => {
    await t.start(t.a);
    const a = holderOf(t.a);
    const request = new AbortController();
    const response = a.ask(formParams, request.signal);
    const b = await openInB();
    await until(t, 'B to show the form', () => b.shown().length === 1);
    const [view] = b.shown();
    request.abort();
    assert.deepEqual(await response, { action: 'cancel' });
    await until(t, 'B’s form to close', () => b.shown().length === 0);
    assert.deepEqual(await t.b.cw.control.answerElicitation(SESSION, view.requestId, { action: 'decline' }), { kind: 'gone' });
  });

  it('a link is shown with its host in every window, and closes everywhere when the agent says its flow completed', async () => {
    await t.start(t.a);
    const a = holderOf(t.a);
    const response = a.ask({ sessionId: 'acp-1', mode: 'url', message: 'Sign in', url: 'https://auth.example.com/start?x=1', elicitationId: 'el-1' } as unknown as CreateElicitationRequest);
    const b = await openInB();
    await until(t, 'B to show the link', () => b.shown().length === 1);
    const [view] = b.shown();
    assert.ok(view.mode === 'url');
    assert.equal(view.host, 'auth.example.com');
    const routes: ElicitationRoutes = { local: new ElicitationBroker(), remote: (id) => b.feed.remoteElicitation(id), claim: () => assert.fail('nothing is claimed') };
    assert.equal(elicitationUrl(routes, view.requestId), 'https://auth.example.com/start?x=1', 'B opens the link itself');
    await assert.rejects(answerElicitation(routes, SESSION, view.requestId, 'accept'), /open it, or cancel/, 'a click does not accept a link');
    a.host.complete('el-1');
    assert.deepEqual(await response, { action: 'accept' });
    await until(t, 'B’s link to close', () => b.shown().length === 0);
  });

  it('a turn taken over from a frozen window takes its open form with it: nothing is left waiting in the store', async () => {
    const { turnId } = await t.start(t.a);
    const a = holderOf(t.a);
    void a.ask(formParams);
    await waitFor(() => a.broker.openFor(SESSION).length === 1, 'the holder’s form');
    // Window A is frozen: its cross-window side stops reading the mailbox.
    t.a.cw.dispose();
    await until(t, 'every window to count the form', () => t.b.cw.waiting.length === 1);
    const [request] = await t.b.cw.mailbox.listElicitations(SESSION);
    assert.equal((await t.b.cw.control.takeOver(SESSION, turnId)).kind, 'takenOver');
    assert.deepEqual(await t.b.cw.mailbox.listElicitations(SESSION), [], 'the form was withdrawn');
    assert.equal((await t.b.cw.mailbox.readElicitationAnswer(SESSION, request.requestId))?.action, undefined, 'its answer was swept with it');
    await until(t, 'the status bars to clear', () => t.b.cw.waiting.length === 0);
  });

  it('the holder’s own answer and another window’s race: exactly one wins, every round (50 rounds)', async function () {
    this.timeout(120_000);
    await t.start(t.a);
    const a = holderOf(t.a);
    const tally = { holder: 0, b: 0 };
    for (let round = 0; round < 50; round += 1) {
      const response = a.ask(formParams);
      await waitFor(() => a.broker.openFor(SESSION).length === 1, 'the holder’s form');
      let requestId = '';
      await until(t, 'the form to be published', async () => {
        const listed = await t.b.cw.mailbox.listElicitations(SESSION);
        requestId = listed[0]?.requestId ?? '';
        return listed.length === 1;
      });
      const [local] = a.broker.openFor(SESSION);
      const [rb] = await Promise.all([
        t.b.cw.control.answerElicitation(SESSION, requestId, { action: 'accept', content: { region: 'us' } }),
        Promise.resolve().then(() => a.broker.answer(local.requestId, 'decline')),
      ]);
      const got = await t.pumpUntil(response, 'the holder to settle');
      const expected = rb.kind === 'won' ? { action: 'accept', content: { region: 'us' } } : { action: 'decline' };
      assert.deepEqual(got, expected, `round ${round}: the agent got another answer than the winner's`);
      if (rb.kind === 'lost') assert.equal(rb.answer, 'decline', `round ${round}: B was told another answer`);
      assert.deepEqual(a.broker.openFor(SESSION), [], `round ${round}: the holder's form stayed open`);
      await until(t, 'the request to be withdrawn', async () => (await t.b.cw.mailbox.listElicitations(SESSION)).length === 0);
      tally[rb.kind === 'won' ? 'b' : 'holder'] += 1;
    }
    assert.equal(tally.holder + tally.b, 50);
  });
});

describe('cross-window elicitations with hostile input', () => {
  let t: TwoWindows;
  let stop: (() => void) | undefined;
  beforeEach(async () => {
    t = await TwoWindows.create();
  });
  afterEach(() => {
    stop?.();
    t.dispose();
  });

  async function follow(): Promise<{ shown(): ElicitationView[] }> {
    const { records } = await t.b.sup.sessions.readTail(SESSION, 10_000);
    const presenter = new SessionPresenter({ meta: (await t.b.sup.sessions.get(SESSION))!, records, live: undefined, tasks: [], approvals: [] }, () => undefined);
    const feed = new RemoteTurnFeed(presenter, () => undefined);
    stop = t.b.cw.follow(SESSION, await t.b.cw.transcriptSize(SESSION), records, (u) => feed.apply(u), 3_600_000);
    return { shown: () => presenter.snapshot.elicitations ?? [] };
  }

  it('a form too large for the store still reaches other windows, which say so and can decline it', async () => {
    await t.start(t.a);
    const broker = new ElicitationBroker();
    const prompter = t.a.cw.elicitationPrompter(broker);
    // 3 MB of schema the host accepted (an agent's extra keys are kept as sent).
    const huge = { ...schema, padding: 'x'.repeat(3 * 1024 * 1024) };
    const response = prompter.ask({ sessionId: SESSION, mode: 'form', message: 'Big form', schema: huge }, new AbortController().signal);
    const b = await follow();
    await until(t, 'B to show the form', () => b.shown().length === 1);
    const [view] = b.shown();
    assert.ok(view.mode === 'form');
    assert.match(view.message, /^Big form\n\nThis form is too large to show in another window/);
    assert.match(String(checkAnswer(view, 'accept', { region: 'eu' })), /cannot be answered/);
    assert.deepEqual(await t.b.cw.control.answerElicitation(SESSION, view.requestId, { action: 'decline' }), { kind: 'won' });
    assert.deepEqual(await t.pumpUntil(response, 'the holder to take the decline'), { action: 'decline' });
  });

  it('an answer larger than the holder reads is refused unwritten; a link that fails the check again is not shown', async () => {
    await t.start(t.a);
    const broker = new ElicitationBroker();
    const response = t.a.cw.elicitationPrompter(broker).ask({ sessionId: SESSION, mode: 'form', message: 'm', schema }, new AbortController().signal);
    let requestId = '';
    await until(t, 'the form to be published', async () => ((requestId = (await t.b.cw.mailbox.listElicitations(SESSION))[0]?.requestId ?? ''), requestId !== ''));
    await waitFor(() => broker.openFor(SESSION).length === 1, 'the holder’s form');
    const big = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, '\u0001'.repeat(10_000)]));
    await assert.rejects(t.b.cw.control.answerElicitation(SESSION, requestId, { action: 'accept', content: big }), /larger than 2 MB.*Shorten it/);
    await fs.access(t.b.cw.mailbox.elicitationAnswerFile(SESSION, requestId)).then(() => assert.fail('an answer file was written'), () => undefined);
    assert.equal(broker.openFor(SESSION).length, 1, 'the holder still waits');
    // A link written into the store by anything but the holder's check (here: by hand) is not offered to open.
    const [published] = await t.b.cw.mailbox.listElicitations(SESSION);
    await fs.writeFile(path.join(t.b.cw.mailbox.dir, `${SESSION}.forged.elicitation.json`), JSON.stringify({ ...published, requestId: 'forged', mode: 'url', url: 'javascript:alert(1)', host: 'x', schema: undefined }));
    const b = await follow();
    await until(t, 'B to show the real form', () => b.shown().length === 1);
    assert.equal(b.shown()[0].requestId, requestId, 'the forged link is not shown');
    broker.answer(broker.openFor(SESSION)[0].requestId, 'cancel');
    assert.deepEqual(await t.pumpUntil(response, 'the holder to settle'), { action: 'cancel' });
  });

  it('a damaged answer in the store does not keep the question waiting: the timeout withdraws it', async () => {
    t.approvalTimeoutMs = 5_000;
    await t.start(t.a);
    const broker = new ElicitationBroker();
    const response = t.a.cw.elicitationPrompter(broker).ask({ sessionId: SESSION, mode: 'form', message: 'm', schema }, new AbortController().signal);
    let requestId = '';
    await until(t, 'the form to be published', async () => ((requestId = (await t.b.cw.mailbox.listElicitations(SESSION))[0]?.requestId ?? ''), requestId !== ''));
    await fs.writeFile(t.b.cw.mailbox.elicitationAnswerFile(SESSION, requestId), '{"version":1,"action":"accept","content":');
    // The holder's form opens once the question is published, with its timeout running.
    await waitFor(() => broker.openFor(SESSION).length === 1, 'the holder’s form');
    await t.a.cw.kick();
    await t.clock.advance(5_000);
    assert.deepEqual(await t.pumpUntil(response, 'the holder to give up on the damaged answer'), { action: 'cancel' });
    assert.ok(t.a.logs.some((l) => /stored answer to the agent's form cannot be read/.test(l.message)), 'the log says why');
    assert.deepEqual(broker.openFor(SESSION), []);
  });
});
