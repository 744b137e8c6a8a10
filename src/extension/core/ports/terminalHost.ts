// Client-side terminals (ACP `terminal/*`) as served by the background-task registry.

import type { Unsubscribe } from './subscription';

export interface NotifyRules {
  /** Wake the agent when the command exits (default true for background commands). */
  onExit?: boolean;
  /** Wake the agent on the first output line matching this regular expression. */
  pattern?: string;
}

export interface CreateTerminalRequest {
  sessionId: string;
  command: string;
  args?: string[];
  cwd?: string;
  env?: Array<{ name: string; value: string }>;
  outputByteLimit?: number;
  /** Vigil's `_meta.vigil.background`: the task outlives the turn and its completion wakes the agent. */
  background?: boolean;
  notify?: NotifyRules;
  /** Kill the task (its whole tree) this long after it started; survives a window reload. */
  timeoutMs?: number;
}

export interface TerminalExitStatus {
  exitCode: number | null;
  signal: string | null;
}

export interface TerminalOutput {
  output: string;
  truncated: boolean;
  exitStatus: TerminalExitStatus | null;
}

/** Room for one more running task of a session, held from before the person is asked until the task runs. */
export interface StartSlot {
  readonly sessionId: string;
  /** Gives the room back (a start refused or failed); idempotent. */
  release(): void;
}

export interface TerminalHost {
  /** Starts a command; with `slot` (from `reserveStart`) it uses the room taken earlier instead of taking its own. */
  create(request: CreateTerminalRequest, slot?: StartSlot): Promise<{ terminalId: string }>;
  /** Takes room for a start of `sessionId`, or throws `TASK_LIMIT` saying what to do; absent: the host has no caps. */
  reserveStart?(sessionId: string): StartSlot;
  output(terminalId: string): Promise<TerminalOutput>;
  waitForExit(terminalId: string, signal?: AbortSignal): Promise<TerminalExitStatus>;
  kill(terminalId: string): Promise<void>;
  release(terminalId: string): Promise<void>;
  /** Output chunks as they arrive (activity for a turn that waits on this command). */
  onOutput(terminalId: string, listener: (chunk: string) => void): Unsubscribe;
  /** The pids of the running tasks (each leads its own session and group): Vigil's, never an agent's leftovers. */
  ownedProcessIds?(): number[];
}
