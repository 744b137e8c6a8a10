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
