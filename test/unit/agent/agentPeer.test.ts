// The built-in agent as a peer of third-party ACP agents, over real stdio against a scripted OpenAI-compatible
// server: it offers modes and the provider's models as config options, holds the mode (Ask and Plan neither
// offer nor run a tool that writes or runs), uses the session's model, sends usage and a title, and asks for
// as many output tokens as configured.

import * as assert from 'node:assert/strict';
import type { SessionConfigOption, SessionUpdate } from '@agentclientprotocol/sdk';
import { ScriptedOpenAiServer } from '../../fixtures/models/scriptedOpenAiServer';
import { builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { agentConfigSchema, configEnvVar } from '../../../src/shared/agentProtocol/agentConfig';
import { maxModels, readOllamaTags, readOpenAiList } from '../../../src/agent/modelList';
import { AgentUnderTest } from './agentHarness';

type Select = Extract<SessionConfigOption, { type: 'select' }>;

describe('built-in agent: modes, models, usage, title, output tokens', function () {
  this.timeout(30_000);
  let server: ScriptedOpenAiServer;
  let agent: AgentUnderTest | undefined;

  const start = async (extra: Record<string, unknown> = {}) => {
    agent = await AgentUnderTest.start(
      { provider: 'openai-compatible', baseUrl: server.url, model: 'scripted-model', firstTokenTimeoutMs: 5_000, idleTimeoutMs: 5_000, ...extra },
      { apiKey: 'sk-test-key', files: { 'notes.txt': 'alpha\n' } },
    );
    return agent;
  };
  const option = (options: unknown, id: string) => (options as Select[]).find((o) => o.id === id);
  const toolNames = (request: Record<string, unknown>) => (request.tools as Array<{ function: { name: string } }>).map((t) => t.function.name).sort();
  const latestOptions = (a: AgentUnderTest) =>
    [...a.updates].reverse().find((u): u is Extract<SessionUpdate, { sessionUpdate: 'config_option_update' }> => u.sessionUpdate === 'config_option_update')?.configOptions;

  beforeEach(async () => {
    server = await ScriptedOpenAiServer.start();
  });
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
    await server.close();
  });

  it('offers the modes and, once listed, the provider’s models with the configured one first', async () => {
    server.models = [{ id: 'other-model', context_length: 32_000 }, { id: 'scripted-model' }, { id: 'bad id with spaces' }];
    const a = await start();
    const mode = option(a.sessionResponse?.configOptions, 'mode');
    assert.equal(mode?.category, 'mode');
    assert.equal(mode?.currentValue, 'code');
    assert.deepEqual(mode?.options.map((o) => 'value' in o && o.value), ['ask', 'plan', 'code']);
    assert.deepEqual((a.sessionResponse?.modes as { currentModeId: string }).currentModeId, 'code');
    const update = await a.waitForUpdate((u) => u.sessionUpdate === 'config_option_update', 'the listed models');
    const model = option((update as { configOptions: unknown }).configOptions, 'model');
    assert.equal(model?.category, 'model');
    assert.equal(model?.currentValue, 'scripted-model');
    assert.deepEqual(model?.options.map((o) => 'value' in o && o.value), ['scripted-model', 'other-model']);
    assert.equal(server.modelListRequests[0].path, '/v1/models');
    assert.equal(server.modelListRequests[0].authorization, 'Bearer sk-test-key');
  });

  it('a provider that cannot list its models offers the configured one only, and says nothing on screen', async () => {
    server.models = 500;
    const a = await start();
    await server.waitUntil(() => server.modelListRequests.length >= 2);
    const update = await a.waitForUpdate((u) => u.sessionUpdate === 'config_option_update', 'the options after the failed list');
    assert.deepEqual(option((update as { configOptions: unknown }).configOptions, 'model')?.options.map((o) => 'value' in o && o.value), ['scripted-model']);
    assert.equal(a.text(), '');
    assert.match(a.stderr, /did not list its models .*HTTP 500.*offering scripted-model only/);
  });

  it('a server without an OpenAI model list is asked for Ollama’s tags', async () => {
    server.models = 404;
    server.ollamaTags = ['llama3.1:8b', 'qwen2.5-coder:7b', 'scripted-model'];
    const a = await start();
    const update = await a.waitForUpdate((u) => u.sessionUpdate === 'config_option_update', 'the listed models');
    assert.deepEqual(option((update as { configOptions: unknown }).configOptions, 'model')?.options.map((o) => 'value' in o && o.value), ['scripted-model', 'llama3.1:8b', 'qwen2.5-coder:7b']);
    assert.deepEqual(server.modelListRequests.map((r) => r.path), ['/v1/models', '/api/tags']);
  });

  it('a list is read as hostile: odd ids, odd windows and too many entries are left out', () => {
    const list = readOpenAiList({ data: [{ id: 'ok-1', context_length: 8_192 }, { id: 'new\nline' }, { id: 'x'.repeat(300) }, { id: 42 }, null, { id: 'ok-2', context_length: -1, max_model_len: 1.5 }] });
    assert.deepEqual(list, [{ id: 'ok-1', contextWindow: 8_192 }, { id: 'ok-2' }]);
    assert.throws(() => readOpenAiList({ models: [] }), /no "data" list/);
    assert.deepEqual(readOllamaTags({ models: [{ name: 'a:1' }, { name: '$(bad) name' }, {}] }), [{ id: 'a:1' }]);
    assert.equal(readOpenAiList({ data: Array.from({ length: 5_000 }, (_, i) => ({ id: `m${i}` })) }).length, maxModels * 5);
  });

  it('the demo offers its one model and names a new session from its first request, the same way every time', async () => {
    agent = await AgentUnderTest.start({ provider: 'demo', demoBuildSeconds: 0 }, { files: { 'README.md': '# Sample\n' } });
    const a = agent;
    assert.deepEqual(option(a.sessionResponse?.configOptions, 'model')?.options.map((o) => 'name' in o && o.name), ['demo model']);
    await a.prompt('Show me around the project please');
    const info = await a.waitForUpdate((u) => u.sessionUpdate === 'session_info_update', 'the title');
    assert.equal((info as { title: string }).title, 'Demo: Show me around the project');
    const usage = (await a.waitForUpdate((u) => u.sessionUpdate === 'usage_update', 'usage')) as { used: number; size: number };
    assert.equal(usage.size, 128_000);
    assert.ok(usage.used > 0);
  });

  it('Ask mode offers only reading tools and refuses a write the model calls anyway; Code mode offers them all again', async () => {
    server.reply(
      { kind: 'toolCalls', calls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'x.txt', content: 'owned' }) }] },
      { kind: 'text', chunks: ['I cannot write in Ask mode.'] },
      { kind: 'text', chunks: ['ok'] },
    );
    const a = await start();
    const answer = (await a.request('session/set_config_option', { sessionId: a.sessionId, configId: 'mode', value: 'ask' })) as { configOptions: unknown };
    assert.equal(option(answer.configOptions, 'mode')?.currentValue, 'ask');
    await a.waitForUpdate((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'ask', 'the mode update');
    await a.prompt('write x.txt');
    assert.deepEqual(toolNames(server.requests[0]), ['list_files', 'read_file', 'search_text']);
    assert.match(JSON.stringify((server.requests[0].messages as unknown[])[0]), /Ask mode/);
    assert.ok(!a.requests.some((r) => r.startsWith('write') || r.startsWith('permission')), `nothing was written or asked: ${a.requests.join(', ')}`);
    const failed = a.updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
    assert.match(JSON.stringify(failed), /write_file tool is not available in Ask mode/);
    await a.request('session/set_mode', { sessionId: a.sessionId, modeId: 'code' });
    assert.equal(option(latestOptions(a), 'mode')?.currentValue, 'code');
    await a.prompt('again');
    assert.deepEqual(toolNames(server.requests[2]), ['edit_file', 'list_files', 'read_file', 'run_command', 'search_text', 'update_plan', 'write_file']);
  });

  it('Plan mode reads and publishes a plan, but neither writes nor runs', async () => {
    server.reply({ kind: 'toolCalls', calls: [{ name: 'run_command', arguments: JSON.stringify({ command: 'touch owned' }) }] }, { kind: 'text', chunks: ['Plan: …'] });
    const a = await start();
    await a.request('session/set_config_option', { sessionId: a.sessionId, configId: 'mode', value: 'plan' });
    await a.prompt('plan it');
    assert.deepEqual(toolNames(server.requests[0]), ['list_files', 'read_file', 'search_text', 'update_plan']);
    assert.match(JSON.stringify((server.requests[0].messages as unknown[])[0]), /Plan mode/);
    assert.ok(!a.requests.some((r) => r.startsWith('terminal')), `nothing ran: ${a.requests.join(', ')}`);
  });

  it('the session’s model is the one the person picked; a model not offered is refused', async () => {
    server.models = [{ id: 'scripted-model' }, { id: 'other-model', context_length: 32_000 }];
    server.reply({ kind: 'text', chunks: ['hi'], usage: { prompt_tokens: 1_000, completion_tokens: 24 } });
    const a = await start();
    await a.waitForUpdate((u) => u.sessionUpdate === 'config_option_update', 'the listed models');
    const answer = (await a.request('session/set_config_option', { sessionId: a.sessionId, configId: 'model', value: 'other-model' })) as { configOptions: unknown };
    assert.equal(option(answer.configOptions, 'model')?.currentValue, 'other-model');
    await assert.rejects(a.request('session/set_config_option', { sessionId: a.sessionId, configId: 'model', value: 'not-offered' }), /is not offered/);
    await a.prompt('hi');
    assert.equal(server.requests[0].model, 'other-model');
    const usage = await a.waitForUpdate((u) => u.sessionUpdate === 'usage_update', 'usage');
    assert.deepEqual({ used: (usage as { used: number }).used, size: (usage as { size: number }).size }, { used: 1_024, size: 32_000 }, 'the server’s count, in the picked model’s window');
  });

  it('sends usage with the server’s count and cost after each call, and a title after the first turn', async () => {
    server.sideText = '"Reading the notes."';
    server.reply({ kind: 'text', chunks: ['hello'], usage: { prompt_tokens: 5_000, completion_tokens: 120, cost: 0.0125 } }, { kind: 'text', chunks: ['again'] });
    const a = await start({ contextWindow: 200_000 });
    await a.prompt('read my notes');
    const usage = (await a.waitForUpdate((u) => u.sessionUpdate === 'usage_update', 'usage')) as { used: number; size: number; cost?: { amount: number; currency: string } };
    assert.deepEqual(usage, { sessionUpdate: 'usage_update', used: 5_120, size: 200_000, cost: { amount: 0.0125, currency: 'USD' } });
    const info = await a.waitForUpdate((u) => u.sessionUpdate === 'session_info_update', 'the title');
    assert.equal((info as { title: string }).title, 'Reading the notes');
    assert.equal(server.sideRequests.length, 1, 'one title request');
    assert.equal(server.sideRequests[0].tools, undefined, 'asked without tools');
    assert.match(JSON.stringify(server.sideRequests[0].messages), /read my notes/);
    await a.prompt('again');
    assert.equal(server.sideRequests.length, 1, 'no second title');
    assert.equal(server.requests.length, 2);
  });

  it('asks for the configured output tokens, which the launch takes from vigil.model.maxOutputTokens', async () => {
    const launch = builtinLaunch({ agentScript: '/x/agent.js', execPath: '/node', model: { provider: 'openai-compatible', name: 'm', maxOutputTokens: 12_345 } });
    const config = agentConfigSchema.parse(JSON.parse(launch.env[configEnvVar]!));
    assert.equal(config.maxTokens, 12_345);
    server.reply({ kind: 'text', chunks: ['ok'] });
    const a = await start({ maxTokens: config.maxTokens });
    await a.prompt('hi');
    assert.equal(server.requests[0].max_tokens, 12_345);
    assert.deepEqual(server.requests[0].stream_options, { include_usage: true });
  });
});
