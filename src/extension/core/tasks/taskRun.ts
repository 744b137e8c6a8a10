// One task while the registry follows it: output, pattern, exit detection, tree kill and its completions.

import { VigilError, errorMessage } from '../common/errors';
import { CoalescingRun } from '../common/coalescingRun';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { Redactor } from '../common/redactor';
import type { TerminalExitStatus } from '../ports/terminalHost';
import { matcherForStoredPattern, type LineMatcher } from './lineMatcher';
import { LogFollower } from './logFollower';
import { OutputRing } from './outputRing';
import { processStartTime, signalTree } from '../common/processTree';
import { killTaskProcesses, type TaskKillDeps, type TaskKillOutcome } from './taskKill';
import { isTaskWrapper, isWrapperEntry } from './wrapperProcess';
import { readExitFile, type ExitFile } from './exitRecord';
import { RecordWriter, type TaskPaths } from './taskStore';
import { completionKey, type CompletionKind, type TaskCompletion, type TaskEvent, type TaskRecord, type TaskSnapshot } from './taskTypes';

/** How much output a completion carries into the wakeup prompt. */
export const COMPLETION_OUTPUT_CHARS = 4000;

export interface TaskRunDeps {
  paths: TaskPaths;
  clock: Clock;
  logger: Logger;
  killGraceMs: number;
  emit(event: TaskEvent): void;
  /** The durable sink (the wakeup outbox); resolves once the completion is stored. */
  deliverCompletion(completion: TaskCompletion): Promise<void>;
  /** Secrets to keep out of the stored record. */
  redactor?: Redactor;
  /** Process reads and signals of the kill (tests). */
  killDeps?: Partial<Pick<TaskKillDeps, 'table' | 'stat' | 'signal'>>;
}

export class TaskRun {
  readonly ring: OutputRing;
  private readonly follower: LogFollower;
  private readonly writer: RecordWriter;
  private matcher: LineMatcher | undefined;
  private exitStatus: TerminalExitStatus | undefined;
  /** Set once the end is stored and announced; `waitForExit` resolves from here. */
  private reported: TerminalExitStatus | undefined;
  private readonly exitWaiters = new Set<(status: TerminalExitStatus) => void>();
  private finalizing: Promise<void> | undefined;
  private readonly sent = new Set<CompletionKind>();
  /** Completions stored in the outbox whose record save (and so whose event) is still to come. */
  private readonly unannounced: TaskCompletion[] = [];
  /** A matched line whose completion is not stored yet, and the attempt in flight. */
  private patternLine: string | undefined;
  private patternSend: Promise<void> | undefined;
  private unsettled = false;
  /** The end came from the wrapper's notice; its durable exit record is still being written. */
  private awaitingRecord = false;
  /** The wrapper's exit record, synced, says how the task ended. */
  private endOnDisk = false;
  private readonly checks = new CoalescingRun(() => this.runCheck());

  constructor(
    private current: TaskRecord,
    private readonly deps: TaskRunDeps,
  ) {
    this.ring = new OutputRing(current.outputByteLimit);
    this.writer = new RecordWriter(deps.paths.record, deps.redactor);
    this.follower = new LogFollower(deps.paths.log, (text) => this.onText(text));
    if (current.notify.pattern && current.patternMatchedAt === null) {
      // A pattern RE2 rejects (an older record) or one too costly on this output degrades to a notification on exit.
      this.matcher = matcherForStoredPattern(current.notify.pattern, {
        report: (message) => deps.logger.warn(`task ${current.id}: ${message}`),
        giveUp: () => {
          this.matcher = undefined;
          this.current = { ...this.current, notify: { ...this.current.notify, onExit: true } };
        },
      });
    }
  }

  get id(): string {
    return this.current.id;
  }

  get record(): TaskRecord {
    return this.current;
  }

  get finished(): boolean {
    return this.exitStatus !== undefined;
  }

  /** True while something still has to be made durable (a completion or the final record). */
  get needsAttention(): boolean {
    return !this.finished || this.unsettled || this.patternLine !== undefined;
  }

  snapshot(): TaskSnapshot {
    return { ...this.current, notify: { ...this.current.notify }, output: this.ring.toString(), truncated: this.ring.truncated };
  }

