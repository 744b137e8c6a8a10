// Permission requests: the first answer wins, a turn abort answers `cancelled`, and every change is announced.

import * as assert from 'node:assert';
import { ApprovalBroker, type ApprovalChange } from '../../../src/extension/presentation/approvalBroker';

describe('approval broker', () => {
  it('answers a request once and announces it', async () => {
    const broker = new ApprovalBroker(() => 7);
    const changes: ApprovalChange[] = [];
    broker.subscribe((c) => changes.push(c));
    const answer = broker.ask({ sessionId: 's', title: 'run_command npm test', kind: 'execute' }, new AbortController().signal);
    const requested = changes[0];
    assert.ok(requested.type === 'requested');
    assert.deepStrictEqual(broker.openFor('s').map((a) => a.title), ['run_command npm test']);
    assert.strictEqual(broker.answer(requested.approval.requestId, 'allowOnce'), true);
    assert.strictEqual(broker.answer(requested.approval.requestId, 'reject'), false, 'a second answer is refused');
    assert.strictEqual(await answer, 'allowOnce');
    assert.deepStrictEqual(broker.openFor('s'), []);
    assert.strictEqual(changes[1].type, 'resolved');
  });

  it('an aborted turn answers cancelled, also when it was aborted before asking', async () => {
    const broker = new ApprovalBroker();
    const abort = new AbortController();
    const pending = broker.ask({ sessionId: 's', title: 'write', kind: 'edit' }, abort.signal);
    abort.abort();
    assert.strictEqual(await pending, 'cancelled');
    assert.strictEqual(await broker.ask({ sessionId: 's', title: 'w', kind: 'weird' }, abort.signal), 'cancelled');
    assert.deepStrictEqual(broker.openFor('s'), []);
  });
});

describe('approval broker: readable details and raw input', () => {
  it('passes the details through and cuts a raw input that is too large to show', async () => {
    const broker = new ApprovalBroker(() => 1);
    const seen: unknown[] = [];
    broker.subscribe((c) => c.type === 'requested' && seen.push(c.approval));
    const controller = new AbortController();
    const details = { type: 'command' as const, command: 'npm test', cwd: '/ws', background: true };
    void broker.ask({ sessionId: 's', title: 'run npm test', kind: 'execute', details, rawInput: { command: 'npm test', content: 'x'.repeat(50_000) } }, controller.signal);
    const approval = seen[0] as { details: unknown; rawInput: unknown };
    assert.deepStrictEqual(approval.details, details);
    assert.strictEqual(typeof approval.rawInput, 'string');
    assert.match(approval.rawInput as string, /more characters not shown\)$/);
    controller.abort();
  });
});
