// vigil.approvals.byKind through the real gate: settings as the validator reads them, the mode per tool kind as
// VS Code's SettingsApprovalPolicy gives it (approvalModeFor), and the PermissionGate deciding agent requests and
// Vigil's own client-side checks. Also the gate's question ends with the agent's request.

import * as assert from 'node:assert/strict';
import type { PermissionOption } from '@agentclientprotocol/sdk';
import { PermissionGate } from '../../../src/extension/core/acp/permissionGate';
import type { PermissionAnswer, PermissionQuestion } from '../../../src/extension/core/acp/hostPorts';
import { approvalModeFor, validateSettings } from '../../../src/extension/core/settings/settingsValidation';

const options: PermissionOption[] = [
  { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];
const noHooks = { opened() {}, closed() {} };

function gateFor(values: Record<string, unknown>, o: { trusted?: boolean; answer?: PermissionAnswer } = {}) {
  const { settings, issues } = validateSettings((key) => values[key]);
  assert.deepEqual(issues, []);
  const asked: PermissionQuestion[] = [];
  const gate = new PermissionGate(
    { isTrusted: () => o.trusted ?? true, mode: (kind) => approvalModeFor(settings.approvals, kind) },
    { ask: async (question) => (asked.push(question), o.answer ?? 'reject') },
    '/ws',
  );
  return { gate, asked };
}

const request = (gate: PermissionGate, kind: string) => gate.answer({ sessionId: 's', title: kind, kind }, options, noHooks, new AbortController().signal, { kind });
const exec = { kind: 'execute' as const, commandLine: 'make', cwd: '/ws', cwdInside: true, background: false, envNames: [] };
const write = { kind: 'edit' as const, path: '/ws/a.txt' };

describe('vigil.approvals.byKind through the permission gate', () => {
  it('allowAll with { execute: "ask" }: an execute request is asked, an edit request allowed unasked', async () => {
    const { gate, asked } = gateFor({ 'approvals.policy': 'allowAll', 'approvals.byKind': { execute: 'ask' } });
    assert.deepEqual(await request(gate, 'execute'), { outcome: { outcome: 'selected', optionId: 'no' } });
    assert.deepEqual(asked.map((q) => q.kind), ['execute']);
    assert.deepEqual(await request(gate, 'edit'), { outcome: { outcome: 'selected', optionId: 'yes' } });
    assert.deepEqual(asked.map((q) => q.kind), ['execute'], 'the edit was not asked');
  });

  it('the same override applies to Vigil’s own checks: a command is asked, a write is not', async () => {
    const { gate, asked } = gateFor({ 'approvals.policy': 'allowAll', 'approvals.byKind': { execute: 'ask' } }, { answer: 'allowOnce' });
    const signal = new AbortController().signal;
    assert.equal((await gate.authorize('s', exec, noHooks, signal)).allowed, true);
    assert.equal((await gate.authorize('s', write, noHooks, signal)).allowed, true);
    assert.deepEqual(asked.map((q) => q.kind), ['execute']);
  });

  it('ask with { edit: "allowAll" }: the write runs unasked, the command is asked', async () => {
    const { gate, asked } = gateFor({ 'approvals.policy': 'ask', 'approvals.byKind': { edit: 'allowAll' } });
    const signal = new AbortController().signal;
    assert.equal((await gate.authorize('s', write, noHooks, signal)).allowed, true);
    assert.equal((await gate.authorize('s', exec, noHooks, signal)).allowed, false);
    assert.deepEqual(asked.map((q) => q.kind), ['execute']);
  });

  it('switch_mode can be overridden like every other kind', async () => {
    const { gate, asked } = gateFor({ 'approvals.policy': 'allowAll', 'approvals.byKind': { switch_mode: 'ask' } });
    await request(gate, 'switch_mode');
    assert.deepEqual(asked.map((q) => q.kind), ['switch_mode']);
  });

  it('an override never loosens Restricted Mode', async () => {
    const { gate, asked } = gateFor({ 'approvals.policy': 'allowAll', 'approvals.byKind': { execute: 'allowAll', edit: 'allowAll' } }, { trusted: false });
    assert.deepEqual(await request(gate, 'execute'), { outcome: { outcome: 'selected', optionId: 'no' } });
    assert.equal((await gate.authorize('s', write, noHooks, new AbortController().signal)).allowed, false);
    assert.deepEqual(asked, []);
  });
});

describe('a gate question ends with the agent’s request', () => {
  const pendingGate = () => {
    const seen: AbortSignal[] = [];
    const gate = new PermissionGate({ isTrusted: () => true, mode: () => 'ask' }, { ask: (_q, signal) => (seen.push(signal), new Promise<PermissionAnswer>(() => undefined)) });
    return { gate, seen };
  };

  it('the request’s abort answers `cancelled` and withdraws the question from the prompter', async () => {
    const { gate, seen } = pendingGate();
    const requestAbort = new AbortController();
    const answer = gate.ask({ sessionId: 's', title: 't', kind: 'execute' }, noHooks, requestAbort.signal);
    assert.equal(gate.openCount, 1);
    requestAbort.abort();
    assert.equal(await answer, 'cancelled');
    assert.equal(seen[0].aborted, true);
    assert.equal(gate.openCount, 0);
  });

  it('a request already aborted is answered `cancelled`, never left waiting on the person', async () => {
    const { gate } = pendingGate();
    assert.equal(await gate.ask({ sessionId: 's', title: 't', kind: 'execute' }, noHooks, AbortSignal.abort()), 'cancelled');
  });
});
