// Elicitations from a real agent process through the ACP client: advertised, bounded, put to the
// person, checked again by the host, and closed by an abort; while one is open the turn waits on the person.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import type { ElicitationAnswer, ElicitationPrompter, ElicitationQuestion } from '../../../src/extension/core/acp/elicitationHost';
import { ElicitationBroker } from '../../../src/extension/presentation/elicitationBroker';
import { AcpHarness } from './acpHarness';

const contextAgent = path.resolve(__dirname, '../../fixtures/agents/fakeContextAgent.js');

/** A scripted person: every question is kept; `answer` decides (or leaves it open until cancelled). */
class ScriptedPerson implements ElicitationPrompter {
  readonly questions: ElicitationQuestion[] = [];
  answer: ((q: ElicitationQuestion) => ElicitationAnswer | Promise<ElicitationAnswer>) | 'wait' = () => ({ action: 'decline' });
  private waiters: Array<() => void> = [];
  ask(question: ElicitationQuestion, signal: AbortSignal): Promise<ElicitationAnswer> {
    this.questions.push(question);
    for (const w of this.waiters.splice(0)) w();
    if (this.answer === 'wait') return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true }));
    return Promise.resolve(this.answer(question));
  }
  async asked(n: number): Promise<void> {
    while (this.questions.length < n) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

describe('elicitations from an agent, answered by the person', function () {
  this.timeout(30_000);
  let h: AcpHarness | undefined;
  let log: string;

  afterEach(async () => {
    await h?.dispose();
    h = undefined;
    await fs.rm(log, { force: true });
  });

  const start = async (elicitations: ElicitationPrompter) => {
    log = path.join(os.tmpdir(), `vigil-elicit-${process.pid}-${Date.now()}.jsonl`);
    h = await AcpHarness.create({ elicitations, launch: () => customLaunch({ command: process.execPath, args: [contextAgent], env: { FAKE_CONTEXT_LOG: log } }) });
    return h;
  };
  const entries = async () => (await fs.readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const answers = async () => (await entries()).filter((e) => e.kind === 'elicitation').map((e) => e.answer as Record<string, unknown>);

  it('advertises form and URL elicitation, and an accepted form reaches the agent with its content', async () => {
    const person = new ScriptedPerson();
    person.answer = () => ({ action: 'accept', content: { name: 'vigil', region: 'eu', replicas: 3, features: ['logs'] } });
    const harness = await start(person);
    assert.equal((await harness.turn('form')).reason, 'completed');
    const init = (await entries()).find((e) => e.kind === 'initialize');
    assert.deepEqual((init?.clientCapabilities as Record<string, unknown>).elicitation, { form: {}, url: {} });
    assert.equal(person.questions[0].mode, 'form');
    assert.equal(person.questions[0].message, 'Please <b>fill</b> in the deploy settings.');
    assert.deepEqual((await answers())[0].result, { action: 'accept', content: { name: 'vigil', region: 'eu', replicas: 3, features: ['logs'] } });
  });

  it('the host checks an accepted form again: wrong values never reach the agent (answered cancel)', async () => {
    const person = new ScriptedPerson();
    // Region outside its options, replicas above the maximum, an unknown field.
    person.answer = () => ({ action: 'accept', content: { name: 'vigil', region: 'mars', replicas: 9, extra: 'x' } });
    const harness = await start(person);
    assert.equal((await harness.turn('form')).reason, 'completed');
    assert.deepEqual((await answers())[0].result, { action: 'cancel' });
    assert.ok(harness.logged('failed the host\'s check'));
  });

  it('decline is passed on; a form beyond the bounds is refused to the agent without asking', async () => {
    const person = new ScriptedPerson();
    const harness = await start(person);
    assert.equal((await harness.turn('form')).reason, 'completed');
    assert.deepEqual((await answers())[0].result, { action: 'decline' });
    assert.equal((await harness.turn('big-form')).reason, 'completed');
    const refused = (await answers())[1].error as { message: string };
    assert.match(refused.message, /51 fields; Vigil shows at most 50/);
    assert.equal(person.questions.length, 1, 'the oversized form was never shown');
  });

  it('a URL elicitation shows the host, waits for elicitation/complete, then answers accept; a javascript: URL is refused', async () => {
    const person = new ScriptedPerson();
    person.answer = 'wait';
    const harness = await start(person);
    const r = await harness.sup.startTurn('session-1', 'url', { source: 'user' });
    assert.equal(r.kind, 'started');
    await person.asked(1);
    const q = person.questions[0];
    assert.equal(q.mode, 'url');
    if (q.mode !== 'url') return;
    assert.match(q.host, /^127\.0\.0\.1:\d+$/);
    // The person opens the link; the agent's own server sees it and sends elicitation/complete.
    await (await fetch(q.url)).text();
    assert.equal(r.kind === 'started' && (await r.ended).reason, 'completed');
    assert.deepEqual((await answers())[0].result, { action: 'accept' });
    person.answer = () => ({ action: 'accept' });
    assert.equal((await harness.turn('bad-url')).reason, 'completed');
    assert.match(((await answers())[1].error as { message: string }).message, /only http and https/);
    assert.equal(person.questions.length, 1);
  });

  it('an open elicitation makes the turn wait on the person; Stop answers it cancel and ends the turn', async () => {
    const person = new ScriptedPerson();
    person.answer = 'wait';
    const harness = await start(person);
    const r = await harness.sup.startTurn('session-1', 'form', { source: 'user' });
    await person.asked(1);
    await harness.waitFor(() => harness.events.some((e) => e.type === 'approvalWaiting' && e.open), 'the turn to wait on the person');
    assert.equal(await harness.sup.abort('session-1', 'Aborted by you'), true);
    const ended = r.kind === 'started' ? await r.ended : undefined;
    assert.ok(ended && ['cancelled', 'aborted', 'completed'].includes(ended.reason), ended?.reason);
    await harness.waitFor(() => harness.events.some((e) => e.type === 'approvalWaiting' && !e.open), 'the wait to end');
    let got: Record<string, unknown>[] = [];
    await harness.waitFor(() => (void answers().then((a) => (got = a)), got.length > 0), 'the agent to get its answer');
    assert.deepEqual(got[0].result, { action: 'cancel' });
  });

  it('the broker refuses a wrong answer and keeps the form open; the first valid answer wins', async () => {
    const broker = new ElicitationBroker(() => 5);
    const changes: string[] = [];
    broker.subscribe((c) => changes.push(c.type));
    const controller = new AbortController();
    const answer = broker.ask({ sessionId: 's', mode: 'form', message: 'm', schema: { type: 'object', properties: { n: { type: 'integer', maximum: 3 } }, required: ['n'] } }, controller.signal);
    const [open] = broker.openFor('s');
    assert.match(String(broker.answer(open.requestId, 'accept', { n: 4 })), /n: At most 3/);
    assert.equal(broker.openFor('s').length, 1);
    assert.equal(broker.answer(open.requestId, 'accept', { n: 2 }), true);
    assert.equal(broker.answer(open.requestId, 'decline'), false);
    assert.deepEqual(await answer, { action: 'accept', content: { n: 2 } });
    assert.deepEqual(changes, ['requested', 'resolved']);
    const url = broker.ask({ sessionId: 's', mode: 'url', message: 'm', url: 'https://example.com/x', host: 'example.com' }, controller.signal);
    const [link] = broker.openFor('s');
    assert.equal(broker.urlOf(link.requestId), 'https://example.com/x');
    assert.match(String(broker.answer(link.requestId, 'accept')), /open it, or cancel/);
    controller.abort();
    assert.deepEqual(await url, { action: 'cancel' });
  });
});
