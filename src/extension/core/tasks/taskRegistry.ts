// The background-task registry: serves ACP client terminals, keeps durable task records and re-attaches after a reload.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import { Disposable, toDisposable } from '../common/disposable';
import { VigilError, errorMessage } from '../common/errors';
import { EventHub, type Unsubscribe } from '../common/events';
import { systemClock, type Clock, type TimerHandle } from '../ports/clock';
import { silentLogger, tagged, type Logger } from '../ports/logger';
import type { Redactor } from '../common/redactor';
import type { CreateTerminalRequest, StartSlot, TerminalExitStatus, TerminalHost, TerminalOutput } from '../ports/terminalHost';
import { compilePattern } from './lineMatcher';
import { clampOutputByteLimit } from './outputLimit';
import { readLogTail } from './logFollower';
import { signalTree } from '../common/processTree';
import { shellInvocation } from './shellCommand';
import { DEFAULT_TASK_CAPS, StartSlots, type TaskCaps } from './startSlots';
import type { TaskKillOutcome } from './taskKill';
import { TaskRun } from './taskRun';
import { loadTaskRecords, taskPaths, tasksDir } from './taskStore';
import type { TaskCompletion, TaskEvent, TaskRecord, TaskSnapshot } from './taskTypes';
import { defaultWrapperKind, wrapperCommand, wrapperFiles, type WrapperKind } from './wrapperFiles';

export interface TaskRegistryOptions {
  storageRoot: string;
  /** Durable sink for completions (the wakeup outbox). A task's end is final only once this resolved. */
  onCompletion(completion: TaskCompletion): Promise<void>;
  /** The session's workspace folder: the default cwd, and the base of a relative one. */
  workspaceFolder?(sessionId: string): string | undefined | Promise<string | undefined>;
  clock?: Clock;
  logger?: Logger;
  /** The person's shell; default `$SHELL`, else `/bin/sh`. */
  shell?: string;
  /** Runs the Node wrapper; default `process.execPath` (VS Code's Electron, run as Node). */
  nodePath?: string;
  /**
   * Which wrapper new tasks get: `perl` (/usr/bin/perl, the default where it and taskWrapper.pl exist)
   * or `node` (Windows, or no perl). A task keeps the wrapper it started with across reloads.
   */
  wrapper?: WrapperKind;
  /** The folder holding taskWrapper.pl and taskWrapper.js; default: beside the registry's code (dist/). */
  wrapperDir?: string;
  /** The person's environment; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  defaultOutputByteLimit?: number;
  /** Bound of a task's log on disk (two files of half this size, rotated by the wrapper). */
  logByteCap?: number;
  killGraceMs?: number;
  /** Safety poll for missed file events and for the liveness of re-attached tasks. */
  pollIntervalMs?: number;
  /** Secrets to keep out of task records. */
  redactor?: Redactor;
  /** How many tasks may run at once per session and per window; read at every start (default 16 / 64). */
  caps?(): TaskCaps;
}

const DEFAULTS = { defaultOutputByteLimit: 1024 * 1024, logByteCap: 8 * 1024 * 1024, killGraceMs: 3_000, pollIntervalMs: 500 };

export class TaskRegistry extends Disposable implements TerminalHost {
  private readonly runs = new Map<string, TaskRun>();
  /** Finished tasks of earlier windows: records only, output read from the log on demand. */
  private readonly dormant = new Map<string, TaskRecord>();
  /** Terminal ids the agent released: no longer served over ACP, still listed for the person. */
  private readonly released = new Set<string>();
  private readonly hub = new EventHub<TaskEvent>();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly settings: typeof DEFAULTS;
  private watcher: FSWatcher | undefined;
  private pollTimer: TimerHandle | undefined;
  private reattached: Promise<void> = Promise.resolve();
  private readonly wrapper: WrapperKind;
  private readonly slots: StartSlots;

  private constructor(private readonly options: TaskRegistryOptions) {
    super();
    this.clock = options.clock ?? systemClock;
    this.logger = tagged(options.logger ?? silentLogger, 'tasks');
    this.settings = {
      defaultOutputByteLimit: options.defaultOutputByteLimit ?? DEFAULTS.defaultOutputByteLimit,
      logByteCap: options.logByteCap ?? DEFAULTS.logByteCap,
      killGraceMs: options.killGraceMs ?? DEFAULTS.killGraceMs,
      pollIntervalMs: options.pollIntervalMs ?? DEFAULTS.pollIntervalMs,
    };
    this.wrapper = options.wrapper ?? (defaultWrapperKind() === 'perl' && existsSync(wrapperFiles(options.wrapperDir).perl) ? 'perl' : 'node');
    this.slots = new StartSlots(options.caps ?? (() => DEFAULT_TASK_CAPS), () => this.running());
  }

