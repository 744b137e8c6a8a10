// Hosts agent processes with the real ACP client under the real TurnSupervisor (system clock, temp
// storage), with a FakeTerminalHost, a scripted permission prompter and a recording logger.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AcpAgentHandleProvider } from '../../../src/extension/core/acp/acpHandleProvider';
import { customLaunch, type LaunchSpec } from '../../../src/extension/core/acp/agentLaunch';
import type { McpServerSource } from '../../../src/extension/core/acp/mcpServerSource';
import type { ElicitationPrompter } from '../../../src/extension/core/acp/elicitationHost';
import type { ApprovalMode, LanguageModelBridge, PermissionAnswer, PermissionQuestion } from '../../../src/extension/core/acp/hostPorts';
import { systemClock } from '../../../src/extension/core/ports/clock';
import type { AgentEvent, AgentHandle } from '../../../src/extension/core/ports/agentHandle';
import type { Logger } from '../../../src/extension/core/ports/logger';
import type { TerminalHost } from '../../../src/extension/core/ports/terminalHost';
import type { TurnEnded } from '../../../src/extension/core/ports/turns';
import type { SupervisorEvent } from '../../../src/extension/core/supervisor/supervisorEvents';
import { TurnSupervisor } from '../../../src/extension/core/supervisor/turnSupervisor';
import { FakeTerminalHost } from '../../fakes/fakeTerminalHost';
import type { EditJournal } from '../../../src/extension/core/acp/editJournal';

export const fakeAgentScript = path.resolve(__dirname, '../../fixtures/agents/fakeAcpAgent.js');

export interface LogLine {
  level: string;
  message: string;
}

export class AcpHarness {
  readonly terminals = new FakeTerminalHost();
  readonly events: SupervisorEvent[] = [];
  readonly logs: LogLine[] = [];
  readonly questions: PermissionQuestion[] = [];
  /** Every AgentEvent the client produced, as the supervisor received it. */
  readonly agentEvents: AgentEvent[] = [];
  trusted = true;
  mode: ApprovalMode = 'ask';
  /** `vigil.approvals.byKind`. */
  byKind: Partial<Record<string, ApprovalMode>> = {};
  /** The person's answers in order; when empty, `answer` applies. */
  answers: PermissionAnswer[] = [];
  /** What the scripted person answers; `wait` leaves the prompt open until it is cancelled. */
  answer: PermissionAnswer | 'wait' = 'allowOnce';
  /** `vigil.edits.review`. */
  review: 'auto' | 'ask' = 'auto';
  /** Runs before the scripted person answers a question (e.g. to change a file while its edit waits for review). */
  beforeAnswer: ((question: PermissionQuestion) => Promise<void>) | undefined;
  sup!: TurnSupervisor;
  /** Read at every turn start, so a test may loosen the bound for the turns after a stall. */
  settings = { timeoutMs: 10_000, graceMs: 1_000 };
  agents!: AcpAgentHandleProvider;
  workspace = '';
  private root = '';
  private waiters: Array<() => void> = [];

  static async create(o: { lm?: LanguageModelBridge; terminalHost?: (storageRoot: string) => Promise<TerminalHost>; launch?: () => LaunchSpec; settings?: { timeoutMs?: number; graceMs?: number }; initializeTimeoutMs?: number; mcpServers?: McpServerSource[]; elicitations?: ElicitationPrompter; edits?: EditJournal } = {}): Promise<AcpHarness> {
    const h = new AcpHarness();
    h.settings = { timeoutMs: o.settings?.timeoutMs ?? 10_000, graceMs: o.settings?.graceMs ?? 1_000 };
    h.root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-acp-'));
    h.workspace = path.join(h.root, 'ws');
    await fs.mkdir(h.workspace);
    await fs.writeFile(path.join(h.workspace, 'README.md'), '# Demo project\nHello from the workspace.\n');
    const log = h.logger();
    h.agents = new AcpAgentHandleProvider({
      log,
      cwdFor: () => h.workspace,
      launchFor: async () => (o.launch ?? (() => customLaunch({ command: process.execPath, args: [fakeAgentScript] })))(),
      policy: { isTrusted: () => h.trusted, mode: (kind) => (kind !== undefined ? h.byKind[kind] : undefined) ?? h.mode, editReview: () => h.review },
      edits: o.edits,
      prompter: {
        ask: async (question, signal) => {
          h.questions.push(question);
          h.notify();
          const next = h.answers.shift() ?? h.answer;
          await h.beforeAnswer?.(question);
          if (next !== 'wait') return next;
          return new Promise((resolve) => signal.addEventListener('abort', () => resolve('cancelled'), { once: true }));
        },
      },
      terminals: o.terminalHost ? await o.terminalHost(path.join(h.root, 'storage')) : h.terminals,
      lm: o.lm,
      initializeTimeoutMs: o.initializeTimeoutMs ?? 15_000,
      mcpServers: o.mcpServers,
      elicitations: o.elicitations,
    });
    h.sup = new TurnSupervisor({
      storageRoot: path.join(h.root, 'storage'),
      clock: systemClock,
      logger: log,
      agents: { get: async (sessionId) => h.tap(await h.agents.get(sessionId)) },
      settings: () => ({ enabled: true, toolTimeoutMs: 60_000, ...h.settings }),
      windowId: 'window-test',
      leaseTtlMs: 30_000,
      activityThrottleMs: 0,
    });
    h.sup.subscribe((e) => {
      h.events.push(e);
      h.notify();
    });
    await h.sup.sessions.init();
    await h.sup.sessions.create('acp test', 'session-1');
    return h;
  }

  /** Runs one user turn to its end. */
  async turn(text: string): Promise<TurnEnded> {
    const r = await this.sup.startTurn('session-1', text, { source: 'user' });
    if (r.kind !== 'started') throw new Error(`turn not started: ${JSON.stringify(r)}`);
    return r.ended;
  }

  activity(): Array<Extract<SupervisorEvent, { type: 'activity' }>> {
    return this.events.filter((e): e is Extract<SupervisorEvent, { type: 'activity' }> => e.type === 'activity');
  }

  async waitFor(test: () => boolean, what: string, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  /** The agent's message text of all turns so far. */
  agentText(): string {
    return this.agentEvents
      .map((e) => (e.update?.sessionUpdate === 'agent_message_chunk' ? ((e.update.content as { text?: string }).text ?? '') : ''))
      .join('');
  }

  private tap(handle: AgentHandle): AgentHandle {
    return {
      prompt: (request) => handle.prompt({ ...request, onEvent: (e) => (this.agentEvents.push(e), request.onEvent(e)) }),
      cancel: (id) => handle.cancel(id),
      kill: (reason) => handle.kill(reason),
      onExit: handle.onExit?.bind(handle),
      stopLeftovers: handle.stopLeftovers?.bind(handle),
    };
  }

  logged(part: string): boolean {
    return this.logs.some((l) => l.message.includes(part));
  }

  async dispose(): Promise<void> {
    this.sup.dispose();
    const handle = await this.agents.get('session-1');
    await handle.kill('test over');
    this.agents.dispose();
    await this.terminals.killAll();
    await fs.rm(this.root, { recursive: true, force: true });
  }

  private notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private logger(): Logger {
    const at = (level: string) => (m: string | Error) => {
      this.logs.push({ level, message: m instanceof Error ? m.message : m });
    };
    return { trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  }
}

export function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
