// Spawns one agent process in its own process group, wraps its stdio as an ACP stream, logs its stderr,
// and kills it as a whole tree.

import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream, type Stream } from '@agentclientprotocol/sdk';
import { VigilError } from '../common/errors';
import { killProcessTree } from '../common/processTree';
import { Redactor } from '../common/redactor';
import type { Logger } from '../ports/logger';
import type { LaunchSpec } from './agentLaunch';

export interface AgentExit {
  code: number | null;
  signal: string | null;
}

const stderrTailLines = 20;

export class AgentProcess {
  readonly stream: Stream;
  readonly exited: Promise<AgentExit>;
  private readonly child: ChildProcess;
  private readonly stderrTail: string[] = [];
  private exitInfo: AgentExit | undefined;
  private readonly redactor: Redactor;

  private constructor(child: ChildProcess, private readonly spec: LaunchSpec, private readonly log: Logger) {
    this.child = child;
    this.redactor = spec.redactor ?? new Redactor();
    this.redactor.add(spec.secretEnv.map((name) => spec.env[name]));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
    child.stderr?.setEncoding('utf8');
    let partial = '';
    child.stderr?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) this.logStderr(line);
    });
    // Writes to a dead agent's stdin fail with EPIPE; the exit handler reports the death, so only log it.
    child.stdin?.on('error', (error) => this.log.debug(`${spec.label}: stdin closed: ${error.message}`));
    this.stream = ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
    );
  }

  /** Resolves once the process has started; rejects with AGENT_NOT_FOUND when the command does not exist. */
  static start(spec: LaunchSpec, log: Logger, cwd: string): Promise<AgentProcess> {
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(spec.command, spec.args, { cwd, env: spec.env, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32', windowsHide: true });
      } catch (error) {
        reject(new VigilError('AGENT_NOT_FOUND', `Cannot start ${spec.label}: ${(error as Error).message} (check ${spec.setting}).`, { cause: error }));
        return;
      }
      child.once('error', (error: NodeJS.ErrnoException) => {
        const missing = error.code === 'ENOENT';
        reject(
          new VigilError(
            missing ? 'AGENT_NOT_FOUND' : 'AGENT_FAILED',
            missing
              ? `The agent command "${spec.command}" was not found. Install it or fix ${spec.setting}.`
              : `Cannot start ${spec.label}: ${error.message} (check ${spec.setting}).`,
            { cause: error },
          ),
        );
      });
      child.once('spawn', () => {
        log.info(`${spec.label}: started (pid ${child.pid})`);
        resolve(new AgentProcess(child, spec, log));
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get exit(): AgentExit | undefined {
    return this.exitInfo;
  }

  /** The last lines the agent wrote to stderr: the best explanation of a crash. */
  get recentStderr(): string {
    return this.stderrTail.join('\n');
  }

  /** Kills the process group and every descendant; resolves when the agent itself has exited. */
  async kill(): Promise<AgentExit> {
    const pid = this.child.pid;
    if (pid !== undefined && this.exitInfo === undefined) {
      try {
        await killProcessTree(pid);
      } catch (error) {
        this.log.error(`${this.spec.label}: killing process tree ${pid} failed: ${(error as Error).message}`);
      }
    }
    return this.exited;
  }

  private logStderr(line: string): void {
    if (!line.trim()) return;
    const safe = this.redactor.redact(line);
    this.stderrTail.push(safe);
    if (this.stderrTail.length > stderrTailLines) this.stderrTail.shift();
    this.log.info(`${this.spec.label} stderr: ${safe}`);
  }
}