  exit(): TerminalExitStatus | null {
    return this.exitStatus ?? null;
  }

  /** `durable: false` only where the wrapper's synced exit record already holds what the record adds (see settle). */
  save(options: { durable?: boolean } = {}): Promise<void> {
    return this.writer.save(this.current, options);
  }

  /** Records the wrapper's pid with its start time, so a recycled pid is never taken for the wrapper. */
  setPid(pid: number | null): void {
    const pidStartedAt = pid === null ? undefined : processStartTime(pid);
    this.current = { ...this.current, pid, ...(pidStartedAt !== undefined ? { pidStartedAt } : {}) };
  }

  /** Starts following a fresh log from its beginning. */
  async followFromStart(): Promise<void> {
    await this.follower.open('start');
  }

  /** Re-attach: loads the log's tail into the ring, then follows from its current end. */
  async followFromEnd(tail: (logSize: number) => Promise<{ text: string; truncated: boolean }>): Promise<void> {
    const { size } = await this.follower.open('end');
    const { text, truncated } = await tail(size);
    if (truncated) this.ring.markTruncated();
    this.onText(text, false);
  }

  /**
   * Something changed on disk (log written, exit recorded) or the poll ticked. Never runs twice at
   * once; a request during a run queues one more run, so an exit recorded mid-check is not missed.
   */
  check(): Promise<void> {
    return this.checks.request();
  }

  pokeOutput(): void {
    this.follower.poke().catch((error: unknown) => this.deps.logger.warn(`reading the log of ${this.id} failed`, error));
  }

