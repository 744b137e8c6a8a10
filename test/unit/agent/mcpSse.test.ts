// An MCP server of the older SSE kind (an event stream from GET, messages by POST) reached by the built-in
// agent as it ships: its HTTP goes through the agent's own transport (nodeFetch), since the agent runs
// without WebAssembly and Node's fetch needs it.

import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import { promises as fs } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { buildFixtureServer } from '../../fixtures/mcp/fixtureTools';
import { AgentUnderTest } from './agentHarness';

type ToolCallUpdate = Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>;

describe('built-in agent: MCP client over SSE', function () {
  this.timeout(60_000);
  let agent: AgentUnderTest | undefined;
  let server: Server | undefined;
  let dir: string;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-mcp-sse-'));
  });
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
    if (server) {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
      server = undefined;
    }
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('calls a tool of an SSE server, sending the configured headers', async () => {
    const transports = new Map<string, SSEServerTransport>();
    const auth: string[] = [];
    server = createServer((req, res: ServerResponse) => {
      if (req.headers.authorization) auth.push(req.headers.authorization);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', res);
        transports.set(transport.sessionId, transport);
        const mcp = buildFixtureServer('news', { seenHeader: () => req.headers.authorization });
        res.on('close', () => {
          transports.delete(transport.sessionId);
          void mcp.close();
        });
        void mcp.connect(transport);
        return;
      }
      const transport = transports.get(url.searchParams.get('sessionId') ?? '');
      if (req.method === 'POST' && transport) {
        void transport.handlePostMessage(req, res);
        return;
      }
      res.writeHead(404).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const sseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`;
    const scriptFile = path.join(dir, 'script.json');
    await fs.writeFile(scriptFile, JSON.stringify({ responses: [{ toolCalls: [{ name: 'mcp__news__echo', arguments: { text: 'over sse' } }] }, { text: 'done' }] }));
    agent = await AgentUnderTest.start(
      { provider: 'demo', scriptPath: scriptFile },
      { mcpServers: [{ type: 'sse', name: 'news', url: sseUrl, headers: [{ name: 'Authorization', value: 'Bearer sse-token' }] }] },
    );
    assert.equal((await agent.prompt('go')).stopReason, 'end_turn');
    const done = agent.updates.filter((u): u is ToolCallUpdate => u.sessionUpdate === 'tool_call_update' && (u.status === 'completed' || u.status === 'failed'));
    const text = (done[0]?.content ?? []).map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : '')).join('');
    assert.equal(done[0]?.status, 'completed', `${text}; stderr: ${agent.stderr}`);
    assert.equal(text, 'echo from news: over sse (auth header: Bearer sse-token)');
    assert.ok(auth.length >= 2 && auth.every((a) => a === 'Bearer sse-token'), 'the stream and the messages carry the header');
  });
});
