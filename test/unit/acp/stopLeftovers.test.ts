// Stop means stop, end to end in plain Node: a real agent process (like Codex) starts commands in their own
// sessions, one ignoring SIGTERM and one daemonized out of its tree, plus a background task through the real
// task registry; after the person's Abort every stray is gone, the agent's older helper and the task are not.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { isAlive } from '../../../src/extension/core/common/processTree';
import type { McpServerSource } from '../../../src/extension/core/acp/mcpServerSource';
import { TaskRegistry } from '../../../src/extension/core/tasks/taskRegistry';
import { TASK_SESSION_ENV } from '../../../src/shared/taskBridgeProtocol';
import { AcpHarness } from './acpHarness';

const strayAgent = path.resolve(__dirname, '../../fixtures/agents/fakeStrayAgent.js');
/** Stands in for Vigil's task server program: it only waits. */
const idleServer = path.resolve(__dirname, '../../fixtures/processes/idleServer.js');

interface Strays {
  helper: number;
  own: number;
  stubborn: number;
  daemon: number;
  task: string;
  agent: number;
  server?: number;
  forger?: number;
}

describe('Stop means stop: processes a stopped turn left running', function () {
  this.timeout(120_000);
  let h: AcpHarness | undefined;
  let registry: TaskRegistry | undefined;
  const started: number[] = [];

  async function harness(mcpServers?: McpServerSource[]): Promise<AcpHarness> {
    h = await AcpHarness.create({
      launch: () => customLaunch({ command: process.execPath, args: [strayAgent] }),
      terminalHost: async (storageRoot) => {
        registry = await TaskRegistry.open({ storageRoot, workspaceFolder: () => h?.workspace, onCompletion: async () => undefined });
        return registry;
      },
      settings: { graceMs: 300 },
      mcpServers,
    });
    return h;
  }

  beforeEach(async function () {
    if (!this.currentTest?.title.includes('task server')) await harness();
  });

  afterEach(async () => {
    for (const pid of started.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone: what the test wanted
      }
    }
    for (const task of registry?.list() ?? []) if (task.status === 'running') await registry!.kill(task.id).catch(() => undefined);
    await h?.dispose();
    registry?.dispose();
  });

  /** Starts a `strays` turn and waits (on the agent's stderr line, not on time) until it reported its pids. */
  async function strayTurn(mode: 'strays' | 'strays-wedged', seen: number): Promise<{ pids: Strays; ended: Promise<import('../../../src/extension/core/ports/turns').TurnEnded> }> {
    const r = await h!.sup.startTurn('session-1', mode, { source: 'user' });
    assert.equal(r.kind, 'started');
    if (r.kind !== 'started') throw new Error('not started');
    const lines = () => h!.logs.filter((l) => l.message.includes('STRAYS '));
    await h!.waitFor(() => lines().length > seen, 'the agent to report its children');
    const pids = JSON.parse(lines()[seen].message.slice(lines()[seen].message.indexOf('STRAYS ') + 7)) as Strays;
    started.push(pids.own, pids.stubborn, pids.daemon, pids.helper);
    return { pids, ended: r.ended };
  }

  function taskPid(id: string): number {
    const task = registry!.list().find((t) => t.id === id);
    assert.ok(task?.pid, `task ${id} has a pid`);
    return task.pid;
  }

  async function notices(): Promise<string[]> {
    const { records } = await h!.sup.sessions.readTail('session-1', 10_000);
    return records.flatMap((r) => (r.type === 'notice' ? [r.text] : []));
  }

  it('stops what a cancelled turn left running (SIGTERM, SIGKILL after the grace) and spares the helper and the task, turn after turn', async () => {
    for (let round = 0; round < 4; round += 1) {
      const { pids, ended } = await strayTurn('strays', round);
      const task = taskPid(pids.task);
      for (const pid of [pids.own, pids.stubborn, pids.daemon, pids.helper, task]) assert.ok(isAlive(pid), `pid ${pid} runs before the abort`);
      assert.ok(await h!.sup.abort('session-1'), 'the abort was taken');
      const end = await ended;
      assert.equal(end.reason, 'aborted', end.message);
      // SIGTERM ends two of them at once; the stubborn one only dies of the SIGKILL after the grace.
      await h!.waitFor(() => ![pids.own, pids.stubborn, pids.daemon].some(isAlive), 'the strays to end');
      assert.ok(isAlive(pids.helper), 'the helper from before the turn still runs');
      assert.ok(isAlive(task), 'the registered background task still runs');
      assert.equal(registry!.list().find((t) => t.id === pids.task)?.status, 'running');
      assert.ok(isAlive(pids.agent), 'the agent itself was not killed (it honoured the cancel)');
      const said = (await notices())[round];
      assert.match(said ?? '', /^Stopped 3 processes the agent left running: /, `round ${round}: ${String(said)}`);
      for (const command of ['sleep 600', 'node -e', 'sleep 601']) assert.ok(said.includes(command), `${said} names ${command}`);
      assert.ok(!said.includes('900') && !said.includes('603'), `${said} names neither the helper nor the task`);
      await h!.waitFor(() => h!.logged('ignored SIGTERM'), 'the log to say which one needed SIGKILL');
      await registry!.kill(pids.task);
      h!.logs.splice(0, h!.logs.length, ...h!.logs.filter((l) => l.message.includes('STRAYS ')));
    }
  });

  it('after escalation (the agent ignored the cancel and was killed), the daemonized grandchild is stopped too', async () => {
    const { pids, ended } = await strayTurn('strays-wedged', 0);
    const task = taskPid(pids.task);
    assert.ok(await h!.sup.abort('session-1'));
    const end = await ended;
    assert.equal(end.reason, 'aborted', end.message);
    await h!.waitFor(() => ![pids.own, pids.stubborn, pids.daemon, pids.agent].some(isAlive), 'the agent and its strays to end');
    assert.ok(isAlive(task), 'the registered background task still runs');
    assert.match((await notices()).join('\n'), /Stopped \d+ process(es)? the agent left running: .*sleep 601/);
  });

  (process.platform === 'linux' ? it : it.skip)('spares Vigil’s task server the agent started during the turn, and stops a child that only carries its session entry', async () => {
    const server = { name: 'vigil-tasks', command: process.execPath, args: [idleServer], env: [{ name: TASK_SESSION_ENV, value: 'session-1' }] };
    await harness([{ serversFor: async () => [server] }]);
    const { pids, ended } = await strayTurn('strays', 0);
    assert.ok(pids.server && pids.forger, 'the agent started the server and the child carrying its entry');
    started.push(pids.server, pids.forger);
    assert.ok(await h!.sup.abort('session-1'));
    assert.equal((await ended).reason, 'aborted');
    await h!.waitFor(() => ![pids.own, pids.stubborn, pids.daemon, pids.forger!].some(isAlive), 'the strays to end, the entry’s carrier with them');
    assert.ok(isAlive(pids.server), 'the task server still runs');
    assert.match((await notices())[0] ?? '', /^Stopped 4 processes the agent left running: .*sleep 605/);
  });

  it('a turn that completes stops nothing', async () => {
    const end = await h!.turn('hello');
    assert.equal(end.reason, 'completed');
    assert.deepEqual(await notices(), []);
  });
});