  /** Opens the registry over `<storageRoot>/tasks/` and re-attaches every task a previous window left running. */
  static async open(options: TaskRegistryOptions): Promise<TaskRegistry> {
    const registry = new TaskRegistry(options);
    await fs.mkdir(tasksDir(options.storageRoot), { recursive: true });
    registry.startWatching();
    const checks: Promise<void>[] = [];
    for (const record of await loadTaskRecords(options.storageRoot, registry.logger)) {
      if (record.status === 'running') checks.push((await registry.attach(record)).firstCheck);
      else registry.dormant.set(record.id, record);
    }
    // Not awaited here: a task that ended while no window was open reports its completion to a sink
    // that may only become ready once `open` has returned (the composition root builds it after).
    registry.reattached = Promise.all(checks).then(() => undefined);
    registry.schedulePoll();
    return registry;
  }

  /** Resolves once every task found running at `open` was checked (followed, or found ended or lost). */
  whenReattached(): Promise<void> {
    return this.reattached;
  }

  subscribe(listener: (event: TaskEvent) => void): Unsubscribe {
    return this.hub.subscribe(listener);
  }

  list(filter: { sessionId?: string } = {}): TaskSnapshot[] {
    const live = [...this.runs.values()].map((r) => r.snapshot());
    const old = [...this.dormant.values()].map((r) => ({ ...r, output: '', truncated: false }));
    return [...live, ...old].filter((t) => filter.sessionId === undefined || t.sessionId === filter.sessionId).sort((a, b) => a.startedAt - b.startedAt);
  }

  /** A task with its output (for a dormant task, the tail of its log). */
  async get(taskId: string): Promise<TaskSnapshot | undefined> {
    const run = this.runs.get(taskId);
    if (run) return run.snapshot();
    const record = this.dormant.get(taskId);
    if (!record) return undefined;
    const paths = taskPaths(this.options.storageRoot, taskId);
    const size = await fs.stat(paths.log).then((s) => s.size, () => 0);
    const tail = await readLogTail(paths.log, size, record.outputByteLimit);
    return { ...record, output: tail.text, truncated: tail.truncated };
  }

  /** Room for one start of `sessionId` (taken before the person is asked); throws `TASK_LIMIT` when a cap is reached. */
  reserveStart(sessionId: string): StartSlot {
    if (this.isDisposed) throw new VigilError('TASK_FAILED', 'the task registry is closed');
    return this.slots.take(sessionId);
  }

  async create(request: CreateTerminalRequest, slot?: StartSlot): Promise<{ terminalId: string }> {
    if (this.isDisposed) throw new VigilError('TASK_FAILED', 'the task registry is closed');
    if (!request.command.trim()) throw new VigilError('INVALID_INPUT', 'terminal/create needs a command');
    if (request.notify?.pattern !== undefined) {
      try {
        compilePattern(request.notify.pattern);
      } catch (error) {
        throw new VigilError('INVALID_INPUT', `notify.pattern is not a valid regular expression: ${errorMessage(error)}`, { cause: error });
      }
    }
    const held = this.slots.hold(request.sessionId, slot);
    try {
      return await this.launch(request, held);
    } finally {
      held.release();
    }
  }

