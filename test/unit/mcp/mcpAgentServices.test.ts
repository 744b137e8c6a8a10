// The composed services with a third-party agent that has no client terminals and uses Vigil's MCP task
// server: the server reaches the agent in session/new, a background command it starts through MCP wakes
// it exactly once (after its turn, or through the teardown drain when it ends inside the turn), the task
// is the registry's (what the view, the status bar and the terminal mirrors list), and a command asked
// for outside a turn, in Restricted Mode, or with the setting off is refused or not offered.

import * as assert from 'node:assert/strict';
import { existsSync, promises as fs, readFileSync, symlinkSync, watch } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { SessionSecrets } from '../../../src/extension/core/mcp/sessionSecrets';
import type { SupervisorEvent } from '../../../src/extension/core/supervisor/supervisorEvents';
import { ApprovalBroker } from '../../../src/extension/presentation/approvalBroker';
import { VigilServices } from '../../../src/extension/services';
import { taskServerProgram } from '../../fakes/taskServerHarness';

const agentScript = path.resolve(__dirname, '../../fixtures/agents/mcpTaskAgent.js');

interface Logged {
  text?: string;
  mcpServers?: Array<{ name: string; type: string }>;
  late?: string;
  isError?: boolean;
}

describe('VigilServices with an agent that uses the MCP task server', function () {
  this.timeout(60_000);
  let root: string;
  let workspace: string;
  let agentLog: string;
  let services: VigilServices;
  let trusted: boolean;
  let offer: boolean;
  let agentCommand: string;
  const events: SupervisorEvent[] = [];

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-mcpagent-'));
    workspace = path.join(root, 'workspace');
    agentLog = path.join(root, 'agent.log');
    await fs.mkdir(workspace);
    trusted = true;
    offer = true;
    agentCommand = process.execPath;
    events.length = 0;
  });

  afterEach(async () => {
    services?.dispose();
    await fs.rm(root, { recursive: true, force: true, maxRetries: 10 });
  });

  async function start(): Promise<void> {
    services = await VigilServices.start({
      storageRoot: path.join(root, 'storage'),
      windowId: 'window-1',
      // Every activity event is read below; the view's throttle would drop those that come close together.
      activityThrottleMs: 0,
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
      windowFolders: () => [workspace],
      folderlessCwd: () => workspace,
      liveness: () => ({ enabled: true, timeoutMs: 60_000, toolTimeoutMs: 120_000, graceMs: 5_000 }),
      maxWakeupsPerTurn: () => 5,
      outputByteLimit: () => 64 * 1024,
      launchFor: async () => customLaunch({ command: agentCommand, args: [agentScript], env: { MCP_AGENT_LOG: agentLog } }),
      policy: { isTrusted: () => trusted, mode: () => 'allowAll' },
      prompter: new ApprovalBroker(),
      taskServer: {
        identity: { name: `s${process.pid}`, secrets: SessionSecrets.generate() },
        program: { command: process.execPath, args: [taskServerProgram] },
        offer: () => offer,
      },
    });
    services.supervisor.subscribe((e) => events.push(e));
  }

  function agentSaw(): Logged[] {
    return existsSync(agentLog) ? readFileSync(agentLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Logged) : [];
  }

  /** Resolves once the agent logged a matching line (woken by changes to its log, not by a timer). */
  async function untilLogged(predicate: (l: Logged) => boolean): Promise<void> {
    const watcher = watch(root);
    try {
      while (!agentSaw().some(predicate)) await new Promise((resolve) => watcher.once('change', resolve));
    } finally {
      watcher.close();
    }
  }

  async function until(test: () => boolean, what: string): Promise<void> {
    while (!test()) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 30_000);
        const off = services.supervisor.subscribe(() => {
          clearTimeout(timer);
          off();
          resolve();
        });
      });
    }
  }

  async function userTurn(sessionId: string, text: string): Promise<void> {
    const started = await services.supervisor.startTurn(sessionId, text, { source: 'user' });
    assert.equal(started.kind, 'started');
    const ended = await (started as { ended: Promise<{ reason: string; message?: string }> }).ended;
    assert.equal(ended.reason, 'completed', ended.message);
  }

  const wakeupsAtAgent = () => agentSaw().filter((l) => l.text?.startsWith('[IMPORTANT: Background task'));
  const wakeupTurnsEnded = () => events.filter((e) => e.type === 'turnEnded' && e.ended.source === 'wakeup').length;

  for (const [name, prompt] of [
    ['the command finishes after the turn ended', 'bg sleep 0.3; echo built-ok'],
    ['the command finishes inside the turn (teardown drain)', 'bg-wait echo built-ok'],
  ] as const) {
    it(`${name}: the agent is woken exactly once with the output`, async () => {
      await start();
      const meta = await services.supervisor.sessions.create('mcp');
      await userTurn(meta.id, prompt);
      assert.deepEqual(agentSaw()[0].mcpServers, [{ name: 'vigil-tasks', type: 'stdio' }]);
      await until(() => wakeupTurnsEnded() >= 1, 'the wakeup turn');
      const wakeups = wakeupsAtAgent();
      assert.equal(wakeups.length, 1);
      const tasks = services.registry.list({ sessionId: meta.id });
      assert.equal(tasks.length, 1);
      assert.ok(tasks[0].background);
      assert.ok(wakeups[0].text!.startsWith(`[IMPORTANT: Background task ${tasks[0].id} completed (exit code 0).`), wakeups[0].text);
      assert.match(wakeups[0].text!, /built-ok/);
      // Three more drains and a sweep start nothing more.
      for (let i = 0; i < 3; i += 1) assert.equal(await services.wakeups.drain(meta.id), 'nothing');
      await services.wakeups.sweep();
      assert.equal(wakeupsAtAgent().length, 1);
      const activity = events.filter((e) => e.type === 'activity').map((e) => (e.type === 'activity' ? e.description : ''));
      assert.ok(activity.includes(`background task ${tasks[0].id} started: ${prompt.slice(prompt.indexOf(' ') + 1)}`), activity.join('\n'));
    });
  }

  it('a command asked for after the turn ended is refused: Vigil runs commands only during a turn', async () => {
    await start();
    const meta = await services.supervisor.sessions.create('late');
    await userTurn(meta.id, 'late echo too-late');
    await untilLogged((l) => l.late !== undefined);
    const late = agentSaw().find((l) => l.late !== undefined)!;
    assert.equal(late.isError, true);
    assert.match(late.late!, /No turn of this session is running/);
    assert.equal(services.registry.list().length, 0);
  });

  it('Restricted Mode: the tool refuses and nothing runs', async () => {
    trusted = false;
    await start();
    const meta = await services.supervisor.sessions.create('restricted');
    await userTurn(meta.id, 'bg echo nope');
    assert.equal(services.registry.list().length, 0);
    const { records } = await services.supervisor.sessions.readAll(meta.id);
    assert.match(JSON.stringify(records.filter((r) => r.type === 'agentUpdate')), /Restricted Mode/);
  });

  it('vigil.tasks.offerToAgents off: the agent gets no task server and the reason is known for the header', async () => {
    offer = false;
    await start();
    const meta = await services.supervisor.sessions.create('off');
    await userTurn(meta.id, 'hello');
    assert.deepEqual(agentSaw()[0].mcpServers, []);
    assert.match(services.taskServer!.unavailable(meta.id) ?? '', /offerToAgents is off/);
  });

  it('an agent that takes only HTTP (Copilot CLI) gets the HTTP endpoint and is woken through it', async () => {
    const bin = path.join(root, 'bin');
    await fs.mkdir(bin);
    symlinkSync(process.execPath, path.join(bin, 'copilot'));
    agentCommand = path.join(bin, 'copilot');
    await start();
    const meta = await services.supervisor.sessions.create('http');
    await userTurn(meta.id, 'bg echo via-http');
    assert.deepEqual(agentSaw()[0].mcpServers, [{ name: 'vigil-tasks', type: 'http' }]);
    await until(() => wakeupTurnsEnded() >= 1, 'the wakeup turn');
    assert.equal(wakeupsAtAgent().length, 1);
    assert.match(wakeupsAtAgent()[0].text!, /via-http/);
    assert.equal(services.taskServer!.unavailable(meta.id), undefined);
  });
});
