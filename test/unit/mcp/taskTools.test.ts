// Every task tool through an MCP client of the real stdio program: results, bounded and validated input,
// the workspace boundary, the approval policy (Restricted Mode), timeouts, notify rules, and a registry
// restart under a connected server.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PermissionGate } from '../../../src/extension/core/acp/permissionGate';
import type { ApprovalMode, PermissionAnswer } from '../../../src/extension/core/acp/hostPorts';
import { makeFifo, openGate, waitForOutput } from '../../fakes/taskHarness';
import { tempStorageRoot } from '../../fakes/wakeupHarness';
import { callTool, connectMcpClient, openTaskServer, taskIdIn, type OpenedTaskServer } from '../../fakes/taskServerHarness';

describe('task tools over MCP (stdio program)', function () {
  this.timeout(60_000);
  let root: string;
  let ts: OpenedTaskServer;
  let client: Client;
  const closers: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-tools-');
    ts = await openTaskServer(root);
    client = await connectMcpClient(ts.server, 's1');
  });

  afterEach(async () => {
    await client.close();
    for (const c of closers.splice(0)) await c();
    for (const t of ts.tasks.registry.list()) if (t.status === 'running') await ts.tasks.registry.kill(t.id);
    await ts.close();
    await fs.rm(root, { recursive: true, force: true, maxRetries: 10 });
  });

  async function start(args: Record<string, unknown>): Promise<string> {
    const r = await callTool(client, 'start_background_command', args);
    assert.equal(r.isError, false, r.text);
    return taskIdIn(r.text);
  }

  it('lists the five tools, and their descriptions tell the model it will be woken', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['background_output', 'background_status', 'kill_background', 'list_background', 'start_background_command']);
    const startTool = tools.find((t) => t.name === 'start_background_command')!;
    assert.match(startTool.description ?? '', /You will be woken with its result/);
    assert.match(startTool.description ?? '', /end your turn instead of waiting/);
    assert.match(startTool.description ?? '', /window reloads/);
    assert.deepEqual((startTool.inputSchema as { required?: string[] }).required, ['command']);
  });

  it('start → status → output (tail) → list: a background task of this session in the registry', async () => {
    const id = await start({ command: 'printf "line1\\nline2\\nsecond-half"' });
    await ts.tasks.registry.waitForExit(id);
    const task = await ts.tasks.registry.get(id);
    assert.equal(task?.sessionId, 's1');
    assert.equal(task?.background, true);
    assert.deepEqual(task?.notify, { onExit: true });
    const status = await callTool(client, 'background_status', { id });
    assert.match(status.text, new RegExp(`Task ${id}: exited with code 0`));
    const tail = await callTool(client, 'background_output', { id, tail_bytes: 11 });
    assert.match(tail.text, /Output \(last 11 bytes\):\nsecond-half$/);
    assert.match((await callTool(client, 'background_output', { id })).text, /line1\nline2\nsecond-half/);
    assert.match((await callTool(client, 'list_background')).text, new RegExp(`${id}  exited \\(exit 0\\)`));
    assert.equal(ts.tasks.completions.length, 1);
    assert.equal(ts.tasks.completions[0].taskId, id);
  });

  it('kill_background ends the whole tree; the task reads killed', async () => {
    const id = await start({ command: 'echo up; sleep 600 & sleep 600; wait' });
    await waitForOutput(ts.tasks, id, 'up');
    const r = await callTool(client, 'kill_background', { id });
    assert.equal(r.isError, false, r.text);
    assert.match(r.text, new RegExp(`Killed task ${id}`));
    assert.equal((await ts.tasks.registry.get(id))?.status, 'killed');
    assert.match((await callTool(client, 'kill_background', { id })).text, /not running/);
  });

  it('invalid or unbounded input is refused with what to fix, and starts nothing', async () => {
    const bad: Array<[string, Record<string, unknown>]> = [
      ['start_background_command', {}],
      ['start_background_command', { command: '' }],
      ['start_background_command', { command: 'x'.repeat(8_001) }],
      ['start_background_command', { command: 'true', surprise: 1 }],
      ['start_background_command', { command: 'true', timeout_seconds: 0 }],
      ['start_background_command', { command: 'true', timeout_seconds: 1.5 }],
      ['start_background_command', { command: 'true', notify_pattern: '(a)\\1' }],
      ['background_status', { id: '../../etc/passwd' }],
      ['background_output', { id: 't-00000000', tail_bytes: 0 }],
      ['background_output', { id: 't-00000000', tail_bytes: 10_000_000 }],
      ['kill_background', {}],
    ];
    for (const [tool, args] of bad) {
      const r = await callTool(client, tool, args);
      assert.equal(r.isError, true, `${tool} ${JSON.stringify(args).slice(0, 80)} → ${r.text}`);
    }
    assert.equal(ts.tasks.registry.list().length, 0);
    assert.equal(ts.ops.length, 0, 'nothing reached the approval policy');
    assert.match((await callTool(client, 'background_status', { id: 't-00000000' })).text, /no task t-00000000 in this session/);
  });

  it('cwd: relative inside the workspace runs there; outside is flagged for the policy; missing or a file is refused', async () => {
    await fs.mkdir(path.join(ts.workspace, 'sub'));
    await fs.writeFile(path.join(ts.workspace, 'file.txt'), 'x');
    const id = await start({ command: 'pwd', cwd: 'sub' });
    await ts.tasks.registry.waitForExit(id);
    const real = await fs.realpath(path.join(ts.workspace, 'sub'));
    assert.equal((await ts.tasks.registry.get(id))?.output.trim(), real);
    const inside = ts.ops.at(-1)!.op;
    assert.ok(inside.kind === 'execute' && inside.cwdInside);

    const outside = await start({ command: 'true', cwd: root });
    assert.ok(outside);
    const op = ts.ops.at(-1)!.op;
    assert.ok(op.kind === 'execute' && !op.cwdInside && op.commandLine === 'true' && op.background);

    const opsBefore = ts.ops.length;
    for (const cwd of ['missing-folder', 'file.txt', '../../../../nonexistent']) {
      const r = await callTool(client, 'start_background_command', { command: 'true', cwd });
      assert.equal(r.isError, true, r.text);
    }
    assert.equal(ts.ops.length, opsBefore);
  });

  for (const [mode, trusted, answer, allowed] of [
    ['allowAll', false, undefined, false],
    ['ask', true, 'reject', false],
    ['ask', true, 'allowOnce', true],
    ['allowReadOnly', true, 'allowOnce', true],
  ] as Array<[ApprovalMode, boolean, PermissionAnswer | undefined, boolean]>) {
    it(`the approval policy decides like terminal/create: ${trusted ? 'trusted' : 'Restricted Mode'}, ${mode}${answer ? `, person answers ${answer}` : ''} → ${allowed ? 'runs' : 'refused'}`, async () => {
      const asked: string[] = [];
      const gate = new PermissionGate({ isTrusted: () => trusted, mode: () => mode }, { ask: async (q) => (asked.push(q.title), answer ?? 'reject') }, ts.workspace);
      ts.verdict = (sessionId, op) => gate.authorize(sessionId, op, { opened: () => undefined, closed: () => undefined }, new AbortController().signal);
      const r = await callTool(client, 'start_background_command', { command: 'echo approved' });
      assert.equal(r.isError, !allowed, r.text);
      assert.equal(ts.tasks.registry.list().length, allowed ? 1 : 0);
      if (!trusted) assert.match(r.text, /Restricted Mode/);
      if (answer) assert.match(asked[0] ?? '', /echo approved/);
    });
  }

  it('timeout_seconds kills the task (tree) once the deadline passes', async () => {
    const id = await start({ command: 'echo up; sleep 600', timeout_seconds: 1 });
    const exit = await ts.tasks.registry.waitForExit(id);
    assert.ok(exit.signal !== null || exit.exitCode !== 0);
    const task = await ts.tasks.registry.get(id);
    assert.equal(task?.status, 'killed');
    assert.ok(task?.deadlineAt !== undefined);
    assert.equal(ts.tasks.completions.filter((c) => c.taskId === id).length, 1);
  });

  it('notify_on_exit false wakes nobody; notify_pattern reports the matching line while it runs', async () => {
    const quiet = await start({ command: 'echo quiet', notify_on_exit: false });
    await ts.tasks.registry.waitForExit(quiet);
    const gate = makeFifo(ts.workspace);
    const server = await start({ command: `echo "listening on :3000"; cat ${JSON.stringify(gate)}`, notify_pattern: 'listening on :\\d+' });
    await waitForOutput(ts.tasks, server, 'listening');
    while (!ts.tasks.completions.some((c) => c.taskId === server)) await new Promise<void>((resolve) => ts.tasks.registry.subscribe(() => resolve()));
    await openGate(gate);
    await ts.tasks.registry.waitForExit(server);
    await ts.tasks.registry.whenReattached();
    const kinds = ts.tasks.completions.map((c) => `${c.taskId === quiet ? 'quiet' : 'server'}:${c.kind}`);
    assert.ok(!kinds.includes('quiet:exit'), kinds.join());
    assert.ok(kinds.includes('server:pattern'), kinds.join());
    assert.equal(ts.tasks.completions.find((c) => c.kind === 'pattern')?.matchedLine, 'listening on :3000');
  });

  it('a registry (and bridge) restart under a connected server: the same program reconnects and sees the task re-attached', async () => {
    const gate = makeFifo(ts.workspace);
    const id = await start({ command: `echo before; cat ${JSON.stringify(gate)} > /dev/null; echo after` });
    await waitForOutput(ts.tasks, id, 'before');
    const socketPath = ts.server.socketPath;
    await ts.close();
    await assert.rejects(fs.lstat(socketPath));
    // While the bridge is down a call fails with a message, not a hang.
    const down = await callTool(client, 'list_background');
    assert.equal(down.isError, true, down.text);

    ts = await openTaskServer(root, { identity: ts.identity });
    assert.equal(ts.server.socketPath, socketPath);
    assert.match((await callTool(client, 'background_status', { id })).text, /running/);
    await openGate(gate);
    await ts.tasks.registry.waitForExit(id);
    assert.match((await callTool(client, 'background_output', { id })).text, /before\nafter/);
    const again = await start({ command: 'echo new' });
    assert.notEqual(again, id);
  });
});
