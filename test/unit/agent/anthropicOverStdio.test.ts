// The anthropic provider (its request built as the SDK's client builds it, the stream and errors the real
// `@anthropic-ai/sdk`'s) in the real agent process, against a scripted Messages API server on 127.0.0.1.

import * as assert from 'node:assert/strict';
import { RequestError } from '@agentclientprotocol/sdk';
import { ScriptedAnthropicServer } from '../../fixtures/models/scriptedAnthropicServer';
import { AgentUnderTest } from './agentHarness';

describe('built-in agent over stdio with the Anthropic provider', function () {
  this.timeout(30_000);
  let server: ScriptedAnthropicServer;
  let agent: AgentUnderTest | undefined;

  beforeEach(async () => {
    server = await ScriptedAnthropicServer.start();
  });
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
    await server.close();
  });

  const start = () =>
    AgentUnderTest.start({ provider: 'anthropic', baseUrl: server.url, model: 'claude-test' }, { apiKey: 'sk-ant-test', files: { 'notes.txt': 'gamma\n' } });

  it('streams text, uses a tool, and sends the tool result back as a tool_result block', async () => {
    server.reply({ kind: 'toolUse', name: 'read_file', json: JSON.stringify({ path: 'notes.txt' }) }, { kind: 'text', chunks: ['It says ', 'gamma.'] });
    agent = await start();
    const r = await agent.prompt('read notes');
    assert.equal(r.stopReason, 'end_turn');
    assert.equal(agent.text(), 'It says gamma.');
    assert.match(String(server.requests[0].apiKey), /sk-ant-test/);
    assert.equal(server.requests[0].model, 'claude-test');
    const second = JSON.stringify(server.requests[1].messages);
    assert.ok(second.includes('"type":"tool_result"') && second.includes('gamma'));
    // The request does not load Node's own fetch (undici), which fails under --jitless and would stay resident.
    assert.ok(!agent.stderr.includes('unhandled rejection'), agent.stderr);
  });

  it('HTTP 401 is PROVIDER_AUTH', async () => {
    server.reply({ kind: 'status', status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } });
    agent = await start();
    await assert.rejects(agent.prompt('hi'), (error: unknown) => error instanceof RequestError && (error.data as { vigil: { code: string } }).vigil.code === 'PROVIDER_AUTH');
  });
});
