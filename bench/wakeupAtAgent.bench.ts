// Wakeups measured where a person feels them: the prompt arriving at a real agent process, through the
// composed services (real registry, real Node task wrapper and its exit record, real outbox, real
// supervisor and ACP connection). Two agents:
// * the built-in agent as shipped (dist/agent.js) talking to a local OpenAI-compatible server: it starts
//   the command with its run_command tool (ACP terminal/create, background), and "at the agent" is when
//   its model request carrying the wakeup reaches the server (so the agent's own handling is included);
// * a third-party agent (test/fixtures/agents/mcpTaskAgent) that starts it through Vigil's MCP task
//   server (dist/taskServer.js) and logs each prompt it receives and each turn it answers.
// Two figures each: task exit → wakeup prompt (the session idle: the command exits after the turn
// ended), and turn end → deferred wakeup prompt (the command exited during the turn). The command
// prints its own exit time (`date +%s%N`) as its last act.

import { existsSync, promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtinLaunch, customLaunch, type LaunchSpec } from '../src/extension/core/acp/agentLaunch';
import { SessionSecrets } from '../src/extension/core/mcp/sessionSecrets';
import { silentLogger } from '../src/extension/core/ports/logger';
import { ApprovalBroker } from '../src/extension/presentation/approvalBroker';
import { VigilServices } from '../src/extension/services';
import { ScriptedOpenAiServer } from '../test/fixtures/models/scriptedOpenAiServer';
import { percentile, print } from './support/cooperativeAgent';
import { WakeupTrace } from './support/wakeupTrace';

const repoRoot = path.resolve(__dirname, '..', '..');
const agentScript = path.join(repoRoot, 'dist', 'agent.js');
const taskServer = path.join(repoRoot, 'dist', 'taskServer.js');
const mcpAgent = path.resolve(__dirname, '../test/fixtures/agents/mcpTaskAgent.js');
// VIGIL_BENCH_ROUNDS raises it for a steadier p99.
const ROUNDS = Number(process.env.VIGIL_BENCH_ROUNDS) > 0 ? Number(process.env.VIGIL_BENCH_ROUNDS) : 30;
const exitLine = (tag: string) => new RegExp(`${tag}\\n(\\d{19})`);
const nsToMs = (ns: string) => Number(BigInt(ns) / 1000n) / 1000;

async function withServices<T>(root: string, launch: () => LaunchSpec, withTaskServer: boolean, run: (services: VigilServices) => Promise<T>): Promise<T> {
  const workspace = path.join(root, 'workspace');
  await fs.mkdir(workspace, { recursive: true });
  const services = await VigilServices.start({
    storageRoot: path.join(root, 'storage'),
    windowId: 'bench',
    logger: silentLogger,
    windowFolders: () => [workspace],
    folderlessCwd: () => workspace,
    liveness: () => ({ enabled: true, timeoutMs: 60_000, toolTimeoutMs: 120_000, graceMs: 5_000 }),
    maxWakeupsPerTurn: () => 5,
    outputByteLimit: () => 64 * 1024,
    launchFor: async () => launch(),
    policy: { isTrusted: () => true, mode: () => 'allowAll' },
    prompter: new ApprovalBroker(),
    // The default: checkpoints on (VIGIL_BENCH_CHECKPOINTS=off measures without them).
    ...(process.env.VIGIL_BENCH_CHECKPOINTS === 'off' ? {} : { checkpoints: { enabled: () => true } }),
    ...(withTaskServer ? { taskServer: { identity: { name: 'bench', secrets: SessionSecrets.generate() }, program: { command: process.execPath, args: [taskServer] }, offer: () => true } } : {}),
  });
  try {
    return await run(services);
  } finally {
    services.dispose();
  }
}

