// The approval policy as a pure decision, and the gate's cancel discipline.

import * as assert from 'node:assert/strict';
import type { PermissionOption } from '@agentclientprotocol/sdk';
import { decide, PermissionGate } from '../../../src/extension/core/acp/permissionGate';

const options: PermissionOption[] = [
  { optionId: 'a1', name: 'Allow', kind: 'allow_once' },
  { optionId: 'a2', name: 'Always', kind: 'allow_always' },
  { optionId: 'r1', name: 'Reject', kind: 'reject_once' },
];
const noHooks = { opened() {}, closed() {} };

describe('permission policy', () => {
  it('untrusted workspace: no commands and no writes, whatever the mode', () => {
    for (const mode of ['ask', 'allowReadOnly', 'allowAll'] as const) {
      for (const kind of ['edit', 'delete', 'move', 'execute', 'other']) assert.equal(decide(kind, false, mode), 'reject', `${kind} ${mode}`);
    }
    assert.equal(decide('read', false, 'allowAll'), 'allow');
    assert.equal(decide('read', false, 'ask'), 'ask');
  });

  it('trusted workspace: ask asks, allowReadOnly allows reads only, allowAll allows all', () => {
    assert.equal(decide('execute', true, 'ask'), 'ask');
    assert.equal(decide('read', true, 'ask'), 'ask');
    assert.equal(decide('search', true, 'allowReadOnly'), 'allow');
    assert.equal(decide('edit', true, 'allowReadOnly'), 'ask');
    assert.equal(decide('execute', true, 'allowAll'), 'allow');
  });

  it('maps the person\'s answer onto the agent\'s options', async () => {
    const gate = (answer: 'allowOnce' | 'allowAlways' | 'reject') => new PermissionGate({ isTrusted: () => true, mode: () => 'ask' }, { ask: async () => answer });
    const ask = (g: PermissionGate) => g.answer({ sessionId: 's', title: 't', kind: 'execute' }, options, noHooks, new AbortController().signal);
    assert.deepEqual(await ask(gate('allowOnce')), { outcome: { outcome: 'selected', optionId: 'a1' } });
    assert.deepEqual(await ask(gate('allowAlways')), { outcome: { outcome: 'selected', optionId: 'a2' } });
    assert.deepEqual(await ask(gate('reject')), { outcome: { outcome: 'selected', optionId: 'r1' } });
  });

  it('cancelAll answers every open question `cancelled` at once, even if the prompter never settles', async () => {
    const gate = new PermissionGate({ isTrusted: () => true, mode: () => 'ask' }, { ask: () => new Promise(() => undefined) });
    const events: string[] = [];
    const pending = gate.answer({ sessionId: 's', title: 't', kind: 'edit' }, options, { opened: () => events.push('opened'), closed: (a) => events.push(`closed ${a}`) }, new AbortController().signal);
    assert.equal(gate.openCount, 1);
    gate.cancelAll();
    assert.deepEqual(await pending, { outcome: { outcome: 'cancelled' } });
    assert.deepEqual(events, ['opened', 'closed cancelled']);
    assert.equal(gate.openCount, 0);
  });
});

