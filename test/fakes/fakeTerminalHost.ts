// A small TerminalHost for ACP tests: real child processes in their own group, output in memory,
// and a completion callback for background commands (the registry's job in the product).

import { spawn, type ChildProcess } from 'node:child_process';
import type { Unsubscribe } from '../../src/extension/core/common/events';
import type { CreateTerminalRequest, TerminalExitStatus, TerminalHost, TerminalOutput } from '../../src/extension/core/ports/terminalHost';

interface Term {
  request: CreateTerminalRequest;
  child: ChildProcess;
  output: string;
  exit: TerminalExitStatus | null;
  exited: Promise<TerminalExitStatus>;
  listeners: Set<(chunk: string) => void>;
}

export interface BackgroundCompletion {
  terminalId: string;
  sessionId: string;
  command: string;
  exitCode: number | null;
  output: string;
}

export class FakeTerminalHost implements TerminalHost {
  readonly created: CreateTerminalRequest[] = [];
  readonly released: string[] = [];
  readonly killed: string[] = [];
  private readonly terms = new Map<string, Term>();
  private readonly completionListeners = new Set<(c: BackgroundCompletion) => void>();
  private next = 1;

  onBackgroundCompletion(listener: (c: BackgroundCompletion) => void): Unsubscribe {
    this.completionListeners.add(listener);
    return () => this.completionListeners.delete(listener);
  }

  async create(request: CreateTerminalRequest): Promise<{ terminalId: string }> {
    this.created.push(request);
    const terminalId = `t-${this.next++}`;
    // Like the registry: a command without args is a shell command line.
    const shell = !request.args || request.args.length === 0;
    const child = spawn(request.command, request.args ?? [], { cwd: request.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], shell });
    const term: Term = { request, child, output: '', exit: null, exited: undefined as never, listeners: new Set() };
    term.exited = new Promise((resolve) => {
      child.once('error', (error) => {
        term.output += `${error.message}\n`;
        term.exit = { exitCode: 127, signal: null };
        resolve(term.exit);
      });
      child.once('close', (code, signal) => {
        term.exit ??= { exitCode: code, signal };
        resolve(term.exit);
        if (request.background) {
          const completion = { terminalId, sessionId: request.sessionId, command: [request.command, ...(request.args ?? [])].join(' '), exitCode: code, output: term.output };
          for (const l of this.completionListeners) l(completion);
        }
      });
    });
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      term.output += text;
      for (const l of term.listeners) l(text);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    this.terms.set(terminalId, term);
    return { terminalId };
  }

  async output(terminalId: string): Promise<TerminalOutput> {
    const t = this.get(terminalId);
    return { output: t.output, truncated: false, exitStatus: t.exit };
  }

  async waitForExit(terminalId: string): Promise<TerminalExitStatus> {
    return this.get(terminalId).exited;
  }

  async kill(terminalId: string): Promise<void> {
    const t = this.get(terminalId);
    this.killed.push(terminalId);
    if (t.exit === null && t.child.pid !== undefined) {
      try {
        process.kill(-t.child.pid, 'SIGKILL');
      } catch (error) {
        // Already gone between the check and the kill: the exit handler records it.
        void error;
      }
    }
  }

  async release(terminalId: string): Promise<void> {
    this.released.push(terminalId);
    const t = this.terms.get(terminalId);
    if (t && !t.request.background) await this.kill(terminalId);
  }

  onOutput(terminalId: string, listener: (chunk: string) => void): Unsubscribe {
    const t = this.get(terminalId);
    t.listeners.add(listener);
    return () => t.listeners.delete(listener);
  }

  ownedProcessIds(): number[] {
    return [...this.terms.values()].filter((t) => t.exit === null && t.child.pid !== undefined).map((t) => t.child.pid as number);
  }

  async killAll(): Promise<void> {
    for (const id of this.terms.keys()) await this.kill(id);
  }

  private get(id: string): Term {
    const t = this.terms.get(id);
    if (!t) throw new Error(`unknown terminal ${id}`);
    return t;
  }
}