  /** Starts a checked request; `held` is given back as soon as the task counts as running. */
  private async launch(request: CreateTerminalRequest, held: StartSlot): Promise<{ terminalId: string }> {
    const cwd = await this.resolveCwd(request);
    const id = `t-${randomBytes(4).toString('hex')}`;
    const paths = taskPaths(this.options.storageRoot, id);
    const background = request.background === true;
    const invocation = shellInvocation(request.command, request.args, this.options.shell, this.options.env ?? process.env);
    // The agent chooses the buffer size only within the setting's range (a huge one would grow with output).
    const { limit, note: limitNote } = clampOutputByteLimit(request.outputByteLimit, this.settings.defaultOutputByteLimit);
    if (limitNote) this.logger.warn(`task ${id}: ${limitNote}`);
    const record: TaskRecord = {
      v: 1,
      id,
      sessionId: request.sessionId,
      command: invocation.display,
      cwd,
      pid: null,
      background,
      notify: background ? { onExit: request.notify?.onExit ?? true, ...(request.notify?.pattern !== undefined ? { pattern: request.notify.pattern } : {}) } : {},
      outputByteLimit: limit,
      startedAt: this.clock.wallNow(),
      endedAt: null,
      exitCode: null,
      signal: null,
      status: 'running',
      patternMatchedAt: null,
      killRequestedAt: null,
      ...(request.timeoutMs !== undefined && request.timeoutMs > 0 ? { deadlineAt: this.clock.wallNow() + request.timeoutMs } : {}),
    };
    await fs.writeFile(paths.log, '', { flag: 'a' });
    const run = this.newRun(record);
    await run.save();
    await run.followFromStart();
    this.runs.set(id, run);
    held.release();

    const baseEnv = this.options.env ?? process.env;
    const env: NodeJS.ProcessEnv = { ...baseEnv };
    for (const { name, value } of request.env ?? []) env[name] = value;
    Object.assign(env, { CI: '1', PAGER: 'cat', GIT_PAGER: 'cat' });
    const keepElectronRunAsNode = baseEnv.ELECTRON_RUN_AS_NODE !== undefined;
    const launch = { taskId: id, file: invocation.file, args: invocation.args, cwd, log: paths.log, exit: paths.exit, half: Math.max(4096, Math.floor(this.settings.logByteCap / 2)) };
    const wrapper = wrapperCommand(this.wrapper, launch, { dir: this.options.wrapperDir, nodePath: this.options.nodePath ?? process.execPath, keepElectronRunAsNode });
    Object.assign(env, wrapper.env);
    try {
      // detached: the wrapper leads a new process group (and session), so the whole tree is one kill away.
      const child = spawn(wrapper.command, wrapper.args, { cwd, env, detached: true, stdio: 'ignore' });
      child.on('error', (error) => void run.failToStart(`could not start the task wrapper: ${error.message}`).catch((e: unknown) => this.logger.error(`task ${id}`, e)));
      // A closed registry (reloaded window) leaves the task to whichever registry follows it now.
      child.on('exit', () => {
        if (!this.isDisposed) run.check().catch((e: unknown) => this.logger.error(`task ${id}`, e));
      });
      child.unref();
      run.setPid(child.pid ?? null);
      if (child.pid !== undefined) await run.save();
    } catch (error) {
      await run.failToStart(`could not start the task wrapper: ${errorMessage(error)}`);
    }
    this.hub.emit({ type: 'created', task: run.snapshot() }, (e) => this.logger.error('a task listener threw', e));
    this.logger.info(`task ${id} started (${background ? 'background' : 'foreground'}) in ${cwd}: ${invocation.display}`);
    return { terminalId: id };
  }

  async output(terminalId: string): Promise<TerminalOutput> {
    const run = this.served(terminalId);
    return { output: run.ring.toString(), truncated: run.ring.truncated, exitStatus: run.exit() };
  }

