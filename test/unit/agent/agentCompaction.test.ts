// Compaction of the built-in agent's history: past its share of the context window the turns before the last
// request become one summary (the model's; the offline demo's own, the same every time; an extractive one when
// the model fails), the last request is never touched, and the transcript says so.

import * as assert from 'node:assert/strict';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { compactIfNeeded, compactionThreshold, extractiveSummary, summaryMarker } from '../../../src/agent/compaction';
import { ContextMeter } from '../../../src/agent/contextUsage';
import { ProviderError } from '../../../src/agent/providers/providerError';
import type { ChatMessage, ModelEvent, ModelProvider, ModelRequest } from '../../../src/agent/providers/types';
import { ScriptedOpenAiServer } from '../../fixtures/models/scriptedOpenAiServer';
import { AgentUnderTest } from './agentHarness';

const long = (label: string) => `${label} ${'lorem ipsum '.repeat(150)}`;
const oldTurns = (): ChatMessage[] => [
  { role: 'user', text: long('Fix the parser') },
  { role: 'assistant', text: long('I read parser.ts'), toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"parser.ts"}' }] },
  { role: 'tool', toolCallId: 'c1', name: 'read_file', content: long('export function parse') },
  { role: 'assistant', text: long('Fixed it') },
  { role: 'user', text: long('Now add tests') },
  { role: 'assistant', text: long('Added tests') },
];

class FakeProvider implements ModelProvider {
  readonly label = 'fake';
  readonly requests: ModelRequest[] = [];
  constructor(
    readonly offline: boolean,
    private readonly answer: string | Error,
  ) {}
  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    this.requests.push(request);
    if (this.answer instanceof Error) throw this.answer;
    yield { kind: 'text', text: this.answer };
    yield { kind: 'end', reason: 'stop' };
  }
}

async function compact(provider: ModelProvider, history: ChatMessage[], contextWindow = 2_000) {
  const emitted: SessionUpdate[] = [];
  const done = await compactIfNeeded({
    provider,
    system: 'system',
    history,
    meter: new ContextMeter(contextWindow),
    compactAt: 0.5,
    maxOutputTokens: 256,
    signal: new AbortController().signal,
    timeouts: { firstTokenMs: 5_000, idleMs: 5_000, turnMs: 10_000 },
    emit: async (u) => void emitted.push(u),
  });
  return { done, emitted };
}

describe('built-in agent: compaction', function () {
  this.timeout(30_000);

  it('the threshold is the fraction of the window, less the answer’s room where that is smaller', () => {
    assert.equal(compactionThreshold(2_000, 0.5, 256), 1_000);
    assert.equal(compactionThreshold(10_000, 0.9, 4_096), 5_904);
  });

  it('offline (the demo): the older turns become the same extractive summary every time, the last request stays, and the transcript says so', async () => {
    const provider = new FakeProvider(true, 'never asked');
    const history = [...oldTurns(), { role: 'user' as const, text: 'the latest request' }];
    const { done, emitted } = await compact(provider, history);
    assert.equal(done, true);
    assert.equal(provider.requests.length, 0, 'the demo is not asked');
    assert.equal(history.length, 2);
    assert.deepEqual(history[1], { role: 'user', text: 'the latest request' });
    assert.equal(history[0].role, 'user');
    assert.equal((history[0] as { text: string }).text, `${summaryMarker}\n${extractiveSummary(oldTurns())}`);
    assert.match(extractiveSummary(oldTurns()), /^Earlier requests \(2\):\n- Fix the parser lorem.*\n- Now add tests lorem.*\nTools used: read_file ×1\.\nThe last answer began: Added tests/);
    const note = emitted.find((u) => u.sessionUpdate === 'agent_message_chunk');
    assert.match(JSON.stringify(note), /Compacted the conversation: 6 earlier messages were summarised to stay within the model's context window/);
    assert.ok(emitted.some((u) => u.sessionUpdate === 'usage_update'), 'the usage after it is sent');
  });

  it('with a model: it writes the summary from the older turns only', async () => {
    const provider = new FakeProvider(false, 'They fixed the parser and added tests.');
    const history = [...oldTurns(), { role: 'user' as const, text: 'the latest request' }, { role: 'assistant' as const, text: 'working on it' }];
    await compact(provider, history);
    assert.deepEqual(provider.requests[0].tools, []);
    const asked = (provider.requests[0].messages[0] as { text: string }).text;
    assert.match(asked, /^Summarise this conversation:/);
    // A 2,000-token window holds only the newest of the older turns' text in the request: the oldest is left out.
    assert.match(asked, /user: Now add tests/);
    assert.ok(!asked.includes('Fix the parser'), 'what does not fit the summary request is left out');
    assert.ok(!asked.includes('the latest request'), 'the last request is not summarised');
    assert.deepEqual(history.map((m) => m.role), ['user', 'user', 'assistant']);
    assert.equal((history[0] as { text: string }).text, `${summaryMarker}\nThey fixed the parser and added tests.`);
  });

  it('a model that fails to summarise gets the extractive summary; the turn goes on', async () => {
    const history = [...oldTurns(), { role: 'user' as const, text: 'the latest request' }];
    const { done } = await compact(new FakeProvider(false, new ProviderError('PROVIDER_FAILED', 'HTTP 500')), history);
    assert.equal(done, true);
    assert.equal((history[0] as { text: string }).text, `${summaryMarker}\n${extractiveSummary(oldTurns())}`);
  });

  it('below the threshold nothing changes; with only the last request left nothing is dropped', async () => {
    const small: ChatMessage[] = [{ role: 'user', text: 'hi' }, { role: 'assistant', text: 'hello' }, { role: 'user', text: 'again' }];
    assert.equal((await compact(new FakeProvider(true, ''), small)).done, false);
    assert.equal(small.length, 3);
    const onlyLast: ChatMessage[] = [{ role: 'user', text: long('one huge request').repeat(3) }];
    assert.equal((await compact(new FakeProvider(true, ''), onlyLast)).done, false);
    assert.equal(onlyLast.length, 1);
  });

  it('over stdio: a loaded long session is compacted by the model before the call, which sees the summary and the request', async () => {
    const server = await ScriptedOpenAiServer.start();
    let agent: AgentUnderTest | undefined;
    try {
      server.sideText = 'They fixed the parser.';
      server.reply({ kind: 'text', chunks: ['done'] });
      agent = await AgentUnderTest.start(
        { provider: 'openai-compatible', baseUrl: server.url, model: 'scripted-model', contextWindow: 2_000, compactAt: 0.5, maxTokens: 256 },
        { load: { sessionId: 'long', history: oldTurns().filter((m) => m.role !== 'tool').map((m) => (m.role === 'assistant' ? { role: 'assistant', text: m.text } : m)) } },
      );
      await agent.prompt('the latest request');
      const messages = server.requests[0].messages as Array<{ role: string; content: string }>;
      assert.deepEqual(messages.map((m) => m.role), ['system', 'user', 'user']);
      assert.equal(messages[1].content, `${summaryMarker}\nThey fixed the parser.`);
      assert.equal(messages[2].content, 'the latest request');
      assert.match(agent.text(), /\*Compacted the conversation: 5 earlier messages were summarised[^]*\.\*\n\ndone$/);
    } finally {
      await agent?.stop();
      await server.close();
    }
  });
});
