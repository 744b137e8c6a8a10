// Two windows on one storage root: two real TurnSupervisors, each with its own fake agent and its
// cross-window side, sharing one fake clock (one machine). Mailbox changes are delivered by explicit kicks.

import type { PermissionAnswer, PermissionPrompter, PermissionQuestion } from '../../../src/extension/core/acp/hostPorts';
import { CrossWindow } from '../../../src/extension/core/crosswindow/crossWindow';
import type { StartTurnResult, TurnEnded } from '../../../src/extension/core/ports/turns';
import { TurnSupervisor } from '../../../src/extension/core/supervisor/turnSupervisor';
import { FakeClock } from '../../fakes/fakeClock';
import { FakeAgent } from '../supervisor/fakeAgent';
import { recordingLogger, SETTINGS, tempRoot, waitFor, type LogRecord } from '../supervisor/harness';

/** A window's own approval prompt, answered by the test (or withdrawn by the cross-window side). */
export class ScriptedPrompt implements PermissionPrompter {
  open: Array<{ question: PermissionQuestion; signal: AbortSignal; answer(a: PermissionAnswer): void }> = [];

  ask(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer> {
    return new Promise((resolve) => {
      const entry = { question, signal, answer: resolve };
      this.open.push(entry);
      signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
    });
  }
}

export interface Window {
  id: string;
  sup: TurnSupervisor;
  agent: FakeAgent;
  cw: CrossWindow;
  local: ScriptedPrompt;
  prompter: PermissionPrompter;
  logs: LogRecord[];
  showing: string | undefined;
  killed: number[];
}

export const SESSION = 'shared-session';
export const TTL_MS = 30_000;

export class TwoWindows {
  readonly clock = new FakeClock();
  root!: string;
  a!: Window;
  b!: Window;
  approvalTimeoutMs = 600_000;
  /** What every window reads as a process's start time (processStartTime), by pid; unknown when absent. */
  readonly starts = new Map<number, string>();

  static async create(): Promise<TwoWindows> {
    const t = new TwoWindows();
    t.root = await tempRoot('vigil-cw-');
    t.a = await t.window('window-a');
    t.b = await t.window('window-b');
    await t.a.sup.sessions.create('shared', SESSION);
    return t;
  }

  async window(id: string, agentPid?: number): Promise<Window> {
    const logs: LogRecord[] = [];
    const logger = recordingLogger(logs);
    const agent = new FakeAgent();
    const sup = new TurnSupervisor({
      storageRoot: this.root, clock: this.clock, logger, agents: agent, settings: () => SETTINGS,
      windowId: id, leaseTtlMs: TTL_MS, activityThrottleMs: 0,
    });
    await sup.sessions.init();
    const w: Window = { id, sup, agent, logs, showing: undefined, killed: [], local: new ScriptedPrompt(), prompter: undefined as never, cw: undefined as never };
    w.cw = new CrossWindow({
      storageRoot: this.root, windowId: id, clock: this.clock, logger, supervisor: sup,
      agentPid: () => agentPid, approvalTimeoutMs: () => this.approvalTimeoutMs, showing: () => w.showing,
      // Far beyond any test: changes arrive by kicks, never by elapsed time.
      pollMs: 3_600_000, presenceIntervalMs: 3_600_000,
      killTree: async (pid) => void w.killed.push(pid),
      processStart: (pid) => this.starts.get(pid),
    });
    await w.cw.start();
    w.prompter = w.cw.prompter(w.local);
    return w;
  }

  async start(w: Window): Promise<{ turnId: string; ended: Promise<TurnEnded> }> {
    const result: StartTurnResult = await w.sup.startTurn(SESSION, 'do it', { source: 'user' });
    if (result.kind !== 'started') throw new Error(`turn did not start: ${JSON.stringify(result)}`);
    await waitFor(() => w.agent.current !== undefined, 'the agent to receive the prompt');
    return { turnId: result.turnId, ended: result.ended };
  }

  /** Delivers mailbox changes to both windows until `done` settles. */
  async pumpUntil<T>(done: Promise<T>, what: string): Promise<T> {
    let settled = false;
    let value!: T;
    let failure: unknown;
    done.then((v) => ((settled = true), (value = v)), (e: unknown) => ((settled = true), (failure = e)));
    const deadline = Date.now() + 15_000;
    while (!settled) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await this.a.cw.kick();
      await this.b.cw.kick();
    }
    if (failure) throw failure;
    return value;
  }

  dispose(): void {
    this.a.cw.dispose();
    this.b.cw.dispose();
    this.a.sup.dispose();
    this.b.sup.dispose();
  }
}
