// Serves Vigil's background-task tools for one session from the task registry: validates the input again
// (the caller is an agent's program), confines cwd to the workspace boundary, asks the approval policy as
// terminal/create does, and never shows one session another session's tasks.

import { Buffer } from 'node:buffer';
import type { ClientOp } from '../acp/clientGrants';
import type { ClientOpVerdict } from '../acp/permissionGate';
import { placeDirectory } from '../acp/workspaceDir';
import { errorMessage, isVigilError } from '../common/errors';
import type { Logger } from '../ports/logger';
import type { CreateTerminalRequest, StartSlot } from '../ports/terminalHost';
import { compilePattern } from '../tasks/lineMatcher';
import { taskEndSentence } from '../tasks/taskEnd';
import type { TaskKillOutcome } from '../tasks/taskKill';
import type { TaskSnapshot } from '../tasks/taskTypes';
import { isTaskToolName, taskToolLimits, taskTools, type OutputParams, type StartParams, type TaskToolResult } from '../../../shared/taskTools';

/** The registry as these tools use it (TaskRegistry implements it). */
export interface TaskToolRegistry {
  /** Room for one start, taken before the person is asked; throws `TASK_LIMIT` when a cap is reached. */
  reserveStart(sessionId: string): StartSlot;
  create(request: CreateTerminalRequest, slot?: StartSlot): Promise<{ terminalId: string }>;
  get(taskId: string): Promise<TaskSnapshot | undefined>;
  list(filter: { sessionId?: string }): TaskSnapshot[];
  killTask(taskId: string): Promise<TaskKillOutcome | undefined>;
}

export interface TaskToolDeps {
  /** Current registry; a getter, so a restarted registry serves connections opened before it. */
  registry(): TaskToolRegistry;
  /** The session's workspace folder: default cwd and the boundary a cwd is checked against. */
  workspaceRoot(sessionId: string): Promise<string>;
  /** The session's approval policy for a command, exactly as for a `terminal/create` background command. */
  authorize(sessionId: string, op: ClientOp, signal: AbortSignal): Promise<ClientOpVerdict>;
  /** A task this service started (for the turn's activity). */
  started?(sessionId: string, task: { id: string; command: string }): void;
  logger: Logger;
}

export class TaskToolService {
  constructor(private readonly deps: TaskToolDeps) {}

  /** One tool call of `sessionId`; never throws: failures are results the model can read. */
  async call(sessionId: string, tool: string, args: unknown, signal: AbortSignal): Promise<TaskToolResult> {
    if (!isTaskToolName(tool)) return refusal(`There is no tool "${String(tool).slice(0, 100)}". The tools are ${Object.keys(taskTools).join(', ')}.`);
    const parsed = taskTools[tool].schema.safeParse(args ?? {});
    if (!parsed.success) return refusal(`Invalid input for ${tool}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}.`);
    try {
      switch (tool) {
        case 'start_background_command':
          return await this.start(sessionId, parsed.data as StartParams, signal);
        case 'background_status':
          return describeStatus(await this.owned(sessionId, (parsed.data as { id: string }).id));
        case 'background_output':
          return await this.output(sessionId, parsed.data as OutputParams);
        case 'kill_background':
          return await this.kill(sessionId, (parsed.data as { id: string }).id);
        case 'list_background':
          return this.list(sessionId);
      }
    } catch (error) {
      if (error instanceof ToolRefusal) return refusal(error.message);
      if (isVigilError(error, 'TASK_LIMIT')) return refusal(`${error.message} list_background lists this session's commands; kill_background stops one.`);
      this.deps.logger.warn(`task tool ${tool} failed for session ${sessionId}: ${errorMessage(error)}`);
      return refusal(`${tool} failed: ${errorMessage(error)}`);
    }
  }

  private async start(sessionId: string, p: StartParams, signal: AbortSignal): Promise<TaskToolResult> {
    if (p.command.includes('\0')) throw new ToolRefusal('The command contains a NUL character.');
    if (p.notify_pattern !== undefined) compilable(p.notify_pattern);
    const root = await this.deps.workspaceRoot(sessionId);
    const place = await placeDirectory(root, p.cwd);
    if (place.problem === 'missing') throw new ToolRefusal(`The folder ${place.path} does not exist. Create it first, or leave out cwd to run in the workspace folder.`);
    if (place.problem === 'notFolder') throw new ToolRefusal(`${place.path} is not a folder; cwd must name a folder.`);
    const op: ClientOp = { kind: 'execute', commandLine: p.command, cwd: place.path, cwdInside: place.inside, background: true, envNames: [] };
    // Room is taken before the person is asked: a start over the cap is refused without a question, and
    // starts waiting for an answer count, so a burst of calls cannot all pass.
    const slot = this.deps.registry().reserveStart(sessionId);
    let terminalId: string;
    try {
      const verdict = await this.deps.authorize(sessionId, op, signal);
      if (!verdict.allowed) throw new ToolRefusal(verdict.reason);
      // The checked real directory, not the agent's spelling: a symlink cannot be re-pointed in between.
      ({ terminalId } = await this.deps.registry().create(
        {
          sessionId,
          command: p.command,
          cwd: place.path,
          background: true,
          notify: { onExit: p.notify_on_exit ?? true, ...(p.notify_pattern !== undefined ? { pattern: p.notify_pattern } : {}) },
          ...(p.timeout_seconds !== undefined ? { timeoutMs: p.timeout_seconds * 1000 } : {}),
        },
        slot,
      ));
    } finally {
      slot.release();
    }
    this.deps.started?.(sessionId, { id: terminalId, command: p.command });
    return { text: startedText(terminalId, place.path, p) };
  }

