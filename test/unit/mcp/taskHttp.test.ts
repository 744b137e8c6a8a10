// The HTTP face of the task server (for agents that take only HTTP MCP): 127.0.0.1, one URL per session,
// the session's secret as bearer token; and which transport each agent is given.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerHttp } from '@agentclientprotocol/sdk';
import { chooseTaskServer, rejectsStdioMcp } from '../../../src/extension/core/mcp/taskServerChoice';
import { tempStorageRoot } from '../../fakes/wakeupHarness';
import { callTool, openTaskServer, taskIdIn, type OpenedTaskServer } from '../../fakes/taskServerHarness';

describe('task server over HTTP', function () {
  this.timeout(30_000);
  let root: string;
  let ts: OpenedTaskServer;

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-http-');
    ts = await openTaskServer(root, { server: { agentOf: () => ({ builtin: false, command: '/usr/local/bin/copilot --acp' }) } });
  });

  afterEach(async () => {
    await ts.close();
    await fs.rm(root, { recursive: true, force: true, maxRetries: 10 });
  });

  async function entry(sessionId: string): Promise<McpServerHttp> {
    const [server] = await ts.server.serversFor(sessionId, { mcpCapabilities: { http: true } });
    assert.equal((server as { type?: string }).type, 'http');
    return server as McpServerHttp;
  }

  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
  const post = (url: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize) });

  it('listens on 127.0.0.1 only, and refuses a missing, wrong or other session\'s token', async () => {
    const s1 = await entry('s1');
    assert.match(s1.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp\/s1$/);
    assert.equal((await post(s1.url, {})).status, 401);
    assert.equal((await post(s1.url, { authorization: 'Bearer nope' })).status, 401);
    assert.equal((await post(s1.url, { authorization: `Bearer ${ts.identity.secrets.secretFor('s2')}` })).status, 401);
    // A page in a browser sends an Origin: refused even with the token.
    const token = s1.headers[0].value;
    assert.equal((await post(s1.url, { authorization: token, origin: 'http://evil.example' })).status, 401);
    assert.equal((await post(s1.url, { authorization: token })).status, 200);
    for (const line of ts.logged) assert.ok(!line.text.includes(token.slice(7)), line.text);
  });

  it('an MCP client with the session\'s token runs the tools, scoped to that session', async () => {
    const connect = async (sessionId: string) => {
      const e = await entry(sessionId);
      const client = new Client({ name: 'http-agent', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(e.url), { requestInit: { headers: { Authorization: e.headers[0].value } } }));
      return client;
    };
    const a = await connect('a');
    const b = await connect('b');
    try {
      const id = taskIdIn((await callTool(a, 'start_background_command', { command: 'echo over-http' })).text);
      await ts.tasks.registry.waitForExit(id);
      assert.match((await callTool(a, 'background_output', { id })).text, /over-http/);
      assert.equal((await callTool(b, 'background_status', { id })).isError, true);
      assert.equal(ts.tasks.registry.list({ sessionId: 'a' }).length, 1);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('which task server an agent gets', () => {
  it('stdio for agents, none for the built-in agent, HTTP only for agents that refuse stdio, none when off', () => {
    assert.deepEqual(chooseTaskServer({ offer: true, builtin: true }), { kind: 'builtin' });
    assert.deepEqual(chooseTaskServer({ offer: true, builtin: false, agentCommand: 'claude-agent-acp' }), { kind: 'stdio' });
    assert.deepEqual(chooseTaskServer({ offer: true, builtin: false, agentCommand: 'gemini --acp', capabilities: { mcpCapabilities: { http: true } } }), { kind: 'stdio' });
    assert.deepEqual(chooseTaskServer({ offer: true, builtin: false, agentCommand: '/opt/bin/copilot --acp', capabilities: { mcpCapabilities: { http: true } } }), { kind: 'http' });
    const none = chooseTaskServer({ offer: true, builtin: false, agentCommand: 'copilot --acp', capabilities: {} });
    assert.equal(none.kind, 'none');
    const off = chooseTaskServer({ offer: false, builtin: false, agentCommand: 'gemini --acp' });
    assert.ok(off.kind === 'none' && /offerToAgents is off/.test(off.reason));
  });

  it('recognises Copilot CLI by its program, not by a word in its arguments', () => {
    assert.equal(rejectsStdioMcp('copilot --acp'), true);
    assert.equal(rejectsStdioMcp('C:\\tools\\copilot.exe --acp'), true);
    assert.equal(rejectsStdioMcp('npx @github/copilot --acp'), true);
    assert.equal(rejectsStdioMcp('gemini --acp --model copilot'), false);
    assert.equal(rejectsStdioMcp('/home/me/copilot-tools/agent'), false);
    assert.equal(rejectsStdioMcp(undefined), false);
  });
});