describe('client-side operations through the gate', () => {
  const exec = (commandLine: string, cwdInside = true) => ({ kind: 'execute' as const, commandLine, cwd: cwdInside ? '/ws' : '/', cwdInside, background: false, envNames: [] });
  const hooks = { opened() {}, closed() {} };
  const setup = (o: { trusted?: boolean; mode?: 'ask' | 'allowReadOnly' | 'allowAll'; byKind?: Record<string, 'ask' | 'allowReadOnly' | 'allowAll'>; answers?: Array<'allowOnce' | 'allowAlways' | 'reject'> } = {}) => {
    const asked: string[] = [];
    const kinds: Array<string | undefined> = [];
    const answers = [...(o.answers ?? [])];
    const gate = new PermissionGate(
      { isTrusted: () => o.trusted ?? true, mode: (kind) => (kinds.push(kind), (kind !== undefined ? o.byKind?.[kind] : undefined) ?? o.mode ?? 'ask') },
      { ask: async (q) => (asked.push(q.title), answers.shift() ?? 'reject') },
      '/ws',
    );
    return { gate, asked, kinds, signal: new AbortController().signal };
  };

  it('passes the tool kind to the policy, so vigil.approvals.byKind applies to permission requests', async () => {
    const { gate, asked, kinds, signal } = setup({ mode: 'allowAll', byKind: { execute: 'ask' } });
    const r = await gate.answer({ sessionId: 's', title: 'rm', kind: 'execute' }, options, noHooks, signal);
    assert.deepEqual(r, { outcome: { outcome: 'selected', optionId: 'r1' } });
    assert.deepEqual(kinds, ['execute']);
    assert.equal(asked.length, 1);
  });

  it('a once-approval with a named command covers that command once, and never another', async () => {
    const { gate, asked, signal } = setup({ answers: ['allowOnce'] });
    await gate.answer({ sessionId: 's', title: 'x', kind: 'execute' }, options, noHooks, signal, { kind: 'execute', rawInput: { command: ['npm', 'test'] } });
    assert.equal(asked.length, 1);
    assert.equal((await gate.authorize('s', exec('rm -rf ~'), hooks, signal)).allowed, false, 'another command is asked (and rejected)');
    assert.equal(asked.length, 2);
    assert.equal((await gate.authorize('s', exec('npm  test'), hooks, signal)).allowed, true, 'the approved one runs without a question');
    assert.equal(asked.length, 2);
    assert.equal((await gate.authorize('s', exec('npm test'), hooks, signal)).allowed, false, 'but only once');
    assert.equal(asked.length, 3);
  });

  it('two operations racing for one approval: exactly one is covered', async () => {
    for (let round = 0; round < 50; round += 1) {
      const { gate, asked, signal } = setup({ answers: ['allowOnce'] });
      await gate.answer({ sessionId: 's', title: 'x', kind: 'execute' }, options, noHooks, signal, { kind: 'execute' });
      const verdicts = await Promise.all([gate.authorize('s', exec('a'), hooks, signal), gate.authorize('s', exec('b'), hooks, signal)]);
      assert.equal(verdicts.filter((v) => v.allowed).length, 1);
      assert.equal(asked.length, 2, 'the other one was asked (and rejected)');
    }
  });

  it('the end of the turn expires once-approvals, not always-approvals', async () => {
    const { gate, signal } = setup({ answers: ['allowOnce'] });
    await gate.answer({ sessionId: 's', title: 'x', kind: 'edit' }, options, noHooks, signal, { kind: 'edit', locations: [{ path: 'a.txt' }] });
    gate.endTurn();
    assert.equal((await gate.authorize('s', { kind: 'edit', path: '/ws/a.txt' }, hooks, signal)).allowed, false);
    const always = setup({ answers: ['allowAlways'] });
    await always.gate.answer({ sessionId: 's', title: 'x', kind: 'edit' }, options, noHooks, always.signal, { kind: 'edit' });
    always.gate.endTurn();
    assert.equal((await always.gate.authorize('s', { kind: 'edit', path: '/ws/b.txt' }, hooks, always.signal)).allowed, true);
    assert.equal(always.asked.length, 1);
  });

  it('Restricted Mode refuses every client operation without asking, even with approvals or allowAll', async () => {
    const { gate, asked, signal } = setup({ trusted: false, mode: 'allowAll', byKind: { execute: 'allowAll' } });
    const verdict = await gate.authorize('s', exec('ls'), hooks, signal);
    assert.equal(verdict.allowed, false);
    assert.match((verdict as { reason: string }).reason, /Restricted Mode.*Trust the workspace/);
    assert.equal(asked.length, 0);
  });

  it('a cwd outside is asked even under allowAll and "allow always" there is not remembered', async () => {
    const { gate, asked, signal } = setup({ mode: 'allowAll', answers: ['allowAlways', 'reject'] });
    assert.equal((await gate.authorize('s', exec('ls', false), hooks, signal)).allowed, true);
    assert.equal((await gate.authorize('s', exec('ls', false), hooks, signal)).allowed, false);
    assert.deepEqual(asked, ['run `ls` in / (outside the workspace)', 'run `ls` in / (outside the workspace)']);
  });
});
