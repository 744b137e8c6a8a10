// Which agent a session's next process starts with in Restricted Mode, with the person's question parked so the
// test decides when it is answered: one question per folder and agent however many sessions start at once, what
// serves each session (for the view's line), trust granted while asking, Change… and Forget.

import * as assert from 'node:assert/strict';
import type { CustomAgentSettings } from '../../../src/extension/core/acp/agentLaunch';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import type { ConsentQuestion } from '../../../src/extension/core/settings/restrictedAgent';
import { RestrictedAgentGate } from '../../../src/extension/core/settings/restrictedAgentGate';

const gemini: CustomAgentSettings = { command: '/usr/bin/gemini', args: ['--acp'], env: { GEMINI_API_KEY: 'k' } };

function world(o: { trusted?: boolean; folders?: Record<string, string>; stored?: unknown } = {}) {
  const w = {
    trusted: o.trusted ?? false,
    stored: o.stored,
    questions: [] as { question: ConsentQuestion; answer(allow: boolean): void; fail(error: Error): void }[],
    refreshes: 0,
    gate: undefined as unknown as RestrictedAgentGate,
  };
  const folders = o.folders ?? { s1: '/w/a', s2: '/w/a', s3: '/w/b' };
  w.gate = new RestrictedAgentGate({
    store: { read: () => w.stored, write: async (entries) => void (w.stored = entries) },
    isTrusted: () => w.trusted,
    folderOf: async (sessionId) => folders[sessionId] ?? '',
    ask: (question) => new Promise<boolean>((resolve, reject) => w.questions.push({ question, answer: resolve, fail: reject })),
    log: silentLogger,
    refreshMeta: () => void w.refreshes++,
  });
  return w;
}

/** Lets the admits in flight reach their question (they await the folder first). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('RestrictedAgentGate', () => {
  it('trusted folder, or no agent of your own: nothing is asked and nothing is shown', async () => {
    const w = world({ trusted: true });
    assert.deepEqual(await w.gate.admit('s1', gemini), { agent: gemini });
    w.trusted = false;
    assert.deepEqual(await w.gate.admit('s1', undefined), { agent: undefined });
    assert.equal(w.questions.length, 0);
    assert.equal(w.gate.line('s1'), undefined);
  });

  it('sessions of one folder starting together share one question; another folder gets its own', async () => {
    const w = world();
    const first = w.gate.admit('s1', gemini);
    const second = w.gate.admit('s2', gemini);
    const other = w.gate.admit('s3', gemini);
    await settle();
    assert.equal(w.questions.length, 2, 'one question for /w/a, one for /w/b');
    assert.match(w.questions[0].question.message, /Let gemini work in this folder in Restricted Mode\?/);
    assert.doesNotMatch(w.questions[0].question.detail, /--acp|GEMINI_API_KEY/, 'neither arguments nor environment');
    w.questions[0].answer(false);
    assert.deepEqual(await first, {}, 'not allowed: the built-in agent serves');
    assert.deepEqual(await second, {});
    w.questions[1].answer(true);
    assert.deepEqual(await other, { agent: gemini, readOnlyMode: true }, 'allowed: your agent, in its read-only or plan mode');
    assert.equal(w.gate.servesBuiltin('s1'), true);
    assert.match(w.gate.line('s1')!.text, /the built-in agent answers, read-only/);
    assert.equal(w.gate.servesBuiltin('s3'), false);
    assert.match(w.gate.line('s3')!.text, /gemini works outside Vigil's control/);
    assert.ok(w.refreshes >= 3, 'each session’s view learns what serves it');
  });

  it('an answer holds: "Not now" for this window, an allowance also for a later window of the same storage', async () => {
    const w = world();
    const declined = w.gate.admit('s1', gemini);
    await settle();
    w.questions[0].answer(false);
    await declined;
    const allowed = w.gate.admit('s3', gemini);
    await settle();
    w.questions[1].answer(true);
    await allowed;
    assert.deepEqual(await w.gate.admit('s2', gemini), {}, 'asked no more in this window');
    assert.equal(w.questions.length, 2);
    const later = world({ stored: w.stored });
    assert.deepEqual(await later.gate.admit('s3', gemini), { agent: gemini, readOnlyMode: true }, 'the allowance is remembered');
    const asking = later.gate.admit('s1', gemini);
    await settle();
    assert.equal(later.questions.length, 1, '"Not now" was for that window only');
    later.questions[0].answer(false);
    await asking;
    const changedArgs = later.gate.admit('s3', { ...gemini, args: ['--acp', '--yolo'] });
    await settle();
    assert.equal(later.questions.length, 2, 'other arguments: another agent, asked again');
    later.questions[1].answer(false);
    assert.deepEqual(await changedArgs, {});
  });

  it('trust granted while the question is open: your agent as configured, and no line', async () => {
    const w = world();
    const admitted = w.gate.admit('s1', gemini);
    await settle();
    w.trusted = true;
    w.questions[0].answer(false);
    assert.deepEqual(await admitted, { agent: gemini });
    assert.equal(w.gate.line('s1'), undefined);
    assert.equal(w.gate.servesBuiltin('s1'), false);
  });

  it('a question that fails counts as "Not now": the built-in agent serves', async () => {
    const w = world();
    const admitted = w.gate.admit('s1', gemini);
    await settle();
    w.questions[0].fail(new Error('the dialog could not be shown'));
    assert.deepEqual(await admitted, {});
    assert.equal(w.gate.servesBuiltin('s1'), true);
  });

  it('Change… flips what the folder’s sessions show at once; Forget makes the next start ask again', async () => {
    const w = world();
    const admitted = w.gate.admit('s1', gemini);
    await settle();
    w.questions[0].answer(false);
    await admitted;
    const changing = w.gate.decideAgain('/w/a', gemini);
    await settle();
    w.questions[1].answer(true);
    assert.equal(await changing, true);
    assert.equal(w.gate.servesBuiltin('s1'), false);
    assert.match(w.gate.line('s1')!.text, /works outside Vigil's control/);
    assert.deepEqual(await w.gate.admit('s1', gemini), { agent: gemini, readOnlyMode: true });
    assert.equal(await w.gate.forget('/w/a'), true);
    assert.equal(w.gate.line('s1'), undefined);
    const again = w.gate.admit('s1', gemini);
    await settle();
    assert.equal(w.questions.length, 3, 'asked again after Forget');
    w.questions[2].answer(false);
    await again;
  });
});
