// One agent handle's part of "Stop means stop": a process snapshot at each prompt, samples while it runs,
// and after a stopped turn the SIGTERM/SIGKILL of what the agent started in it and left running.

import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import type { McpServer } from '@agentclientprotocol/sdk';
import { TASK_SESSION_ENV } from '../../../shared/taskBridgeProtocol';
import { errorMessage } from '../common/errors';
import { systemClock, type Clock } from '../ports/clock';
import type { LeftoverReport } from '../ports/agentHandle';
import type { Logger } from '../ports/logger';
import { describeKilled, describeStopped, stopLeftovers, type ReaperDeps } from './strayReaper';
import { TurnProcessWatch, type AgentMarker, type KeptProgram, type TurnProcessReads } from './turnProcesses';

/** Set on each agent process (no KEY/SECRET/TOKEN in its name: agents pass such variables on less often). */
export const AGENT_MARKER_ENV = 'VIGIL_AGENT_RUN';

/** How often the agent's tree is sampled during a turn; a tool call event samples at once as well. */
const SAMPLE_INTERVAL_MS = 1_000;

export interface TurnLeftoversDeps {
  log: Logger;
  /** Processes owned by Vigil (the task registry's): never stopped, with their sessions, groups and trees. */
  spared(): Iterable<number>;
  /**
   * Programs Vigil gave the agent (its MCP task server): never stopped, also when the agent started them
   * lazily during the turn (see {@link vigilServerPrograms}).
   */
  kept?(): KeptProgram[];
  clock?: Clock;
  reads?: TurnProcessReads;
  reaper?: Partial<ReaperDeps>;
  sampleIntervalMs?: number;
}

/**
 * Vigil's own task server among the MCP servers the agent was given for `sessionId`: the program (executable
 * resolved, exact arguments) with the session's entry in its environment. The entry alone would spare any
 * child of the agent that sets it.
 */
export function vigilServerPrograms(servers: readonly McpServer[], sessionId: string): KeptProgram[] {
  const out: KeptProgram[] = [];
  for (const server of servers) {
    if (!('command' in server) || !server.env.some((e) => e.name === TASK_SESSION_ENV && e.value === sessionId)) continue;
    let command = server.command;
    try {
      command = realpathSync(command);
    } catch {
      // Not a path this host resolves: it can match no process's executable, so nothing is spared.
    }
    out.push({ command, args: [...server.args], env: { name: TASK_SESSION_ENV, value: sessionId } });
  }
  return out;
}

export class TurnLeftovers {
  private turn: { turnId: string; watch: TurnProcessWatch } | undefined;

  constructor(private readonly deps: TurnLeftoversDeps) {}

  /** A fresh marker for one agent process's environment. */
  static marker(): AgentMarker {
    return { name: AGENT_MARKER_ENV, value: randomBytes(8).toString('hex') };
  }

  /** Snapshots the host's processes before the prompt is sent. Never throws: without it nothing is stopped. */
  async begin(turnId: string, agentPid: number | undefined, marker: AgentMarker | undefined, runningForMs?: number): Promise<void> {
    this.turn?.watch.stop();
    this.turn = undefined;
    if (agentPid === undefined || process.platform === 'win32') return;
    try {
      const watch = await TurnProcessWatch.begin({ agentPid, marker, reads: this.deps.reads, ...(runningForMs !== undefined ? { runningForMs } : {}) });
      // Periodic samples only where they are cheap (/proc); elsewhere each would spawn `ps`: tool call events only.
      if (process.platform === 'linux') watch.sampleEvery(this.deps.sampleIntervalMs ?? SAMPLE_INTERVAL_MS);
      this.turn = { turnId, watch };
    } catch (error) {
      this.deps.log.warn(`could not read the process table at turn start; processes left by a stopped turn will not be stopped: ${errorMessage(error)}`);
    }
  }

  /** A tool call started or changed: look at the agent's tree now, before a short-lived parent is gone. */
  observe(update: Record<string, unknown> | undefined): void {
    const kind = update?.['sessionUpdate'];
    if (kind === 'tool_call' || kind === 'tool_call_update') void this.turn?.watch.sample();
  }

  /** The prompt returned (or was abandoned): no more samples. */
  endPrompt(): void {
    this.turn?.watch.stop();
  }

  /** Stops what `turnId` started and left running; undefined when there was nothing (or no snapshot of it). */
  async stop(turnId: string, graceMs: number): Promise<LeftoverReport | undefined> {
    const turn = this.turn;
    if (!turn || turn.turnId !== turnId) return undefined;
    this.turn = undefined;
    turn.watch.stop();
    const procs = await turn.watch.leftovers(this.deps.spared(), this.deps.kept?.() ?? []);
    if (procs.length === 0) return undefined;
    const outcome = await stopLeftovers(procs, { clock: this.deps.clock ?? systemClock, graceMs, ...this.deps.reaper });
    if (outcome.stopped.length === 0) return undefined;
    const summary = describeStopped(outcome.stopped);
    this.deps.log.info(`${summary} (pids ${outcome.stopped.map((l) => l.info.pid).join(', ')}; SIGTERM, SIGKILL after ${graceMs / 1000} s)`);
    const killed = outcome.killed.then(
      (left) => (left.length > 0 ? describeKilled(left, graceMs) : undefined),
      (error: unknown) => `Stopping them failed: ${errorMessage(error)}`,
    );
    return { summary, killed };
  }

  dispose(): void {
    this.turn?.watch.stop();
    this.turn = undefined;
  }
}
