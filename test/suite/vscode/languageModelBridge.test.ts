// The vscode-lm host bridge with a scripted LanguageModelChat: history conversion, streamed text and tool calls, error mapping.

import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { LanguageModelEvent } from '../../../src/extension/core/acp/hostPorts';
import { isVigilError } from '../../../src/extension/core/common/errors';
import { VscodeLanguageModelBridge, toLanguageModelMessages } from '../../../src/extension/vscode/languageModelBridge';

function scriptedModel(parts: unknown[] | Error, seen: { messages?: vscode.LanguageModelChatMessage[]; options?: vscode.LanguageModelChatRequestOptions } = {}): vscode.LanguageModelChat {
  return {
    id: 'm-1', name: 'Scripted', vendor: 'test', family: 'scripted', version: '1', maxInputTokens: 1000,
    countTokens: async () => 1,
    sendRequest: async (messages: vscode.LanguageModelChatMessage[], options?: vscode.LanguageModelChatRequestOptions) => {
      seen.messages = messages;
      seen.options = options;
      if (parts instanceof Error) throw parts;
      return { text: (async function* () {})(), stream: (async function* () { yield* parts; })() };
    },
  } as unknown as vscode.LanguageModelChat;
}

async function collect(stream: AsyncIterable<LanguageModelEvent>): Promise<LanguageModelEvent[]> {
  const events: LanguageModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('vscode-lm bridge (extension host)', () => {
  it('converts the history: system first, tool results grouped after the assistant’s calls', () => {
    const messages = toLanguageModelMessages('be brief', [
      { role: 'user', text: 'hi' },
      { role: 'assistant', text: 'reading', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }, { id: 'c2', name: 'read_file', arguments: 'not json' }] },
      { role: 'tool', toolCallId: 'c1', name: 'read_file', content: 'A' },
      { role: 'tool', toolCallId: 'c2', name: 'read_file', content: 'B' },
      { role: 'assistant', text: 'done' },
    ]);
    assert.deepStrictEqual(messages.map((m) => m.role), [1, 1, 2, 1, 2].map((r) => (r === 1 ? vscode.LanguageModelChatMessageRole.User : vscode.LanguageModelChatMessageRole.Assistant)));
    const calls = messages[2].content.filter((p) => p instanceof vscode.LanguageModelToolCallPart) as vscode.LanguageModelToolCallPart[];
    assert.deepStrictEqual(calls.map((c) => c.input), [{ path: 'a' }, { invalidArguments: 'not json' }]);
    const results = messages[3].content.filter((p) => p instanceof vscode.LanguageModelToolResultPart) as vscode.LanguageModelToolResultPart[];
    assert.deepStrictEqual(results.map((r) => r.callId), ['c1', 'c2']);
  });

  it('streams text and tool calls, and passes the tools', async () => {
    const seen: { options?: vscode.LanguageModelChatRequestOptions } = {};
    const model = scriptedModel([new vscode.LanguageModelTextPart('Hel'), new vscode.LanguageModelTextPart('lo'), new vscode.LanguageModelToolCallPart('c1', 'run_command', { command: 'ls' })], seen);
    const bridge = new VscodeLanguageModelBridge(async () => [model]);
    assert.deepStrictEqual(await bridge.listModels(), [{ id: 'm-1', name: 'Scripted', vendor: 'test' }]);
    const events = await collect(bridge.chat({ system: '', messages: [{ role: 'user', text: 'go' }], tools: [{ name: 'run_command', description: 'runs', parameters: { type: 'object' } }] }, new AbortController().signal));
    assert.deepStrictEqual(events, [
      { kind: 'text', text: 'Hel' },
      { kind: 'text', text: 'lo' },
      { kind: 'toolCall', call: { id: 'c1', name: 'run_command', arguments: '{"command":"ls"}' } },
    ]);
    assert.deepStrictEqual(seen.options?.tools, [{ name: 'run_command', description: 'runs', inputSchema: { type: 'object' } }]);
  });

  it('maps no permission to PROVIDER_AUTH and blocked to PROVIDER_QUOTA, so wakeups pause', async () => {
    for (const [error, code] of [[vscode.LanguageModelError.NoPermissions('no consent'), 'PROVIDER_AUTH'], [vscode.LanguageModelError.Blocked('quota'), 'PROVIDER_QUOTA'], [new Error('boom'), 'PROVIDER_FAILED']] as const) {
      const bridge = new VscodeLanguageModelBridge(async () => [scriptedModel(error)]);
      await assert.rejects(collect(bridge.chat({ system: '', messages: [], tools: [] }, new AbortController().signal)), (e: unknown) => isVigilError(e) && e.code === code);
    }
  });

  it('an unknown or missing model fails with what to do', async () => {
    await assert.rejects(collect(new VscodeLanguageModelBridge(async () => []).chat({ system: '', messages: [], tools: [] }, new AbortController().signal)), /offers no language model.*Select Model/);
    await assert.rejects(collect(new VscodeLanguageModelBridge(async () => [scriptedModel([])]).chat({ model: 'gone', system: '', messages: [], tools: [] }, new AbortController().signal)), /gone is not available \(offered: m-1\)/);
  });
});
