// A real agent (offline, against the local model endpoint) under the composed services with Vigil's MCP
// task server: the model calls start_background_command (the agent's MCP tool), and the wakeup reaches
// the agent — and from it the model — exactly once. Shared by the per-agent task-server test files.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { SessionSecrets } from '../../../src/extension/core/mcp/sessionSecrets';
import type { SupervisorEvent } from '../../../src/extension/core/supervisor/supervisorEvents';
import { ApprovalBroker } from '../../../src/extension/presentation/approvalBroker';
import { VigilServices } from '../../../src/extension/services';
import { ModelEndpoint } from '../../fakes/modelEndpoints/modelEndpoint';
import { text, toolCall, toolResults } from '../../fakes/modelEndpoints/script';
import { taskServerProgram } from '../../fakes/taskServerHarness';
import { realAgentRecipe, testApiKey, type RealAgentName, type RealAgentRecipe } from '../../harness/realAgents';

/** The name under which each agent shows an MCP server's tool to its model. */
export const mcpToolName: Record<RealAgentName, (tool: string) => string> = {
  claude: (tool) => `mcp__vigil-tasks__${tool}`,
  codex: (tool) => `mcp__vigil_tasks::${tool}`,
  gemini: (tool) => `mcp_vigil-tasks_${tool}`,
  copilot: (tool) => `vigil-tasks-${tool}`,
  opencode: (tool) => `vigil-tasks_${tool}`,
};

/**
 * Per-agent configuration a person would add for Vigil's tools. Claude Code puts tools it has no rule for
 * through its "auto mode" classifier (a model call the local endpoint does not script), so Vigil's server
 * is allowed by a rule, as a person trusting it would; Vigil's own approval policy still decides.
 */
const agentSettings: Partial<Record<RealAgentName, (recipe: RealAgentRecipe) => Promise<void>>> = {
  claude: async (recipe) => {
    const dir = recipe.agent.env.CLAUDE_CONFIG_DIR;
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'settings.json'), JSON.stringify({ permissions: { allow: ['mcp__vigil-tasks'] } }));
  },
};

export interface TaskServerRun {
  root: string;
  closeWindow(): Promise<void>;
  services: VigilServices;
  endpoint: ModelEndpoint;
  recipe: RealAgentRecipe;
  events: SupervisorEvent[];
  workspace: string;
  sessionId: string;
  dispose(): Promise<void>;
}