  waitForExit(signal?: AbortSignal): Promise<TerminalExitStatus> {
    if (this.reported) return Promise.resolve(this.reported);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.exitWaiters.delete(done);
        reject(new VigilError('CANCELLED', `stopped waiting for task ${this.id}`, { cause: signal?.reason }));
      };
      const done = (status: TerminalExitStatus) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(status);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.exitWaiters.add(done);
    });
  }

  /**
   * Kills the whole tree (see taskKill.ts): SIGTERM, then after the grace every process frozen and SIGKILLed.
   * The wrapper records how the command ended; if it cannot, the kill is recorded as a SIGKILL. Says how
   * many processes were stopped and which could not be; undefined when the task had already ended.
   */
  async kill(): Promise<TaskKillOutcome | undefined> {
    const pid = this.current.pid;
    if (this.finished || pid === null) return undefined;
    if (this.current.killRequestedAt === null) {
      this.current = { ...this.current, killRequestedAt: this.deps.clock.wallNow() };
      await this.save();
    }
    let outcome: TaskKillOutcome = { stopped: 0, survivors: [] };
    try {
      outcome = await killTaskProcesses(pid, { clock: this.deps.clock, graceMs: this.deps.killGraceMs, exitWithin: (ms) => this.exitWithin(ms), isWrapper: (entry) => isWrapperEntry(entry, this.current.pidStartedAt, () => this.wrapperAlive(pid)), ...this.deps.killDeps });
    } catch (error) {
      // A failed scan must not leave the task running: its group still goes below.
      this.deps.logger.warn(`task ${this.id}: listing its processes failed; killing its process group only`, error);
    }
    await this.endWrapper(pid);
    if (outcome.survivors.length > 0) this.deps.logger.warn(`task ${this.id}: processes ${outcome.survivors.map((p) => p.pid).join(', ')} still exist after SIGKILL`);
    return outcome;
  }

  /** After the kill the wrapper records the command's end and ends; one that does not is killed, and the kill recorded. */
  private async endWrapper(pid: number): Promise<void> {
    const deadline = this.deps.clock.now() + 2_000;
    for (;;) {
      await this.check();
      const alive = this.wrapperAlive(pid);
      if ((this.finished && !alive) || this.deps.clock.now() >= deadline) break;
      await new Promise<void>((resolve) => this.deps.clock.setTimer(10, resolve));
    }
    if (this.finished && !this.wrapperAlive(pid)) return;
    if (this.wrapperAlive(pid)) {
      try {
        signalTree(pid, [], 'SIGKILL');
      } catch (error) {
        this.deps.logger.warn(`task ${this.id}: SIGKILL of its wrapper failed`, error);
      }
    }
    if (!this.finished) await this.finalize({ exitCode: null, signal: 'SIGKILL', endedAt: this.deps.clock.wallNow() });
  }

  /** Records an end the registry itself observed (the wrapper could not be started). */
  failToStart(message: string): Promise<void> {
    this.onText(`vigil: ${message}\n`);
    return this.finalize({ exitCode: 127, signal: null, endedAt: this.deps.clock.wallNow() });
  }

  async close(): Promise<void> {
    await this.follower.close();
  }

  private async runCheck(): Promise<void> {
    await this.flushPattern();
    if (this.finished) {
      if (this.unsettled) await this.settle();
      return;
    }
    const exit = await readExitFile(this.deps.paths.exit);
    if (exit.kind === 'exited') return this.finalize(exit.exit);
    // The wrapper's notice: the same end, before the wrapper's fsyncs. The completion is stored from it now;
    // the task's own record waits for the durable exit record (see settle).
    const notice = await readExitFile(this.deps.paths.notice);
    if (notice.kind === 'exited') return this.finalize(notice.exit, undefined, 'notice');
    await this.follower.poke();
    const pid = this.current.pid;
    // While the wrapper lives, an unreadable record may still be replaced by a good one: wait for it.
    if (pid !== null && this.wrapperAlive(pid)) return;
    // The wrapper is gone: it writes the exit file before it ends, so look once more before calling it lost.
    const late = await readExitFile(this.deps.paths.exit);
    if (late.kind === 'exited') return this.finalize(late.exit);
    if (pid === null && this.deps.clock.wallNow() - this.current.startedAt < 10_000) return;
    if (late.kind === 'unreadable') {
      const reason = `its exit record ${this.deps.paths.exit} is unreadable (${late.reason}) and its wrapper is gone`;
      this.deps.logger.warn(`task ${this.id}: ${reason}; marking it lost`);
      return this.finalize(undefined, reason);
    }
    return this.finalize(undefined);
  }

  /** The wrapper still runs: its pid is alive, names this task, and (where known) started when ours did. */
  private wrapperAlive(pid: number): boolean {
    if (!isTaskWrapper(pid, this.id)) return false;
    const recorded = this.current.pidStartedAt;
    const actual = processStartTime(pid);
    return recorded === undefined || actual === undefined || recorded === actual;
  }

  private exitWithin(ms: number): Promise<boolean> {
    if (this.finished) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = this.deps.clock.setTimer(ms, () => {
        this.exitWaiters.delete(done);
        resolve(false);
      });
      const done = () => {
        timer.cancel();
        resolve(true);
      };
      this.exitWaiters.add(done);
    });
  }

  private finalize(exit: ExitFile | undefined, lostReason?: string, from: 'record' | 'notice' = 'record'): Promise<void> {
    this.finalizing ??= this.doFinalize(exit, lostReason, from === 'notice');
    return this.finalizing;
  }

  private async doFinalize(exit: ExitFile | undefined, lostReason: string | undefined, fromNotice: boolean): Promise<void> {
    try {
      await this.follower.poke();
    } catch (error) {
      this.deps.logger.warn(`final read of the log of ${this.id} failed`, error);
    }
    this.follower.flush();
    const status = this.current.killRequestedAt !== null ? 'killed' : exit ? 'exited' : 'lost';
    if (status === 'lost') this.onText(lostReason ? `\nvigil: the task is lost: ${lostReason}.\n` : '\nvigil: the task disappeared without recording an exit status.\n');
    this.current = {
      ...this.current,
      status,
      endedAt: exit?.endedAt ?? this.deps.clock.wallNow(),
      exitCode: exit?.exitCode ?? null,
      signal: exit?.signal ?? null,
    };
    this.exitStatus = { exitCode: this.current.exitCode, signal: this.current.signal };
    await this.follower.close().catch((error: unknown) => this.deps.logger.warn(`closing the log of ${this.id} failed`, error));
    this.unsettled = true;
    this.awaitingRecord = fromNotice;
    this.endOnDisk = exit !== undefined && !fromNotice;
    // Durable first (completion, then record), so whoever learns of the end finds it stored.
    await this.settle();
  }

  /**
   * Makes the end durable: completions first (the outbox), then the final record. Retried by the poll on failure.
   * An end known from the wrapper's notice saves its record only once the wrapper's durable record is there (its
   * watcher event or the poll comes back here), or the wrapper is gone without one: the task's record never says
   * "ended" before the log and the exit record are synced. Whoever waits for the exit learns of it then.
   * That last save is not synced when the synced exit record holds the end: a power cut that takes it back leaves
   * the task "running", and the next window ends it again from that exit record, under the completion key the
   * outbox already holds (so no second wakeup). A lost or killed end, which nothing else holds, is synced.
   */
  private async settle(): Promise<void> {
    try {
      await this.flushPattern();
      if (this.patternLine !== undefined) throw new Error('the pattern completion is not stored yet');
      if (this.current.background && this.current.notify.onExit !== false) await this.sendCompletion('exit');
      if (this.awaitingRecord && !(await this.recordWritten())) return;
      this.awaitingRecord = false;
      await this.save({ durable: !this.endOnDisk });
      this.unsettled = false;
      this.announce();
    } catch (error) {
      this.deps.logger.error(`task ${this.id} ended but its completion is not stored yet; retrying`, error);
    } finally {
      if (!this.awaitingRecord) this.report();
    }
  }

  /** Whether the wrapper's durable exit record is written, or will never be (its wrapper is gone). */
  private async recordWritten(): Promise<boolean> {
    const record = await readExitFile(this.deps.paths.exit);
    this.endOnDisk = record.kind === 'exited';
    if (record.kind !== 'none') return true;
    const pid = this.current.pid;
    return pid === null || !this.wrapperAlive(pid);
  }

  /** Tells whoever waits for the exit, once. */
  private report(): void {
    if (this.reported || !this.exitStatus) return;
    this.reported = this.exitStatus;
    for (const waiter of [...this.exitWaiters]) waiter(this.exitStatus);
    this.exitWaiters.clear();
    this.deps.emit({ type: 'changed', task: this.snapshot() });
  }

  private onText(text: string, live = true): void {
    if (!text) return;
    this.ring.push(text);
    if (live) this.deps.emit({ type: 'output', taskId: this.id, sessionId: this.current.sessionId, chunk: text });
    const line = this.matcher?.feed(text);
    if (line === undefined) return;
    this.matcher = undefined;
    this.patternLine = line;
    void this.flushPattern();
  }

  /** Stores the pattern completion; on failure it stays pending and the next check or the exit retries it. */
  private flushPattern(): Promise<void> {
    if (this.patternLine === undefined) return Promise.resolve();
    this.patternSend ??= this.sendCompletion('pattern', this.patternLine)
      .then(() => {
        this.patternLine = undefined;
        this.current = { ...this.current, patternMatchedAt: this.deps.clock.wallNow() };
        return this.save();
      })
      .then(() => this.announce())
      .catch((error: unknown) => this.deps.logger.error(`pattern completion of ${this.id} not stored yet: ${errorMessage(error)}`, error))
      .finally(() => {
        this.patternSend = undefined;
      });
    return this.patternSend;
  }

  private async sendCompletion(kind: CompletionKind, matchedLine?: string): Promise<void> {
    if (this.sent.has(kind)) return;
    const tail = this.ring.tail(COMPLETION_OUTPUT_CHARS);
    const completion: TaskCompletion = {
      key: completionKey(this.id, kind),
      taskId: this.id,
      sessionId: this.current.sessionId,
      kind,
      command: this.current.command,
      status: kind === 'pattern' ? 'running' : this.current.status,
      exitCode: kind === 'pattern' ? null : this.current.exitCode,
      signal: kind === 'pattern' ? null : this.current.signal,
      ...(kind === 'pattern' ? { pattern: this.current.notify.pattern, matchedLine } : {}),
      output: tail.text,
      outputTruncated: tail.truncated,
      at: this.deps.clock.wallNow(),
    };
    await this.deps.deliverCompletion(completion);
    this.sent.add(kind);
    this.unannounced.push(completion);
  }

  /** Completion events go out once the record that goes with them is saved: a listener reading the record finds the end. */
  private announce(): void {
    for (const completion of this.unannounced.splice(0)) this.deps.emit({ type: 'completion', completion });
  }
}