  waitForExit(terminalId: string, signal?: AbortSignal): Promise<TerminalExitStatus> {
    try {
      return this.served(terminalId).waitForExit(signal);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** ACP kill: ends the whole tree; the task stays readable. Also the UI's kill. */
  async kill(terminalId: string): Promise<void> {
    await this.killTask(terminalId);
  }

  /** The kill, counted: how many processes were stopped and which could not be; undefined when it had ended. */
  async killTask(terminalId: string): Promise<TaskKillOutcome | undefined> {
    const run = this.runs.get(terminalId);
    if (!run) {
      if (this.dormant.has(terminalId)) return undefined;
      throw new VigilError('NOT_FOUND', `no task ${terminalId}`);
    }
    return run.kill();
  }

  /**
   * ACP release: the agent is done with this terminal id. A foreground command is killed and
   * forgotten; a background task keeps running (that is its point) and stays listed for the person.
   */
  async release(terminalId: string): Promise<void> {
    const run = this.runs.get(terminalId);
    if (!run || this.released.has(terminalId)) return;
    this.released.add(terminalId);
    if (run.record.background) return;
    await run.kill();
    await run.check();
    await run.close();
    this.runs.delete(terminalId);
    this.dormant.set(terminalId, run.record);
    this.hub.emit({ type: 'released', taskId: terminalId }, (e) => this.logger.error('a task listener threw', e));
  }

  onOutput(terminalId: string, listener: (chunk: string) => void): Unsubscribe {
    return this.hub.subscribe((event) => {
      if (event.type === 'output' && event.taskId === terminalId) listener(event.chunk);
    });
  }

  /** Tasks still running (not yet ended), re-attached ones included: what the caps count. */
  private running(): Array<{ id: string; sessionId: string }> {
    return [...this.runs.values()].filter((r) => !r.finished).map((r) => ({ id: r.id, sessionId: r.record.sessionId }));
  }

  ownedProcessIds(): number[] {
    return [...this.runs.values()].filter((r) => !r.finished && r.record.pid !== null).map((r) => r.record.pid as number);
  }

  /** Stops following (timers, watcher, log handles). Background tasks keep running for the next window. */
  async close(): Promise<void> {
    this.dispose();
    await Promise.all([...this.runs.values()].map((r) => r.close().catch((e: unknown) => this.logger.warn(`closing ${r.id}`, e))));
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.pollTimer?.cancel();
    this.watcher?.close();
    for (const run of this.runs.values()) {
      // A foreground command belongs to a turn of this window; it must not outlive it.
      if (!run.record.background && !run.finished && run.record.pid !== null) signalTree(run.record.pid, [], 'SIGTERM');
      run.close().catch((e: unknown) => this.logger.warn(`closing ${run.id}`, e));
    }
    this.hub.clear();
    super.dispose();
  }

  private served(terminalId: string): TaskRun {
    const run = this.runs.get(terminalId);
    if (!run || this.released.has(terminalId)) throw new VigilError('NOT_FOUND', `no terminal ${terminalId} (unknown or released)`);
    return run;
  }

  private newRun(record: TaskRecord): TaskRun {
    return new TaskRun(record, {
      paths: taskPaths(this.options.storageRoot, record.id),
      clock: this.clock,
      logger: this.logger,
      killGraceMs: this.settings.killGraceMs,
      emit: (event) => this.hub.emit(event, (e) => this.logger.error('a task listener threw', e)),
      deliverCompletion: (completion) => this.options.onCompletion(completion),
      redactor: this.options.redactor,
    });
  }

  /** Follows a task of an earlier window; returns its first check (not awaited by `open`). */
  private async attach(record: TaskRecord): Promise<{ firstCheck: Promise<void> }> {
    const run = this.newRun(record);
    const paths = taskPaths(this.options.storageRoot, record.id);
    try {
      await run.followFromEnd((size) => readLogTail(paths.log, size, record.outputByteLimit));
    } catch (error) {
      // No log at all: the task can still end (exit file) or be found lost; its output is gone.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      run.ring.markTruncated();
    }
    this.runs.set(record.id, run);
    this.logger.info(`re-attached task ${record.id} (pid ${record.pid ?? 'unknown'})`);
    // Wrapped: an async function would otherwise adopt (and so await) the check it returns.
    return { firstCheck: run.check().catch((error: unknown) => this.logger.error(`checking re-attached task ${record.id} failed`, error)) };
  }

  private async resolveCwd(request: CreateTerminalRequest): Promise<string> {
    const folder = await this.options.workspaceFolder?.(request.sessionId);
    let cwd: string;
    if (request.cwd && path.isAbsolute(request.cwd)) cwd = request.cwd;
    else if (folder) cwd = request.cwd ? path.resolve(folder, request.cwd) : folder;
    else throw new VigilError('INVALID_INPUT', `session ${request.sessionId} has no workspace folder, so the command needs an absolute cwd`);
    const stat = await fs.stat(cwd).catch((error: unknown) => {
      throw new VigilError('INVALID_INPUT', `cwd ${cwd} does not exist`, { cause: error });
    });
    if (!stat.isDirectory()) throw new VigilError('INVALID_INPUT', `cwd ${cwd} is not a folder`);
    return cwd;
  }

  private startWatching(): void {
    try {
      this.watcher = watch(tasksDir(this.options.storageRoot), (_event, filename) => {
        if (!filename) return;
        const name = filename.toString();
        const run = this.runs.get(name.slice(0, name.indexOf('.')));
        if (!run || !run.needsAttention) return;
        if (name.endsWith('.exit') || name.endsWith('.exit.notice')) run.check().catch((e: unknown) => this.logger.error(`task ${run.id}`, e));
        else if (name.includes('.log')) run.pokeOutput();
      });
      this.watcher.on('error', (error) => this.logger.warn('watching task files failed; polling only', error));
      this._register(toDisposable(() => this.watcher?.close()));
    } catch (error) {
      this.logger.warn('cannot watch task files; polling only', error);
    }
  }

  /** Tasks past their deadline are killed (once: a kill already asked for is left to finish). */
  private killOverdue(): void {
    const now = this.clock.wallNow();
    for (const run of this.runs.values()) {
      const { deadlineAt, killRequestedAt } = run.record;
      if (deadlineAt === undefined || now < deadlineAt || killRequestedAt !== null || run.finished) continue;
      this.logger.info(`task ${run.id} ran past its timeout; killing it`);
      run.kill().catch((e: unknown) => this.logger.error(`killing overdue task ${run.id}`, e));
    }
  }

  private schedulePoll(): void {
    if (this.isDisposed) return;
    this.pollTimer = this.clock.setTimer(this.settings.pollIntervalMs, () => {
      this.killOverdue();
      const checks = [...this.runs.values()].filter((r) => r.needsAttention).map((r) => r.check().catch((e: unknown) => this.logger.error(`task ${r.id}`, e)));
      void Promise.all(checks).finally(() => this.schedulePoll());
    });
  }
}
