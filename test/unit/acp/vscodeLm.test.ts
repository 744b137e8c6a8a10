// The `vscode-lm` provider end to end: the built-in agent process asks the host over `_vigil/lm/*`,
// the host answers from a LanguageModelBridge (a scripted fake here; VS Code's API in the product).

import * as assert from 'node:assert/strict';
import { builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import type { LanguageModelBridge, LanguageModelEvent } from '../../../src/extension/core/acp/hostPorts';
import { VigilError } from '../../../src/extension/core/common/errors';
import { ensureAgentBundle } from '../agent/agentBundle';
import { AcpHarness } from './acpHarness';

type Reply = LanguageModelEvent[] | Error;

/** `tools`: how many tools the request offered (the agent's own side questions, e.g. a title, offer none and get no scripted reply). */
function scriptedBridge(models: string[], replies: Reply[], seen: Array<{ messages: unknown[]; tools: number }>): LanguageModelBridge {
  return {
    listModels: async () => models.map((id) => ({ id, name: id, vendor: 'test' })),
    async *chat(request) {
      seen.push({ messages: request.messages, tools: request.tools.length });
      const reply = (request.tools.length > 0 ? replies.shift() : undefined) ?? [{ kind: 'text', text: '(none)' }];
      if (reply instanceof Error) throw reply;
      for (const event of reply) yield event;
    },
  };
}

describe('vscode-lm provider through the host bridge', function () {
  this.timeout(40_000);
  let h: AcpHarness | undefined;
  afterEach(async () => h?.dispose());

  const start = async (bridge: LanguageModelBridge) => {
    const bundle = await ensureAgentBundle();
    h = await AcpHarness.create({ lm: bridge, launch: () => builtinLaunch({ agentScript: bundle, execPath: process.execPath, model: { provider: 'vscode-lm' } }) });
    return h;
  };

  it('streams text and runs a tool call the model asked for', async () => {
    const seen: Array<{ messages: unknown[]; tools: number }> = [];
    const bridge = scriptedBridge(
      ['copilot-gpt'],
      [[{ kind: 'toolCall', call: { id: 'lm1', name: 'read_file', arguments: JSON.stringify({ path: 'README.md' }) } }], [{ kind: 'text', text: 'The README ' }, { kind: 'text', text: 'greets you.' }]],
      seen,
    );
    const harness = await start(bridge);
    const ended = await harness.turn('what is in the readme?');
    assert.equal(ended.reason, 'completed', ended.message);
    assert.match(harness.agentText(), /The README greets you\./);
    const turnCalls = seen.filter((s) => s.tools > 0);
    assert.equal(turnCalls.length, 2);
    assert.ok(JSON.stringify(turnCalls[1].messages).includes('Hello from the workspace'), 'the tool result went back to the model');
  });

  it('says clearly when VS Code offers no language model', async () => {
    const harness = await start(scriptedBridge([], [], []));
    const ended = await harness.turn('hi');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /offers no language model.*vigil\.model\.provider/);
  });

  it('a credential failure from VS Code is PROVIDER_AUTH and pauses the session\'s wakeups', async () => {
    const harness = await start(scriptedBridge(['m'], [new VigilError('PROVIDER_AUTH', 'The person did not allow Vigil to use this language model.')], []));
    const ended = await harness.turn('hi');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /did not allow/);
    assert.equal(await harness.sup.isPaused('session-1'), true);
  });
});