  private async output(sessionId: string, p: OutputParams): Promise<TaskToolResult> {
    const task = await this.owned(sessionId, p.id);
    const limit = p.tail_bytes ?? taskToolLimits.defaultTailBytes;
    const bytes = Buffer.from(task.output, 'utf8');
    // Cut at a byte budget, then drop a split character at the start rather than show a replacement mark.
    const tail = bytes.length > limit ? bytes.subarray(bytes.length - limit).toString('utf8').replace(/^\uFFFD+/, '') : task.output;
    const cut = bytes.length > limit || task.truncated;
    return { text: `${statusLine(task)}\n${cut ? `Output (last ${Buffer.byteLength(tail)} bytes):` : 'Output:'}\n${tail.length > 0 ? tail : '(none yet)'}` };
  }

  private async kill(sessionId: string, id: string): Promise<TaskToolResult> {
    const task = await this.owned(sessionId, id);
    if (task.status !== 'running') return { text: `Task ${id} is not running (${statusLine(task)}); nothing to kill.` };
    const outcome = await this.deps.registry().killTask(id);
    const after = await this.deps.registry().get(id);
    return { text: `${killSentence(id, outcome)} ${after ? statusLine(after) : ''}`.trim() };
  }

  private list(sessionId: string): TaskToolResult {
    const tasks = this.deps.registry().list({ sessionId }).filter((t) => t.background);
    if (tasks.length === 0) return { text: 'This session has no background commands.' };
    return { text: tasks.map((t) => `${t.id}  ${t.status}${t.exitCode !== null ? ` (exit ${t.exitCode})` : ''}  ${t.command.slice(0, 200)}`).join('\n') };
  }

  /** A task of this session; another session's task is reported exactly like a missing one. */
  private async owned(sessionId: string, id: string): Promise<TaskSnapshot> {
    const task = await this.deps.registry().get(id);
    // Only background tasks are the tools' (what list_background shows); a foreground terminal is the turn's.
    if (!task || task.sessionId !== sessionId || !task.background) throw new ToolRefusal(`There is no task ${id} in this session. list_background shows this session's tasks.`);
    return task;
  }
}

class ToolRefusal extends Error {}

function refusal(text: string): TaskToolResult {
  return { text, isError: true };
}

/** The registry's own pattern rules (and safety limits), reported in the tool's words. */
function compilable(pattern: string): void {
  try {
    compilePattern(pattern);
  } catch (error) {
    throw new ToolRefusal(`notify_pattern is not a valid regular expression: ${errorMessage(error)}`);
  }
}

function startedText(terminalId: string, folder: string, p: StartParams): string {
  const onExit = p.notify_on_exit ?? true;
  const wake = onExit || p.notify_pattern !== undefined;
  return [
    `Started background task ${terminalId} in ${folder}.`,
    wake
      ? `You will be woken with its result${p.notify_pattern !== undefined ? ` (first when a line matches /${p.notify_pattern}/${onExit ? ', again when it exits' : ''})` : ' when it finishes'}. End your turn now instead of waiting, polling or sleeping.`
      : 'You asked not to be woken; use background_status or background_output to check on it.',
    p.timeout_seconds !== undefined ? `It is killed if it runs longer than ${p.timeout_seconds} s.` : '',
  ].filter(Boolean).join(' ');
}

function statusLine(t: TaskSnapshot): string {
  return `Task ${t.id}: ${taskEndSentence(t)}. Command: ${t.command.slice(0, 500)}`;
}

function describeStatus(t: TaskSnapshot): TaskToolResult {
  const lines = [statusLine(t), `Folder: ${t.cwd}`, `Started: ${new Date(t.startedAt).toISOString()}`];
  if (t.endedAt !== null) lines.push(`Ended: ${new Date(t.endedAt).toISOString()}`);
  if (t.status === 'running') lines.push('You will be woken when it finishes (if it asked to be); no need to poll.');
  return { text: lines.join('\n') };
}

/** What a kill did, counted: "Killed task t-1: 3 processes stopped." and any that could not be stopped. */
export function killSentence(id: string, outcome: TaskKillOutcome | undefined): string {
  if (!outcome) return `Task ${id} ended before it could be killed.`;
  const count = (n: number) => `${n} process${n === 1 ? '' : 'es'}`;
  const stopped = `Killed task ${id}: ${count(outcome.stopped)} stopped`;
  if (outcome.survivors.length === 0) return `${stopped}.`;
  const shown = outcome.survivors.slice(0, 5).map((p) => `${p.pid} (${p.name.slice(0, 40)})`).join(', ');
  const more = outcome.survivors.length > 5 ? ` and ${outcome.survivors.length - 5} more` : '';
  return `${stopped}; ${count(outcome.survivors.length)} could not be stopped and still run${outcome.survivors.length === 1 ? 's' : ''}: pid ${shown}${more}.`;
}