/** Runs one user turn and waits for the wakeup turn it causes to end. */
async function turnAndWakeup(services: VigilServices, sessionId: string, prompt: string): Promise<void> {
  const wakeupEnded = new Promise<void>((resolve) => {
    const off = services.supervisor.subscribe((e) => {
      if (e.type === 'turnEnded' && e.ended.source === 'wakeup') {
        off();
        resolve();
      }
    });
  });
  const started = await services.supervisor.startTurn(sessionId, prompt, { source: 'user' });
  if (started.kind !== 'started') throw new Error(`turn not started: ${started.kind}`);
  await started.ended;
  await wakeupEnded;
}

const runCommand = (command: string, background: boolean) => ({ name: 'run_command', arguments: JSON.stringify({ command, background }) });

/** The text of the model request at `index` (all its messages), to find the wakeup it carries. */
function requestText(server: ScriptedOpenAiServer, index: number): string {
  return JSON.stringify(server.requests[index]?.messages ?? []);
}

function wakeupRequest(server: ScriptedOpenAiServer, tag: string): { index: number; exitMs: number } {
  for (let index = 0; index < server.requests.length; index += 1) {
    const messages = (server.requests[index].messages ?? []) as Array<{ role?: string; content?: unknown }>;
    const last = messages[messages.length - 1];
    const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    if (last?.role !== 'user' || !text.startsWith('[IMPORTANT')) continue;
    const ns = exitLine(tag).exec(text)?.[1];
    if (ns) return { index, exitMs: nsToMs(ns) };
  }
  throw new Error(`no model request carried the wakeup of ${tag} (last: ${requestText(server, server.requests.length - 1).slice(0, 300)})`);
}

async function builtin(root: string): Promise<void> {
  const server = await ScriptedOpenAiServer.start();
  try {
    const launch = () => builtinLaunch({ agentScript, execPath: process.execPath, model: { provider: 'openai-compatible', baseUrl: server.url, name: 'bench' }, apiKey: 'bench' });
    await withServices(root, launch, false, async (services) => {
      const { id: sessionId } = await services.supervisor.sessions.create('bench');
      const idle: number[] = [];
      for (let i = 0; i < ROUNDS; i += 1) {
        // The short sleep puts the exit after the turn ended: the idle path.
        server.reply({ kind: 'toolCalls', calls: [runCommand(`sleep 0.2; echo round-${i}; date +%s%N`, true)] }, { kind: 'text', chunks: ['started; waiting'] }, { kind: 'text', chunks: ['woken'] });
        await turnAndWakeup(services, sessionId, `start round ${i}`);
        const { index, exitMs } = wakeupRequest(server, `round-${i}`);
        idle.push(server.arrivals[index] - exitMs);
      }
      print('built-in agent: task exit to wakeup prompt at the agent p50', percentile(idle, 50), 'ms');
      print('built-in agent: task exit to wakeup prompt at the agent p99', percentile(idle, 99), 'ms');

      const deferred: number[] = [];
      let notDeferred = 0;
      for (let i = 0; i < ROUNDS; i += 1) {
        // The background command ends while the foreground one keeps the turn open: its wakeup waits for the turn's end.
        server.reply(
          { kind: 'toolCalls', calls: [runCommand(`echo deferred-${i}; date +%s%N`, true), runCommand('sleep 1', false)] },
          { kind: 'text', chunks: ['done'] },
          { kind: 'text', chunks: ['woken'] },
        );
        await turnAndWakeup(services, sessionId, `deferred round ${i}`);
        const { index, exitMs } = wakeupRequest(server, `deferred-${i}`);
        const turnEnd = server.replied[index - 1];
        if (exitMs >= turnEnd) notDeferred += 1;
        else deferred.push(server.arrivals[index] - turnEnd);
      }
      const note = notDeferred > 0 ? ` (${notDeferred} rounds left out: the command ended after the turn)` : '';
      print(`built-in agent: turn end to deferred wakeup prompt at the agent p50${note}`, percentile(deferred, 50), 'ms');
      print('built-in agent: turn end to deferred wakeup prompt at the agent p99', percentile(deferred, 99), 'ms');
    });
  } finally {
    await server.close();
  }
}

