// The task caps through Vigil's task server: a start over the cap is refused before the person is asked, with
// what the model can do; a start waiting for its approval holds its room; an HTTP batch is refused whole.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServerHttp } from '@agentclientprotocol/sdk';
import type { ClientOpVerdict } from '../../../src/extension/core/acp/permissionGate';
import { tempStorageRoot } from '../../fakes/wakeupHarness';
import { callTool, connectMcpClient, openTaskServer, taskIdIn, type OpenedTaskServer } from '../../fakes/taskServerHarness';

describe('task caps through the task server', function () {
  this.timeout(60_000);
  let root: string;
  let ts: OpenedTaskServer;
  let client: Client | undefined;

  afterEach(async () => {
    await client?.close();
    client = undefined;
    for (const t of ts.tasks.registry.list()) if (t.status === 'running') await ts.tasks.registry.kill(t.id);
    await ts.close();
    await fs.rm(root, { recursive: true, force: true, maxRetries: 10 });
  });

  async function open(perSession: number, agent?: { builtin: boolean; command: string }): Promise<void> {
    root = await tempStorageRoot('vigil-toolcaps-');
    ts = await openTaskServer(root, { registry: { caps: () => ({ perSession, perWindow: 64 }) }, server: agent ? { agentOf: () => agent } : {} });
  }

  it('start_background_command over the cap is refused without a question, naming the tasks and what to do', async () => {
    await open(2);
    client = await connectMcpClient(ts.server, 's1');
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) ids.push(taskIdIn((await callTool(client, 'start_background_command', { command: 'exec sleep 600' })).text));
    const refused = await callTool(client, 'start_background_command', { command: 'echo never' });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /^Not started: this session already has 2 commands running/);
    for (const id of ids) assert.ok(refused.text.includes(id), refused.text);
    assert.match(refused.text, /vigil\.tasks\.maxRunningPerSession/);
    assert.match(refused.text, /kill_background stops one\.$/);
    assert.equal(ts.ops.length, 2, 'the person was asked about the two that ran only');
    assert.equal(ts.tasks.registry.list({ sessionId: 's1' }).length, 2);
    assert.ok(!ts.logged.some((l) => l.level === 'warn' && l.text.includes('failed')), 'a refusal is an answer, not a failure to log');
  });

  it('a start waiting for its approval holds its room: the next one is refused at once, unasked', async () => {
    await open(1);
    let answer!: (verdict: ClientOpVerdict) => void;
    let asked!: () => void;
    const question = new Promise<void>((resolve) => (asked = resolve));
    ts.verdict = () => {
      asked();
      return new Promise<ClientOpVerdict>((resolve) => (answer = resolve));
    };
    client = await connectMcpClient(ts.server, 's1');
    const first = callTool(client, 'start_background_command', { command: 'exec sleep 600' });
    await question;
    const second = await callTool(client, 'start_background_command', { command: 'echo never' });
    assert.equal(second.isError, true);
    assert.match(second.text, /already has 1 being started/);
    assert.equal(ts.ops.length, 1);
    answer({ allowed: true });
    assert.equal((await first).isError, false);
    assert.equal(ts.tasks.registry.list({ sessionId: 's1' }).length, 1);
  });

  it('a refused approval gives the room back', async () => {
    await open(1);
    ts.verdict = () => ({ allowed: false, reason: 'The person said no.' });
    client = await connectMcpClient(ts.server, 's1');
    assert.match((await callTool(client, 'start_background_command', { command: 'echo no' })).text, /The person said no/);
    ts.verdict = () => ({ allowed: true });
    assert.equal((await callTool(client, 'start_background_command', { command: 'exec sleep 600' })).isError, false);
  });

  it('HTTP: a JSON-RPC batch is refused whole and starts nothing', async () => {
    await open(16, { builtin: false, command: '/usr/local/bin/copilot --acp' });
    const [entry] = (await ts.server.serversFor('s1', { mcpCapabilities: { http: true } })) as McpServerHttp[];
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'start_background_command', arguments: { command: 'exec sleep 600' } } });
    const response = await fetch(entry.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: entry.headers[0].value },
      body: JSON.stringify([1, 2, 3].map(call)),
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error?: { code: number; message: string } };
    assert.equal(body.error?.code, -32600);
    assert.match(body.error?.message ?? '', /one message per request/);
    assert.deepEqual(ts.tasks.registry.list(), []);
    assert.equal(ts.ops.length, 0);
  });
});