/** `reload` reopens the services of an earlier run on its storage (a window reload: new key, new sockets, same tasks). */
export async function startWithTaskServer(name: RealAgentName, reload?: TaskServerRun): Promise<TaskServerRun> {
  const root = reload?.root ?? (await fs.mkdtemp(path.join(os.tmpdir(), `vigil-ts-${name}-`)));
  const workspace = path.join(root, 'workspace');
  await fs.mkdir(workspace, { recursive: true });
  const endpoint = reload?.endpoint ?? (await ModelEndpoint.start({ apiKey: testApiKey }));
  const recipe = reload?.recipe ?? (await realAgentRecipe(name, { origin: endpoint.origin, workspace }));
  if (!reload) await agentSettings[name]?.(recipe);
  const events: SupervisorEvent[] = [];
  const services = await VigilServices.start({
    storageRoot: path.join(root, 'storage'),
    windowId: reload ? 'window-2' : 'window-1',
    logger: process.env.VIGIL_TEST_LOG ? { trace() {}, debug: console.log, info: console.log, warn: console.log, error: console.log } : { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    windowFolders: () => [workspace],
    folderlessCwd: () => workspace,
    liveness: () => ({ enabled: true, timeoutMs: 120_000, toolTimeoutMs: 120_000, graceMs: 5_000 }),
    maxWakeupsPerTurn: () => 5,
    outputByteLimit: () => 64 * 1024,
    launchFor: async () => customLaunch(recipe.agent),
    policy: { isTrusted: () => true, mode: () => 'allowAll' },
    prompter: new ApprovalBroker(),
    taskServer: { identity: { name: `r${process.pid}${reload ? 'b' : 'a'}`, secrets: SessionSecrets.generate() }, program: { command: process.execPath, args: [taskServerProgram] }, offer: () => true },
  });
  services.supervisor.subscribe((e) => events.push(e));
  const sessionId = reload?.sessionId ?? (await services.supervisor.sessions.create(`real ${name}`)).id;
  return {
    root,
    services,
    endpoint,
    recipe,
    events,
    workspace,
    sessionId,
    /** The window goes away (agents killed, services closed); tasks, storage, endpoint and agent home stay. */
    async closeWindow() {
      services.dispose();
    },
    async dispose() {
      services.dispose();
      await endpoint.close();
      await recipe.dispose();
      await fs.rm(root, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/** Resolves once `test` holds, re-checked at every supervisor event. */
export async function untilEvent(run: TaskServerRun, test: () => boolean, what: string, ms = 120_000): Promise<void> {
  while (!test()) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; model requests: ${run.endpoint.describe()}`)), ms);
      const off = run.services.supervisor.subscribe(() => {
        clearTimeout(timer);
        off();
        resolve();
      });
    });
  }
}

/**
 * The model starts `command` through the task server and ends its turn; the command's end wakes the agent
 * once, and the wakeup (with the output) reaches the model once.
 */
export async function backgroundWakeup(run: TaskServerRun, name: RealAgentName, command: string, marker: string): Promise<void> {
  const { services, endpoint, sessionId } = run;
  endpoint.script(toolCall(mcpToolName[name]('start_background_command'), { command }), text('Started it; I will continue when it finishes.'), text('The build finished fine.'));
  const started = await services.supervisor.startTurn(sessionId, 'Run the build in the background.', { source: 'user' });
  assert.equal(started.kind, 'started');
  const ended = await (started as { ended: Promise<{ reason: string; message?: string }> }).ended;
  assert.equal(ended.reason, 'completed', `${ended.message}; requests: ${endpoint.describe()}`);
  const tasks = services.registry.list({ sessionId });
  const tools = (r: unknown) => JSON.stringify(((r as { tools?: Array<{ name?: string; type?: string; functionDeclarations?: unknown }> }).tools ?? []).map((t) => t.name ?? t.type)).slice(0, 600);
  assert.equal(tasks.length, 1, `the model's call reached the registry; tool results: ${JSON.stringify(endpoint.mainRequests().flatMap(toolResults)).slice(0, 800)}; task tools offered: ${endpoint.mainRequests().map((r) => tools(r.body)).join(" | ")}; agent log: ${run.services.agents ? "" : ""}`);
  await untilEvent(run, () => run.events.some((e) => e.type === 'turnEnded' && e.ended.source === 'wakeup'), 'the wakeup turn to end');
  for (let i = 0; i < 3; i += 1) await services.wakeups.drain(sessionId);
  const { records } = await services.supervisor.sessions.readAll(sessionId);
  const wakeups = records.filter((r) => r.type === 'userPrompt' && r.source === 'wakeup');
  assert.equal(wakeups.length, 1, 'exactly one wakeup turn');
  const seen = endpoint.mainRequests().filter((r) => JSON.stringify(r.body).includes(`Background task ${tasks[0].id} completed`));
  assert.ok(seen.length >= 1, `the wakeup reached the model; requests: ${endpoint.describe()}`);
  assert.ok(JSON.stringify(seen[0].body).includes(marker), 'with the output');
  // The wakeup prompt appears in one user message of the conversation, not twice.
  const last = JSON.stringify(endpoint.mainRequests().at(-1)!.body);
  assert.equal(last.split(`Background task ${tasks[0].id} completed`).length - 1, 1, 'the agent was prompted with the wakeup once');
}

/** Exactly one wakeup turn for `taskId`, and the model saw the wakeup (with `marker`) in one user message. */
export async function assertWokenOnce(run: TaskServerRun, taskId: string, marker: string): Promise<void> {
  const { services, endpoint, sessionId } = run;
  await untilEvent(run, () => run.events.some((e) => e.type === 'turnEnded' && e.ended.source === 'wakeup'), 'the wakeup turn to end');
  for (let i = 0; i < 3; i += 1) await services.wakeups.drain(sessionId);
  const { records } = await services.supervisor.sessions.readAll(sessionId);
  const wakeups = records.filter((r) => r.type === 'userPrompt' && r.source === 'wakeup' && r.text.includes(taskId));
  assert.equal(wakeups.length, 1, 'exactly one wakeup turn');
  const last = JSON.stringify(endpoint.mainRequests().at(-1)!.body);
  assert.equal(last.split(`Background task ${taskId} completed`).length - 1, 1, `the agent was prompted with the wakeup once; requests: ${endpoint.describe()}`);
  assert.ok(last.includes(marker), 'with the output');
}

/** The model starts a command, then (still in its turn) runs `sleep` with its own shell: the command ends inside the turn. */
export async function teardownDrain(run: TaskServerRun, name: RealAgentName, shell: { name: string; args: Record<string, unknown> }): Promise<void> {
  const { services, endpoint, sessionId } = run;
  endpoint.script(toolCall(mcpToolName[name]('start_background_command'), { command: 'echo inside-ok' }), toolCall(shell.name, shell.args), text('Both done.'), text('Noted the result.'));
  const started = await services.supervisor.startTurn(sessionId, 'Start it, then wait a moment.', { source: 'user' });
  assert.equal(started.kind, 'started');
  const ended = await (started as { ended: Promise<{ reason: string; message?: string }> }).ended;
  const turnEndedAt = Date.now();
  assert.equal(ended.reason, 'completed', `${ended.message}; requests: ${endpoint.describe()}`);
  const [task] = services.registry.list({ sessionId });
  assert.ok(task, `the task was started; requests: ${endpoint.describe()}`);
  // It ended while the turn still ran: the completion waited for the turn's teardown.
  assert.ok(task.endedAt !== null && task.endedAt < turnEndedAt, 'the task ended inside the turn');
  const turnEnd = run.events.findIndex((e) => e.type === 'turnEnded' && e.ended.source === 'user');
  assert.ok(!run.events.slice(0, turnEnd).some((e) => e.type === 'turnStarted' && e.source === 'wakeup'), 'no wakeup while the turn ran');
  await assertWokenOnce(run, task.id, 'inside-ok');
}
