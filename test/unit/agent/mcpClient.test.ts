// The built-in agent as an MCP client of the servers it is given in session/new: real stdio and HTTP MCP servers
// (test/fixtures/mcp), tools offered under `mcp__<server>__<tool>`, calls through session/request_permission and
// reported as ACP tool calls; a server that fails to start, hangs, crashes or writes junk costs a tool error, not the session.

import * as assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpServer, SessionUpdate } from '@agentclientprotocol/sdk';
import { startHttpMcpServer, type HttpMcpFixture } from '../../fixtures/mcp/httpMcpServer';
import { AgentUnderTest } from './agentHarness';

const serverScript = path.resolve(__dirname, '../../fixtures/mcp/stdioMcpServer.js');
const stdio = (name: string, mode = 'serve', env: Record<string, string> = {}): McpServer => ({
  name,
  command: process.execPath,
  args: [serverScript, name, mode],
  env: Object.entries(env).map(([n, value]) => ({ name: n, value })),
});

type ToolCallUpdate = Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>;

/** The final update of each tool call (completed or failed), with its text. */
function results(agent: AgentUnderTest): Array<{ id: string; title: string; status: string; text: string }> {
  const titles = new Map<string, string>();
  for (const u of agent.updates) if (u.sessionUpdate === 'tool_call') titles.set(u.toolCallId, u.title);
  return agent.updates
    .filter((u): u is ToolCallUpdate => u.sessionUpdate === 'tool_call_update' && (u.status === 'completed' || u.status === 'failed'))
    .map((u) => ({
      id: u.toolCallId,
      title: titles.get(u.toolCallId) ?? '',
      status: u.status!,
      text: (u.content ?? []).map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : '')).join(''),
    }));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('built-in agent: MCP client', function () {
  this.timeout(60_000);
  let agent: AgentUnderTest | undefined;
  let dir: string;
  let http: HttpMcpFixture | undefined;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-mcp-'));
  });
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
    await http?.close();
    http = undefined;
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function script(responses: unknown[]): Promise<string> {
    const file = path.join(dir, 'script.json');
    await fs.writeFile(file, JSON.stringify({ responses }));
    return file;
  }

  it('advertises stdio, http and sse MCP servers and its own extensions in initialize', async () => {
    agent = await AgentUnderTest.start({ provider: 'demo', scriptPath: await script([]) }, { vigilMethods: null });
    assert.deepEqual(agent.initializeResponse?.agentCapabilities?.mcpCapabilities, { http: true, sse: true });
    const vigil = (agent.initializeResponse?._meta as { vigil?: { methods: string[]; features: string[] } }).vigil;
    assert.ok(vigil?.methods.includes('_vigil/lm/chunk'));
    assert.ok(vigil?.features.includes('session.history'));
  });

  it('calls a tool of a stdio server after asking permission, and reports it as an ACP tool call', async () => {
    const pidFile = path.join(dir, 'server.pid');
    agent = await AgentUnderTest.start(
      {
        provider: 'demo',
        scriptPath: await script([
          { toolCalls: [{ name: 'mcp__files__echo', arguments: { text: 'hello' } }] },
          { toolCalls: [{ name: 'mcp__files__fail', arguments: {} }] },
          { toolCalls: [{ name: 'mcp__files__weird_name', arguments: {} }] },
          { text: 'done' },
        ]),
      },
      { mcpServers: [stdio('files', 'serve', { MCP_FIXTURE_PID_FILE: pidFile })] },
    );
    assert.equal(existsSync(pidFile), false, 'the server starts with the first prompt, not with the session');
    assert.equal((await agent.prompt('use the tools')).stopReason, 'end_turn');
    const [echo, fail, weird] = results(agent);
    assert.deepEqual(echo, { id: echo.id, title: 'files: echo', status: 'completed', text: 'echo from files: hello' });
    assert.equal(fail.status, 'failed');
    assert.match(fail.text, /this tool always fails/);
    assert.equal(weird.status, 'completed');
    assert.equal(weird.text, 'weird ok');
    assert.deepEqual(agent.requests, ['permission files: echo', 'permission files: fail', 'permission files: weird.name']);
    const kinds = agent.updates.filter((u) => u.sessionUpdate === 'tool_call').map((u) => (u as { kind?: string }).kind);
    assert.deepEqual(kinds, ['other', 'other', 'other']);
    // The server is a process group of its own, stopped with the agent.
    const pid = Number(await fs.readFile(pidFile, 'utf8'));
    assert.ok(isAlive(pid));
    await agent.stop();
    agent = undefined;
    await waitUntil(() => !isAlive(pid), 'the MCP server to be stopped with the agent');
  });

  it('a rejected permission runs nothing and says so', async () => {
    agent = await AgentUnderTest.start(
      { provider: 'demo', scriptPath: await script([{ toolCalls: [{ name: 'mcp__files__echo', arguments: { text: 'x' } }] }, { text: 'ok' }]) },
      { mcpServers: [stdio('files')] },
    );
    agent.permission = 'reject';
    await agent.prompt('go');
    const [echo] = results(agent);
    assert.equal(echo.status, 'failed');
    assert.match(echo.text, /rejected/);
  });

  it('calls a tool of a streamable HTTP server, sending the configured headers', async () => {
    http = await startHttpMcpServer('docs');
    agent = await AgentUnderTest.start(
      { provider: 'demo', scriptPath: await script([{ toolCalls: [{ name: 'mcp__docs__echo', arguments: { text: 'over http' } }] }, { text: 'done' }]) },
      { mcpServers: [{ type: 'http', name: 'docs', url: http.url, headers: [{ name: 'Authorization', value: 'Bearer fixture-token-123' }] }] },
    );
    assert.equal((await agent.prompt('go')).stopReason, 'end_turn');
    const [echo] = results(agent);
    assert.equal(echo.status, 'completed', echo.text);
    assert.equal(echo.text, 'echo from docs: over http (auth header: Bearer fixture-token-123)');
  });

  it('a server that exits or hangs at start, or writes junk, is left out or survived; the good ones work and the session goes on', async () => {
    agent = await AgentUnderTest.start(
      {
        provider: 'demo',
        // Long enough for the good servers to start on a busy machine; the stuck one costs it once.
        mcpConnectTimeoutMs: 8_000,
        scriptPath: await script([
          { toolCalls: [{ name: 'mcp__good__echo', arguments: { text: 'still here' } }, { name: 'mcp__broken__echo', arguments: { text: 'x' } }, { name: 'mcp__noisy__junk', arguments: {} }] },
          { text: 'first turn over' },
          { toolCalls: [{ name: 'mcp__good__echo', arguments: { text: 'second turn' } }] },
          { text: 'second turn over' },
        ]),
      },
      { mcpServers: [stdio('good'), stdio('broken', 'exit-at-start'), stdio('stuck', 'hang-at-start'), stdio('noisy', 'junk-at-start')] },
    );
    assert.equal((await agent.prompt('go')).stopReason, 'end_turn');
    const [good, broken, junk] = results(agent);
    assert.equal(good.text, 'echo from good: still here');
    assert.equal(broken.status, 'failed');
    assert.match(broken.text, /Unknown tool "mcp__broken__echo"/);
    assert.equal(junk.status, 'completed', junk.text);
    assert.equal(junk.text, 'answered after junk');
    assert.match(agent.stderr, /mcp server "broken" exited with code 2.*configuration is missing/);
    assert.match(agent.stderr, /mcp server "stuck" did not answer within 8 s/);
    // A second turn does not wait for the servers that failed again.
    assert.equal((await agent.prompt('again')).stopReason, 'end_turn');
    assert.equal(results(agent)[3].text, 'echo from good: second turn');
  });

  it('a tool that hangs times out, and one that crashes its server is a tool error; the next turn restarts the server', async () => {
    agent = await AgentUnderTest.start(
      {
        provider: 'demo',
        mcpCallTimeoutMs: 3_000,
        scriptPath: await script([
          { toolCalls: [{ name: 'mcp__svc__hang', arguments: {} }] },
          { toolCalls: [{ name: 'mcp__svc__crash', arguments: {} }] },
          { toolCalls: [{ name: 'mcp__svc__echo', arguments: { text: 'after crash' } }] },
          { text: 'turn one over' },
          { toolCalls: [{ name: 'mcp__svc__echo', arguments: { text: 'restarted' } }] },
          { text: 'turn two over' },
        ]),
      },
      { mcpServers: [stdio('svc')] },
    );
    assert.equal((await agent.prompt('go')).stopReason, 'end_turn');
    const [hang, crash, afterCrash] = results(agent);
    assert.equal(hang.status, 'failed');
    assert.match(hang.text, /The MCP server "svc" did not answer hang within 3 s; the call was abandoned/);
    assert.equal(crash.status, 'failed');
    assert.equal(crash.text, 'The MCP server "svc" exited with code 3 during crash (its last output: fixture server: crashing on purpose).');
    assert.equal(afterCrash.status, 'failed');
    assert.match(afterCrash.text, /is not running/);
    assert.equal((await agent.prompt('again')).stopReason, 'end_turn');
    assert.equal(results(agent)[3].text, 'echo from svc: restarted');
  });

  it('cancel during an MCP call ends the turn as cancelled', async () => {
    agent = await AgentUnderTest.start(
      { provider: 'demo', scriptPath: await script([{ toolCalls: [{ name: 'mcp__svc__hang', arguments: {} }] }]) },
      { mcpServers: [stdio('svc')] },
    );
    const pending = agent.prompt('go');
    await agent.waitForUpdate((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress', 'the MCP call to start');
    await waitUntil(() => agent!.requests.length > 0, 'the permission request');
    await agent.cancel();
    assert.equal((await pending).stopReason, 'cancelled');
  });
});

async function waitUntil(test: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
