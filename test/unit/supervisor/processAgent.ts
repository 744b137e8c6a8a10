// An agent handle around a real child process (own process group, one grandchild), for the wedged-agent tests.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as readline from 'node:readline';
import type { AgentHandle, AgentHandleProvider, PromptOutcome, PromptRequest } from '../../../src/extension/core/ports/agentHandle';
import { killProcessTree } from '../../../src/extension/core/common/processTree';

export type AgentMode = 'spin' | 'ignoreCancel' | 'cooperative';

// `spin` enters a synchronous infinite loop on the prompt; `ignoreCancel` never answers and ignores SIGTERM.
const SCRIPT = `
const { spawn } = require('child_process');
const mode = process.argv[1];
const gc = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
if (mode === 'ignoreCancel') process.on('SIGTERM', () => {});
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'prompt' && mode === 'spin') for (;;) {}
  if (line === 'prompt' && mode === 'cooperative') process.stdout.write('done\\n');
  if (line === 'cancel' && mode === 'cooperative') process.stdout.write('cancelled\\n');
});
process.stdout.write('ready ' + gc.pid + '\\n');
`;

export interface AgentProcess {
  child: ChildProcess;
  grandchildPid: number;
  exited: Promise<void>;
}

export class ProcessAgent implements AgentHandleProvider, AgentHandle {
  readonly spawned: AgentProcess[] = [];
  private current: AgentProcess | undefined;
  private pending: { resolve(o: PromptOutcome): void; reject(e: unknown): void } | undefined;

  constructor(public mode: AgentMode) {}

  async get(): Promise<AgentHandle> {
    const live = this.current && this.current.child.exitCode === null && this.current.child.signalCode === null;
    if (!live) this.current = await this.spawnAgent();
    return this;
  }

  prompt(_request: PromptRequest): Promise<PromptOutcome> {
    return new Promise<PromptOutcome>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.current!.child.stdin!.write('prompt\n');
    });
  }

  async cancel(): Promise<void> {
    this.current?.child.stdin?.write('cancel\n');
  }

  async kill(): Promise<void> {
    const proc = this.current;
    if (!proc?.child.pid) return;
    await killProcessTree(proc.child.pid);
    await proc.exited;
  }

  /** Test cleanup: nothing a test started may outlive it. */
  async dispose(): Promise<void> {
    for (const proc of this.spawned) {
      if (proc.child.pid && proc.child.exitCode === null && proc.child.signalCode === null) await killProcessTree(proc.child.pid);
      if (!isDead(proc.grandchildPid)) process.kill(proc.grandchildPid, 'SIGKILL');
    }
  }

  private async spawnAgent(): Promise<AgentProcess> {
    const child = spawn(process.execPath, ['-e', SCRIPT, this.mode], { detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdin.on('error', () => undefined);
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const lines = readline.createInterface({ input: child.stdout });
    const grandchildPid = await new Promise<number>((resolve, reject) => {
      child.once('exit', () => reject(new Error('agent exited before it was ready')));
      lines.on('line', (line) => {
        if (line.startsWith('ready ')) resolve(Number(line.slice(6)));
        else if (line === 'done') this.settle({ stopReason: 'end_turn' });
        else if (line === 'cancelled') this.settle({ stopReason: 'cancelled' });
      });
    });
    void exited.then(() => this.fail(new Error('agent process exited')));
    const proc = { child, grandchildPid, exited };
    this.spawned.push(proc);
    return proc;
  }

  private settle(outcome: PromptOutcome): void {
    this.pending?.resolve(outcome);
    this.pending = undefined;
  }

  private fail(error: Error): void {
    this.pending?.reject(error);
    this.pending = undefined;
  }
}

/** Dead means gone, or a zombie nobody reaped yet (it runs nothing and holds nothing). */
export function isDead(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