interface Logged {
  at?: number;
  text?: string;
  ended?: number;
  turnOf?: string;
}

async function throughMcp(root: string): Promise<void> {
  const agentLog = path.join(root, 'agent.log');
  const launch = () => customLaunch({ command: process.execPath, args: [mcpAgent], env: { MCP_AGENT_LOG: agentLog } });
  const logged = () => readFileSync(agentLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Logged);
  await withServices(root, launch, true, async (services) => {
    const { id: sessionId } = await services.supervisor.sessions.create('bench');
    const idle: number[] = [];
    // Where the time goes, per round, step by step (bench/support/wakeupTrace.ts). The registry's completion event
    // is no mark of it: it follows the task's own record, which waits for the wrapper's synced exit record.
    const trace = new WakeupTrace(services, path.join(root, 'storage'));
    for (let i = 0; i < ROUNDS; i += 1) {
      trace.begin();
      await turnAndWakeup(services, sessionId, `bg sleep 0.2; echo round-${i}; date +%s%N`);
      const wakeup = logged().find((l) => l.text?.startsWith('[IMPORTANT') && exitLine(`round-${i}`).test(l.text));
      const ns = exitLine(`round-${i}`).exec(wakeup?.text ?? '')?.[1];
      if (!wakeup?.at || !ns) throw new Error(`round ${i}: no wakeup with the exit time at the agent`);
      idle.push(wakeup.at - nsToMs(ns));
      trace.end(nsToMs(ns), wakeup.at);
    }
    print('MCP task server: task exit to wakeup prompt at the agent p50', percentile(idle, 50), 'ms');
    print('MCP task server: task exit to wakeup prompt at the agent p99', percentile(idle, 99), 'ms');
    const checkpoints = process.env.VIGIL_BENCH_CHECKPOINTS === 'off' ? 'off' : 'on';
    console.log(`MCP task server, the idle wakeup step by step, p50 / p99 ms: ${trace.summary()} (checkpoints ${checkpoints}; load ${os.loadavg()[0]!.toFixed(1)})`);
    trace.close();
    if (process.env.VIGIL_BENCH_ONLY === 'mcp-idle') return;

    const deferred: number[] = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      // bg-wait: the agent ends its turn only once the command finished, so the wakeup is deferred to the turn's end.
      const prompt = `bg-wait echo deferred-${i}`;
      await turnAndWakeup(services, sessionId, prompt);
      const lines = logged();
      const ended = lines.find((l) => l.ended !== undefined && l.turnOf === prompt)?.ended;
      const wakeup = lines.find((l) => l.text?.startsWith('[IMPORTANT') && l.text.includes(`deferred-${i}\n`));
      if (ended === undefined || !wakeup?.at) throw new Error(`deferred round ${i}: the agent logged no turn end or no wakeup`);
      deferred.push(wakeup.at - ended);
    }
    print('MCP task server: turn end to deferred wakeup prompt at the agent p50', percentile(deferred, 50), 'ms');
    print('MCP task server: turn end to deferred wakeup prompt at the agent p99', percentile(deferred, 99), 'ms');
  });
}

async function main(): Promise<void> {
  for (const file of [agentScript, taskServer]) if (!existsSync(file)) throw new Error(`${file} is missing: run node scripts/build.mjs`);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-wakeup-'));
  try {
    const only = process.env.VIGIL_BENCH_ONLY;
    // mcp-idle: the MCP idle rounds alone (a quicker A/B of the idle path).
    if (only !== 'mcp' && only !== 'mcp-idle') await builtin(path.join(root, 'builtin'));
    if (only !== 'builtin') await throughMcp(path.join(root, 'mcp'));
  } finally {
    await fs.rm(root, { recursive: true, force: true, maxRetries: 5 });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
