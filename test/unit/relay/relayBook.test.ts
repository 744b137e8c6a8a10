// What the relay keeps of a session for the next window: the answer that opened it and the latest of each state
// update, in order; never the turn's own messages, never an oversized entry.

import * as assert from 'node:assert';
import { RelayBook } from '../../../src/extension/core/relay/relayBook';

function opened(book: RelayBook, id: number, result: Record<string, unknown>): void {
  const sent = book.fromClient({ jsonrpc: '2.0', id, method: 'session/new', params: { cwd: '/w' } }) as { id: number };
  book.fromAgent({ jsonrpc: '2.0', id: sent.id, result });
}

const update = (sessionId: string, u: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: u } });

describe('relay book: the session state a new window shows first', () => {
  it('keeps the opening answer\'s options, then the latest of each state update in the order they came', () => {
    const book = new RelayBook(() => 0);
    opened(book, 0, { sessionId: 's1', configOptions: [{ id: 'model' }], modes: { currentModeId: 'ask' }, extra: 'not kept' });
    book.fromAgent(update('s1', { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'a' }] }));
    book.fromAgent(update('s1', { sessionUpdate: 'usage_update', used: 1, size: 10 }));
    book.fromAgent(update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'turn text' } }));
    book.fromAgent(update('s1', { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'b' }] }));
    assert.deepStrictEqual(book.keptState(), {
      s1: [
        { kind: 'opened', result: { configOptions: [{ id: 'model' }], modes: { currentModeId: 'ask' }, models: undefined } },
        { kind: 'update', update: { sessionUpdate: 'usage_update', used: 1, size: 10 } },
        { kind: 'update', update: { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'b' }] } },
      ],
    });
  });

  it('keeps what the person chose once the agent said yes: a mode, an option set', () => {
    const book = new RelayBook(() => 0);
    opened(book, 0, { sessionId: 's1', modes: { currentModeId: 'ask' } });
    const mode = book.fromClient({ jsonrpc: '2.0', id: 1, method: 'session/set_mode', params: { sessionId: 's1', modeId: 'code' } }) as { id: number };
    const refused = book.fromClient({ jsonrpc: '2.0', id: 2, method: 'session/set_mode', params: { sessionId: 's1', modeId: 'plan' } }) as { id: number };
    const option = book.fromClient({ jsonrpc: '2.0', id: 3, method: 'session/set_config_option', params: { sessionId: 's1', configId: 'model', value: 'm2' } }) as { id: number };
    book.fromAgent({ jsonrpc: '2.0', id: mode.id, result: {} });
    book.fromAgent({ jsonrpc: '2.0', id: refused.id, error: { code: -32602, message: 'no such mode' } });
    book.fromAgent({ jsonrpc: '2.0', id: option.id, result: { configOptions: [{ id: 'model', currentValue: 'm2' }] } });
    assert.deepStrictEqual(book.keptState().s1.slice(1), [
      { kind: 'update', update: { sessionUpdate: 'current_mode_update', currentModeId: 'code' } },
      { kind: 'update', update: { sessionUpdate: 'config_option_update', configOptions: [{ id: 'model', currentValue: 'm2' }] } },
    ]);
  });

  it('keeps no entry past its bound, and drops the earlier one of its kind rather than show a stale one', () => {
    const book = new RelayBook(() => 0);
    opened(book, 0, { sessionId: 's1' });
    book.fromAgent(update('s1', { sessionUpdate: 'session_info_update', title: 'first' }));
    book.fromAgent(update('s1', { sessionUpdate: 'session_info_update', title: 'x'.repeat(300 * 1024) }));
    assert.deepStrictEqual(book.keptState().s1.map((k) => k.kind), ['opened']);
  });

  it('ignores updates without a session, of unknown kinds, and of sessions by other shapes', () => {
    const book = new RelayBook(() => 0);
    book.fromAgent({ jsonrpc: '2.0', method: 'session/update', params: { update: { sessionUpdate: 'usage_update' } } });
    book.fromAgent(update('s1', { sessionUpdate: 'made_up_update' }));
    book.fromAgent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's2', update: 'not an object' } });
    assert.deepStrictEqual(book.keptState(), {});
  });
});
