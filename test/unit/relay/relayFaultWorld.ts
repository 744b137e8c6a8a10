// What the fault tests of a turn that outlives its window share: a window in its own process (relayWindow.ts)
// read line by line, the next window's services in this process with their approvals in reach, and what the
// fake agent was given (FAKE_AGENT_RECORD).

import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { ApprovalBroker } from '../../../src/extension/presentation/approvalBroker';
import type { ApprovalView } from '../../../src/shared/sessionView';
import type { SupervisorEvent } from '../../../src/extension/core/supervisor/supervisorEvents';
import { VigilServices, type ServiceOptions } from '../../../src/extension/services';
import { windowOptions } from './relayWindow';

const windowScript = path.resolve(__dirname, 'relayWindow.js');

/** A window in a process of its own, read line by line (see relayWindow.ts for what it says). */
export class WindowProcess {
  readonly lines: string[] = [];
  private waiters: (() => void)[] = [];
  exited = false;

  constructor(readonly child: ChildProcess) {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      this.lines.push(line);
      for (const w of this.waiters.splice(0)) w();
    });
    child.once('exit', () => {
      this.exited = true;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static open(storageRoot: string, workspace: string, prompt: string, env: NodeJS.ProcessEnv = {}): WindowProcess {
    return new WindowProcess(spawn(process.execPath, [windowScript, storageRoot, workspace, prompt], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } }));
  }

  /** The first line (from `from` on) that `pattern` matches. */
  async next(pattern: RegExp, from = 0): Promise<RegExpExecArray> {
    for (;;) {
      for (const line of this.lines.slice(from)) {
        const m = pattern.exec(line);
        if (m) return m;
      }
      if (this.exited) throw new Error(`the window exited before saying ${String(pattern)}; it said: ${this.lines.join(' | ')}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  send(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  gone(): Promise<void> {
    return this.exited ? Promise.resolve() : new Promise((resolve) => this.child.once('exit', () => resolve()));
  }
}

/** The next window: its services, the approvals it shows, the supervisor events it emitted. */
export interface NextWindow {
  services: VigilServices;
  broker: ApprovalBroker;
  events: SupervisorEvent[];
  asked: ApprovalView[];
  logged: string[];
  /** The next approval shown (from the n-th on). */
  question(n?: number): Promise<ApprovalView>;
  ended(sessionId: string): Promise<Extract<SupervisorEvent, { type: 'turnEnded' }>>;
}

export async function openNextWindow(storageRoot: string, workspace: string, windowId: string, extra: Partial<ServiceOptions> = {}): Promise<NextWindow> {
  const options = windowOptions(storageRoot, workspace, windowId);
  const broker = options.prompter;
  const asked: ApprovalView[] = [];
  const events: SupervisorEvent[] = [];
  const logged: string[] = [];
  const waiters: (() => void)[] = [];
  const poke = () => {
    for (const w of waiters.splice(0)) w();
  };
  const poked = () => new Promise<void>((resolve) => waiters.push(resolve));
  // Subscribed before the services start: the take-back happens during their start.
  broker.subscribe((change) => {
    if (change.type === 'requested') asked.push(change.approval);
    poke();
  });
  const say = (line: unknown) => logged.push(String(line));
  const logger = { ...options.logger, info: say, warn: say, error: say };
  const services = await VigilServices.start({ ...options, logger, ...extra });
  services.supervisor.subscribe((e) => {
    events.push(e);
    poke();
  });
  return {
    services,
    broker,
    events,
    asked,
    logged,
    async question(n = 0) {
      for (;;) {
        if (asked.length > n) return asked[n];
        await poked();
      }
    },
    async ended(sessionId) {
      for (;;) {
        const found = events.find((e) => e.type === 'turnEnded' && e.ended.sessionId === sessionId);
        if (found && found.type === 'turnEnded') return found;
        await poked();
      }
    },
  };
}

/** What the fake agent was given, in order (see FAKE_AGENT_RECORD in fakeAcpAgent.ts). */
export async function agentRecord(file: string): Promise<Array<{ pid: number; prompt?: string; answer?: unknown; result?: { outcome?: { optionId?: string } } }>> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l) as { pid: number });
}

/** The text of every agent_message_chunk in the transcript, joined. */
export function chunksOf(records: readonly { type: string }[]): string {
  return records
    .filter((r) => r.type === 'agentUpdate')
    .map((r) => (r as unknown as { update: { sessionUpdate?: string; content?: { text?: string } } }).update)
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => u.content?.text ?? '')
    .join('');
}
