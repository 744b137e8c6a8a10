// Windows on one storage root for agent-session tests: each a provider (with the durable agent-session
// book) and a supervisor, like a reloaded or a second VS Code window; the fake agent's call record.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AcpAgentHandle } from '../../../src/extension/core/acp/acpAgentHandle';
import { AcpAgentHandleProvider } from '../../../src/extension/core/acp/acpHandleProvider';
import { customLaunch, type LaunchSpec } from '../../../src/extension/core/acp/agentLaunch';
import { systemClock } from '../../../src/extension/core/ports/clock';
import type { Logger } from '../../../src/extension/core/ports/logger';
import type { TurnEnded } from '../../../src/extension/core/ports/turns';
import { AgentSessionRecords } from '../../../src/extension/core/store/agentSessionRecords';
import type { SupervisorEvent } from '../../../src/extension/core/supervisor/supervisorEvents';
import { TurnSupervisor } from '../../../src/extension/core/supervisor/turnSupervisor';

export const fakeResumeAgent = path.resolve(__dirname, '../../fixtures/agents/fakeResumeAgent.js');
export const sessionId = 's1';

/** fakeResumeAgent with these flags, keeping its sessions in the world's agent folder. */
export const fakeLaunch = (w: World, flags: string[]) => (): LaunchSpec => customLaunch({ command: process.execPath, args: [fakeResumeAgent, '--state', w.agentState, ...flags] });

export interface Call {
  pid: number;
  method: string;
  sessionId?: string;
  mcpServers?: unknown[];
  meta?: unknown;
}

/** One window: its own provider and supervisor on the shared storage root, like a reloaded or second window. */
export class Window {
  readonly events: SupervisorEvent[] = [];
  readonly logs: string[] = [];
  sup!: TurnSupervisor;
  agents!: AcpAgentHandleProvider;

  static async open(w: World, launch: () => LaunchSpec, windowId: string): Promise<Window> {
    const win = new Window();
    const log: Logger = {
      trace: () => undefined,
      debug: (m) => void (process.env.VIGIL_TEST_DEBUG && win.logs.push(String(m))),
      info: (m) => void win.logs.push(String(m)),
      warn: (m) => void win.logs.push(String(m)),
      error: (m) => void win.logs.push(String(m)),
    };
    win.agents = new AcpAgentHandleProvider({
      log,
      cwdFor: () => w.workspace,
      launchFor: async () => launch(),
      policy: { isTrusted: () => true, mode: () => 'allowAll' },
      prompter: { ask: async () => 'reject' },
      agentSessions: new AgentSessionRecords(w.storage, log),
      // As the services do: the transcript's answered prompts (enough to know there was an earlier conversation).
      loadHistoryFor: async (id) => {
        const { records } = await win.sup.sessions.readAll(id);
        const answered = records.filter((r, i) => r.type === 'userPrompt' && records.slice(i).some((n) => n.type === 'agentUpdate'));
        return answered.map((r) => ({ role: 'user' as const, text: r.type === 'userPrompt' ? r.text : '' }));
      },
      openTimeoutMs: w.openTimeoutMs,
      initializeTimeoutMs: w.initializeTimeoutMs,
      mcpServers: [{ serversFor: async () => [{ name: 'tasks', command: '/bin/true', args: [], env: [] }] }],
    });
    win.sup = new TurnSupervisor({
      storageRoot: w.storage,
      clock: systemClock,
      logger: log,
      agents: win.agents,
      settings: () => ({ enabled: true, toolTimeoutMs: 120_000, timeoutMs: w.stallMs, graceMs: 2_000 }),
      windowId,
      leaseTtlMs: 30_000,
      activityThrottleMs: 0,
    });
    win.sup.subscribe((e) => void win.events.push(e));
    await win.sup.sessions.init();
    if (!(await win.sup.sessions.get(sessionId))) await win.sup.sessions.create('resume test', sessionId);
    w.windows.push(win);
    return win;
  }

  async turn(text: string): Promise<TurnEnded> {
    const r = await this.sup.startTurn(sessionId, text, { source: 'user' });
    if (r.kind !== 'started') throw new Error(`turn not started: ${JSON.stringify(r)}`);
    return r.ended;
  }

  /** The agent's answer text in the last turn, as the supervisor saw it. */
  lastAnswer(): string {
    const lastStart = this.events.map((e) => e.type).lastIndexOf('turnStarted');
    return this.events
      .slice(lastStart)
      .map((e) => (e.type === 'activity' ? e.description : ''))
      .filter((d) => d !== '')
      .join('\n');
  }

  notices(): string[] {
    return this.events.flatMap((e) => (e.type === 'activity' && /without the earlier conversation|could not (resume|load)/.test(e.description) ? [e.description] : []));
  }

  async pid(): Promise<number | undefined> {
    return ((await this.agents.get(sessionId)) as AcpAgentHandle).pid;
  }

  /** Closes the window the way a reload does: the agent is released (closing its session), then everything is disposed. */
  async close(): Promise<void> {
    await this.agents.release(sessionId);
    this.sup.dispose();
    this.agents.dispose();
  }
}

export class World {
  windows: Window[] = [];
  root = '';
  storage = '';
  workspace = '';
  agentState = '';
  openTimeoutMs: number | undefined;
  stallMs = 20_000;
  initializeTimeoutMs: number | undefined;

  static async create(): Promise<World> {
    const w = new World();
    w.root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-resume-'));
    w.storage = path.join(w.root, 'storage');
    w.workspace = path.join(w.root, 'ws');
    w.agentState = path.join(w.root, 'agent');
    await fs.mkdir(w.workspace);
    await fs.mkdir(w.agentState);
    return w;
  }

  async calls(): Promise<Call[]> {
    const text = await fs.readFile(path.join(this.agentState, 'calls.jsonl'), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Call);
  }

  async methods(): Promise<string[]> {
    return (await this.calls()).map((c) => c.method).filter((m) => m !== 'session/prompt' && m !== 'session/cancel');
  }

  async agentSessionIds(): Promise<string[]> {
    const names = await fs.readdir(path.join(this.agentState, 'sessions')).catch(() => [] as string[]);
    return names.map((n) => decodeURIComponent(n.replace(/\.json$/, '')));
  }

  async binding() {
    return new AgentSessionRecords(this.storage, { trace() {}, debug() {}, info() {}, warn() {}, error() {} }).read(sessionId);
  }

  async dispose(): Promise<void> {
    for (const win of this.windows) {
      win.sup.dispose();
      const handle = (await win.agents.get(sessionId).catch(() => undefined)) as AcpAgentHandle | undefined;
      await handle?.kill('test over');
      win.agents.dispose();
    }
    await fs.rm(this.root, { recursive: true, force: true });
  }
}

/** The text the agent answered with in the last turn (its message chunks, not Vigil's notices). */
export async function answers(win: Window): Promise<string[]> {
  const { records } = await win.sup.sessions.readAll(sessionId);
  return records.flatMap((r) => (r.type === 'agentUpdate' && r.update.sessionUpdate === 'agent_message_chunk' ? [String((r.update.content as { text?: string }).text)] : []));
}

