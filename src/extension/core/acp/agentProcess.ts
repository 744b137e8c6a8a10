// Spawns one agent process in its own process group, wraps its stdio as an ACP stream, logs its stderr,
// and kills it as a whole tree.

import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream, type Stream } from '@agentclientprotocol/sdk';
import { VigilError } from '../common/errors';
import { killProcessTree } from '../common/processTree';
import type { Logger } from '../ports/logger';
import type { LaunchSpec } from './agentLaunch';
import { timeoutSignal, untilAborted } from '../../../shared/untilAborted';
import { StderrLog } from './stderrLog';

/** The `signal` of an AgentExit when the relay the agent ran behind ended (killed, or crashed) while a window was attached. */
export const RELAY_LOST = 'relay lost';

export interface AgentExit {
  code: number | null;
  signal: string | null;
}

/** What the host needs of a running agent, whether it is the host's child or runs behind the relay. */
export interface AgentChannel {
  readonly stream: Stream;
  readonly exited: Promise<AgentExit>;
  /** The agent process itself (not the relay): what Stop's leftover watch is rooted at. */
  readonly pid: number | undefined;
  readonly exit: AgentExit | undefined;
  readonly recentStderr: string;
  finalStderr(): Promise<string>;
  /** Kills the agent's whole tree (with its relay, if any); resolves once it is gone. */
  kill(): Promise<AgentExit>;
}
/** A stderr "line" without a newline is logged in pieces once it grows past this. */
const stderrPieceChars = 64 * 1024;
/** Wait this long at most for the last stderr bytes after an exit (a child of the agent may hold the pipe open). */
const stderrDrainMs = 1_000;

export class AgentProcess implements AgentChannel {
  readonly stream: Stream;
  readonly exited: Promise<AgentExit>;
  /** Settles when the agent's stderr reached its end (all of it is in the tail and the log). */
  private readonly stderrEnded: Promise<void>;
  private readonly child: ChildProcess;
  private exitInfo: AgentExit | undefined;
  private readonly stderr: StderrLog;

  private constructor(child: ChildProcess, private readonly spec: LaunchSpec, private readonly log: Logger) {
    this.child = child;
    this.stderr = new StderrLog(spec, log);
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
      // A "line" that never ends is logged in pieces rather than buffered without bound.
      // The part that may still be the start of a secret is held back, so no key is split across two pieces.
      if (partial.length > stderrPieceChars) {
        const hold = this.stderr.redactor.holdStart(partial) || partial.length;
        this.logStderr(partial.slice(0, hold));
        partial = partial.slice(hold);
      }
    });
    this.stderrEnded = child.stderr
      ? new Promise<void>((resolve) => {
          const done = () => {
            if (partial) this.logStderr(partial);
            partial = '';
            resolve();
          };
          child.stderr!.once('end', done);
          child.stderr!.once('close', done);
          child.stderr!.once('error', done);
        })
      : Promise.resolve();
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
        const command = spec.command.length > 300 ? `${spec.command.slice(0, 300)}…` : spec.command;
        const message =
          error.code === 'ENOENT'
            ? `The agent command "${command}" was not found. Install it, or fix the command in the ${spec.setting} setting.`
            : error.code === 'EACCES'
              ? `The agent command "${command}" cannot be run (not executable, or permission denied). Fix its permissions, or the command in the ${spec.setting} setting.`
              : `Cannot start ${spec.label}: ${error.message} (check the ${spec.setting} setting).`;
        reject(new VigilError(error.code === 'ENOENT' || error.code === 'EACCES' ? 'AGENT_NOT_FOUND' : 'AGENT_FAILED', message, { cause: error }));
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
    return this.stderr.tail;
  }

  /** The stderr tail once the pipe has drained after an exit (bounded: a grandchild may hold it open). */
  async finalStderr(): Promise<string> {
    await untilAborted(this.stderrEnded, timeoutSignal(stderrDrainMs), () => undefined);
    return this.recentStderr;
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
    this.stderr.line(line);
  }
}
