// The task caps through Vigil's task server: a start over the cap is refused before the person is asked, with
// what the model can do; a start waiting for its approval holds its room.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
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

  async function open(perSession: number): Promise<void> {
    root = await tempStorageRoot('vigil-toolcaps-');
    ts = await openTaskServer(root, { registry: { caps: () => ({ perSession, perWindow: 64 }) } });
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
});
