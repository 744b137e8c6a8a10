// The built-in agent process over real stdio, against a real scripted OpenAI-compatible SSE server on
// 127.0.0.1: every scripted case ends in a clear outcome, and cancel answers `cancelled` quickly.

import * as assert from 'node:assert/strict';
import { RequestError } from '@agentclientprotocol/sdk';
import { ScriptedOpenAiServer } from '../../fixtures/models/scriptedOpenAiServer';
import { AgentUnderTest } from './agentHarness';

describe('built-in agent over stdio with an OpenAI-compatible server', function () {
  this.timeout(30_000);
  let server: ScriptedOpenAiServer;
  let agent: AgentUnderTest | undefined;

  const start = async (extra: Record<string, unknown> = {}) => {
    agent = await AgentUnderTest.start(
      { provider: 'openai-compatible', baseUrl: server.url, model: 'scripted-model', firstTokenTimeoutMs: 2_000, idleTimeoutMs: 1_000, ...extra },
      { apiKey: 'sk-test-key', files: { 'notes.txt': 'alpha\nbeta\n' } },
    );
    return agent;
  };

  const promptError = async (a: AgentUnderTest, text: string): Promise<RequestError> => {
    try {
      await a.prompt(text);
    } catch (error) {
      assert.ok(error instanceof RequestError, `expected a JSON-RPC error, got ${String(error)}`);
      return error;
    }
    assert.fail('the prompt should have failed');
  };

  beforeEach(async () => {
    server = await ScriptedOpenAiServer.start();
  });
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
    await server.close();
  });

  it('streams text chunks and ends the turn', async () => {
    server.reply({ kind: 'text', chunks: ['Hel', 'lo ', 'there'] });
    const a = await start();
    const r = await a.prompt('hi');
    assert.equal(r.stopReason, 'end_turn');
    assert.equal(a.text(), 'Hello there');
    assert.equal(server.requests[0].model, 'scripted-model');
    assert.equal(server.requests[0].authorization, 'Bearer sk-test-key');
    assert.equal(server.requests[0].stream, true);
    assert.ok(!a.stderr.includes('sk-test-key'), 'the API key must never be logged');
    // The request does not load Node's own fetch (undici), which fails under --jitless and would stay resident.
    assert.ok(!a.stderr.includes('unhandled rejection'), a.stderr);
  });

  it('runs tool calls through the client and feeds the results back to the model', async () => {
    server.reply({ kind: 'toolCalls', calls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] }, { kind: 'text', chunks: ['It says alpha.'] });
    const a = await start();
    const r = await a.prompt('read notes');
    assert.equal(r.stopReason, 'end_turn');
    assert.deepEqual(a.requests, ['read notes.txt']);
    const done = a.updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
    assert.ok(done, 'the tool call completes');
    const second = server.requests[1].messages as Array<{ role: string; content: string }>;
    assert.ok(second.some((m) => m.role === 'tool' && m.content.includes('alpha')), 'the tool result reaches the model');
  });

  it('answers invalid tool arguments with a clear tool error and lets the model continue', async () => {
    server.reply({ kind: 'toolCalls', calls: [{ name: 'read_file', arguments: '{"path": ' }] }, { kind: 'text', chunks: ['Sorry.'] });
    const a = await start();
    const r = await a.prompt('go');
    assert.equal(r.stopReason, 'end_turn');
    const failed = a.updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
    assert.ok(failed && JSON.stringify(failed).includes('Invalid arguments for read_file'));
    const second = server.requests[1].messages as Array<{ role: string; content: string }>;
    assert.ok(second.some((m) => m.role === 'tool' && m.content.includes('not valid JSON')));
  });

  it('answers an unknown tool with the list of tools', async () => {
    server.reply({ kind: 'toolCalls', calls: [{ name: 'launch_rocket', arguments: '{}' }] }, { kind: 'text', chunks: ['OK.'] });
    const a = await start();
    assert.equal((await a.prompt('go')).stopReason, 'end_turn');
    const failed = a.updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
    assert.ok(failed && JSON.stringify(failed).includes('Unknown tool \\"launch_rocket\\"'));
  });

  it('ends a stream that hangs after N chunks with an idle-timeout error', async () => {
    server.reply({ kind: 'hang', afterChunks: ['partial '] });
    const a = await start();
    const error = await promptError(a, 'go');
    assert.match(error.message, /stalled: no content for 1000 ms \(idle timeout\)/);
    assert.equal(a.text(), 'partial ');
  });

  it('ends a stream that never sends a token with a first-token-timeout error', async () => {
    server.reply({ kind: 'hang', afterChunks: [] });
    const a = await start({ firstTokenTimeoutMs: 500 });
    const error = await promptError(a, 'go');
    assert.match(error.message, /first-token timeout/);
  });

  it('reports a dropped socket as a failed model call once the retries are spent', async () => {
    const drop = { kind: 'drop' as const, afterChunks: ['half'] };
    server.reply(drop, drop, drop, drop, drop, drop);
    const a = await start({ retryBaseDelayMs: 5 });
    const error = await promptError(a, 'go');
    assert.match(error.message, /connection .*dropped/i);
    assert.equal((error.data as { vigil: { code: string } }).vigil.code, 'PROVIDER_FAILED');
  });

  it('reports HTTP 401 as PROVIDER_AUTH naming the setting to fix', async () => {
    server.reply({ kind: 'status', status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } });
    const a = await start();
    const error = await promptError(a, 'go');
    assert.deepEqual(error.data, { vigil: { code: 'PROVIDER_AUTH', setting: 'Vigil: Set API Key…' } });
    assert.match(error.message, /Set API Key/);
  });

  it('reports HTTP 429 quota as PROVIDER_QUOTA', async () => {
    server.reply({ kind: 'status', status: 429, body: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } } });
    const a = await start();
    const error = await promptError(a, 'go');
    assert.equal((error.data as { vigil: { code: string } }).vigil.code, 'PROVIDER_QUOTA');
    assert.match(error.message, /quota/);
  });

  it('answers cancel with stopReason cancelled within 200 ms while the model stream hangs', async () => {
    server.reply({ kind: 'hang', afterChunks: ['thinking '] });
    const a = await start({ idleTimeoutMs: 60_000 });
    const pending = a.prompt('go');
    await a.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk', 'the first chunk');
    const t0 = performance.now();
    await a.cancel();
    const r = await pending;
    const ms = performance.now() - t0;
    assert.equal(r.stopReason, 'cancelled');
    // The bar is 200 ms (bench: p99 of 40 cancels); asserted generously because this shared 2-core
    // machine runs at load 10–20, where a single event-loop hop can take hundreds of ms.
    console.log(`      cancel → cancelled: ${ms.toFixed(1)} ms`);
    assert.ok(ms < 1_000, `cancel took ${ms.toFixed(1)} ms`);
    // The session takes the next prompt normally.
    server.reply({ kind: 'text', chunks: ['again'] });
    assert.equal((await a.prompt('again')).stopReason, 'end_turn');
  });

  it('answers cancel while a permission request is open, and the client sees its request cancelled', async () => {
    server.reply({ kind: 'toolCalls', calls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'x.txt', content: 'x' }) }] });
    const a = await start();
    a.permission = 'never';
    const pending = a.prompt('write');
    await a.waitForUpdate((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress', 'the tool call to start');
    await waitUntil(() => a.requests.some((r) => r.startsWith('permission')));
    const t0 = performance.now();
    await a.cancel();
    assert.equal((await pending).stopReason, 'cancelled');
    const ms = performance.now() - t0;
    console.log(`      cancel with an open permission request → cancelled: ${ms.toFixed(1)} ms`);
    assert.ok(ms < 1_000, `cancel took ${ms.toFixed(1)} ms`);
    assert.ok(!a.requests.includes('write x.txt'), 'nothing was written');
  });

  it('does not write when the person rejects, and tells the model', async () => {
    server.reply({ kind: 'toolCalls', calls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'x.txt', content: 'x' }) }] }, { kind: 'text', chunks: ['Understood.'] });
    const a = await start();
    a.permission = 'reject';
    assert.equal((await a.prompt('write')).stopReason, 'end_turn');
    assert.ok(!a.requests.includes('write x.txt'));
    const second = server.requests[1].messages as Array<{ role: string; content: string }>;
    assert.ok(second.some((m) => m.role === 'tool' && m.content.includes('rejected')));
  });

  it('ends with max_turn_requests at the step cap', async () => {
    const call = { kind: 'toolCalls' as const, calls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] };
    server.reply(call, call, call);
    const a = await start({ maxSteps: 2 });
    assert.equal((await a.prompt('loop')).stopReason, 'max_turn_requests');
    assert.equal(server.requests.length, 2);
  });
});

async function waitUntil(test: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
