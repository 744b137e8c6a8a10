// The agent state on the view's wire: the webview accepts the host's bounded state and the header
// intent, rejects oversize or malformed state, and the presenter and reducer carry it into the snapshot.

import * as assert from 'node:assert/strict';
import type { AgentStateView } from '../../../src/shared/agentState';
import { applyHostEvent } from '../../../src/shared/sessionViewReducer';
import { parseHostMessage, parseWebviewMessage } from '../../../src/shared/webviewProtocol';
import { SessionPresenter } from '../../../src/extension/presentation/sessionPresenter';
import type { HostEvent } from '../../../src/shared/sessionView';
import { ModelStub, recordingHandlers, snapshotWith, stubSurface } from './viewBuilders';
import { SessionViewChannel } from '../../../src/extension/presentation/sessionViewChannel';
import { optionHandlers, type OptionPorts } from '../../../src/extension/presentation/handlers/options';

const agent: AgentStateView = {
  options: [
    { id: 'model', name: 'Model', category: 'model', kind: 'select', current: 'a', choices: [{ value: 'a', name: 'A', group: 'Fast' }, { value: 'b', name: 'B' }] },
    { id: 'mode', name: 'Mode', category: 'mode', legacyMode: true, kind: 'select', current: 'code', choices: [{ value: 'code', name: 'Code' }] },
    { id: 'web', name: 'Web search', kind: 'boolean', current: false },
  ],
  commands: [{ name: 'review', description: 'Review' }, { name: 'explain', description: 'Explain', hint: 'symbol' }],
  usage: { used: 1_000, size: 200_000, cost: { amount: 0.5, currency: 'USD' } },
  pending: 'Mode → Plan',
};

describe('agent state in the session view', () => {
  it('the webview accepts the state in snapshots and events', () => {
    assert.ok(parseHostMessage({ type: 'snapshot', seq: 1, snapshot: snapshotWith([], { agent }) }).ok);
    assert.ok(parseHostMessage({ type: 'event', seq: 2, event: { type: 'agentStateChanged', agent } }).ok);
  });

  it('rejects state beyond the bounds or with unknown fields', () => {
    const many = { ...agent, commands: Array.from({ length: 201 }, (_, i) => ({ name: `c${i}`, description: '' })) };
    assert.equal(parseHostMessage({ type: 'event', seq: 2, event: { type: 'agentStateChanged', agent: many } }).ok, false);
    const long = { ...agent, options: [{ ...agent.options[2], name: 'x'.repeat(101) }] };
    assert.equal(parseHostMessage({ type: 'event', seq: 2, event: { type: 'agentStateChanged', agent: long } }).ok, false);
    const extra = { ...agent, commands: [{ name: 'a', description: '', onclick: 'x' }] };
    assert.equal(parseHostMessage({ type: 'event', seq: 2, event: { type: 'agentStateChanged', agent: extra } }).ok, false);
    const badUsage = { ...agent, usage: { used: -1, size: 10 } };
    assert.equal(parseHostMessage({ type: 'event', seq: 2, event: { type: 'agentStateChanged', agent: badUsage } }).ok, false);
  });

  it('accepts the header intent and bounds its option id', () => {
    assert.ok(parseWebviewMessage({ type: 'agentOption', id: 'w1', sessionId: 's1', configId: 'mode' }).ok);
    assert.ok(parseWebviewMessage({ type: 'agentOption', id: 'w2' }).ok);
    assert.equal(parseWebviewMessage({ type: 'agentOption', id: 'w3', configId: 'x'.repeat(257) }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'agentOption', id: 'w4', configId: 7 }).ok, false);
  });

  it('the presenter seeds the snapshot with the known state and posts every change', () => {
    const posted: HostEvent[] = [];
    const p = new SessionPresenter(
      { meta: { id: 's1', title: 'S', createdAt: 0, updatedAt: 0, state: 'idle' }, records: [], live: undefined, tasks: [], approvals: [], agent },
      (e) => posted.push(e),
      () => 1_000,
    );
    assert.deepEqual(p.snapshot.agent, agent);
    const next = { ...agent, pending: undefined };
    p.agentState(next);
    assert.deepEqual(posted, [{ type: 'agentStateChanged', agent: next }]);
    assert.deepEqual(applyHostEvent(snapshotWith(), posted[0]).agent, next);
  });

  it('the host channel hands the header intent to the controller, and a later agent change to a reloaded view', async () => {
    const calls: unknown[] = [];
    const noop = () => undefined;
    const model = new ModelStub();
    const ports: OptionPorts = { command: async (_id, target) => void calls.push(target), remedy: async () => undefined };
    const log = { trace: noop, debug: noop, info: noop, warn: noop, error: noop };
    const posted: unknown[] = [];
    const channel = new SessionViewChannel((m) => posted.push(m), stubSurface(() => model.snapshot), recordingHandlers([], optionHandlers(() => ports)), log);
    model.channel = channel;
    model.postSnapshot(snapshotWith());
    await channel.receive({ type: 'agentOption', id: 'w1', sessionId: 's1', configId: 'mode' });
    assert.deepEqual(calls, [{ sessionId: 's1', configId: 'mode' }]);
    model.postEvent({ type: 'agentStateChanged', agent });
    await channel.receive({ type: 'ready', id: 'w2' });
    assert.deepEqual((posted.at(-1) as { snapshot: { agent?: AgentStateView } }).snapshot.agent, agent);
  });
});
