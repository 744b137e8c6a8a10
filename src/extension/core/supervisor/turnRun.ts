// One turn from admission to its `finally`: activity, watchdog, lease refresher, abort, teardown.

import { summarize, type PromptAttachment } from '../../../shared/promptContext';
import { summaries } from '../../../shared/turnWords';
import { errorMessage, isVigilError } from '../common/errors';
import type { CheckpointPort, TurnCheckpoint } from '../ports/checkpoints';
import type { AgentEvent, AgentFailure, AgentHandle, AgentHandleProvider, PromptOutcome, WaitingOn } from '../ports/agentHandle';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { TurnEndReason, TurnEnded, TurnSource } from '../ports/turns';
import type { TurnLeaseStore, LeaseToken } from '../lease/turnLease';
import type { SessionMeta, SessionState, SessionStore } from '../store/sessionStore';
import type { TranscriptWriter } from '../store/transcript';
import type { RecordInput } from '../store/transcriptRecords';
import type { LivenessSettings } from './livenessSettings';
import { AbortProtocol } from './abortProtocol';
import { LeaseRefresher } from './leaseRefresher';
import type { ActivityClock } from './activityClock';
import { CommitBarriers, type PendingBarrier } from './commitBarriers';
import { ENDED_WITHOUT_RESULT, ToolCallTracker } from './toolCalls';
import { reportLeftovers } from './leftoverReport';
import { ownsAgent } from './agentFence';
import { Watchdog } from './watchdog';
import { checkpointFields, within } from './boundedWait';
import type { InterruptState, SupervisorEvent, SupervisorHooks, TurnStep, TurnSnapshot } from './supervisorEvents';

export interface TurnRunDeps {
  sessionId: string;
  turnId: string;
  source: TurnSource;
  clock: Clock;
  logger: Logger;
  hooks: SupervisorHooks;
  settings: LivenessSettings;
  activity: ActivityClock;
  lease: TurnLeaseStore;
  token: LeaseToken;
  store: SessionStore;
  agents: AgentHandleProvider;
  /** The session's interrupt slot: shared across turns, so a turn clears only its own state. */
  interruptSlot: { state?: InterruptState };
  emit(event: SupervisorEvent): void;
  activityThrottleMs: number;
  /** The session's state once the turn was admitted; the end writes metadata only if it changes. */
  initialState: SessionState;
  /** Whether the session's wakeups were paused when the turn was admitted (read under the lease). */
  pausedAtStart: boolean;
  /** What the person attached to the prompt: passed to the agent, summarized (names, links) in the transcript. */
  attachments?: PromptAttachment[];
  /** A wakeup's background tasks, stored with its prompt. */
  taskIds?: string[];
  /** The prompt replaces the last turn (ports/turns.ts, StartTurnOptions.redo). */
  redo?: { how: 'edit' | 'retry' | 'regenerate'; replaced: boolean };
  /** Snapshots of the session's folder before and after the turn (core/checkpoints); absent: none. */
  checkpoints?: CheckpointPort;
  /** Told, synchronously, when the teardown begins (before the end record and the release). */
  onEnding?(): void;
  /** A turn an earlier window started, taken back after a reload: its prompt is stored and running already. */
  adopted?: boolean;
  /** When the turn began (wall clock), for a turn taken back: its age counts from then, not from the take-back. */
  startedAt?: number;
}

type PromptResult =
  | { kind: 'outcome'; outcome: PromptOutcome }
  | { kind: 'error'; error: unknown }
  | { kind: 'killed'; reason: string };

const KILL_SETTLE_MS = 2_000;
/** How long a turn's end waits for its end record and metadata before it releases the lease anyway. */
const END_RECORD_BOUND_MS = 5_000;
const CHECKPOINT_BOUND_MS = 15_000;

export class TurnRun {
  readonly barriers = new CommitBarriers();
  readonly writer: TranscriptWriter;
  readonly startedAt: number;
  phase: TurnStep = 'running';
  waitingOn: WaitingOn = { kind: 'agent' };
  /** Set when the turn failed on provider credentials or quota: the supervisor pauses wakeups. */
  failure: AgentFailure | undefined;
  private approvalsOpen = 0;
  /** Keeps the lease alive while the turn runs; stopped ("deactivated") by the abort protocol or the teardown. */
  private readonly refresher: LeaseRefresher;
  private readonly watchdog: Watchdog;
  private readonly abort: AbortProtocol;
  private handle: AgentHandle | undefined;
  private killRequested: string | undefined;
  private resolveForced!: (result: PromptResult) => void;
  private readonly forced = new Promise<PromptResult>((resolve) => (this.resolveForced = resolve));
  private readonly tools = new ToolCallTracker();
  private lastActivityEmit = Number.NEGATIVE_INFINITY;
  private checkpoint: TurnCheckpoint | undefined;

  constructor(private readonly d: TurnRunDeps) {
    this.startedAt = d.startedAt ?? d.clock.wallNow();
    const fence = d.lease.guard(d.token);
    this.writer = d.store.transcriptWriter(d.sessionId, (write) => this.barriers.run('transcript batch', () => fence(write)));
    this.refresher = new LeaseRefresher(d, () => void this.abort.leaseLost());
    this.watchdog = new Watchdog({
      clock: d.clock,
      logger: d.logger,
      activity: d.activity,
      boundMs: () => this.boundMs(),
      suspended: () => this.approvalsOpen > 0,
      onQuiet: (silentMs) => d.emit({ type: 'quiet', sessionId: d.sessionId, turnId: d.turnId, silentMs, waitingOn: this.waitingOn, boundMs: this.boundMs() }),
      onStall: (sample, silentMs) => void this.abort.onStall(sample, silentMs),
    });
    this.abort = new AbortProtocol({
      sessionId: d.sessionId,
      turnId: d.turnId,
      clock: d.clock,
      logger: d.logger,
      hooks: d.hooks,
      settings: d.settings,
      activity: d.activity,
      barriers: this.barriers,
      emit: d.emit,
      waitingOn: () => this.waitingOn,
      boundMs: () => this.boundMs(),
      isRunning: () => this.phase !== 'ending',
      publish: (state) => {
        this.phase = 'aborting';
        d.interruptSlot.state = state;
      },
      deactivate: () => this.refresher.stop(),
      rearmWatchdog: (delay) => this.watchdog.arm(delay),
      stopWatchdog: () => this.watchdog.cancel(),
      cancelAgent: () => void this.handle?.cancel(d.sessionId).catch((e: unknown) => d.logger.warn(`session/cancel failed: ${errorMessage(e)}`)),
      killAgent: (reason) => this.killAgent(reason),
    });
  }

  get interruptState(): InterruptState | undefined {
    return this.abort.interruptState;
  }

  get renewing(): boolean {
    return this.refresher.renewing;
  }

  /** Stamps the activity clock at turn entry (a stale clock never aborts a new turn) and persists the prompt. */
  async admit(text: string, claimId?: string): Promise<void> {
    this.d.activity.touch('turn entry');
    const { turnId, source, token } = this.d;
    await this.writer.append([
      { type: 'turnStarted', turnId, source, epoch: token.epoch },
      {
        type: 'userPrompt', turnId, source, text,
        ...(this.d.attachments?.length ? { attachments: this.d.attachments.map(summarize) } : {}),
        ...(this.d.taskIds ? { taskIds: this.d.taskIds } : {}),
        ...(this.d.redo ? { redo: this.d.redo } : {}),
        ...(claimId ? { claimId } : {}),
      },
    ]);
  }

  /** A turn an earlier window began: nothing to store; the silence it already had counts once known. */
  adopt(silentMs: number): void {
    this.d.activity.touch('turn taken back after a window reload', silentMs);
    if (this.d.settings.enabled && this.phase === 'running') this.watchdog.arm();
  }

  /** Runs the turn to its end; never rejects. */
  async run(prompt: string): Promise<TurnEnded> {
    const { d } = this;
    this.refresher.schedule();
    if (d.settings.enabled) this.watchdog.arm();
    d.emit({ type: 'turnStarted', sessionId: d.sessionId, turnId: d.turnId, source: d.source, startedAt: this.startedAt });
    let result: PromptResult;
    try {
      // Marked before the agent is asked, and never waited for: the folder's index is kept current between turns.
      this.checkpoint = d.adopted ? undefined : d.checkpoints?.begin(d.sessionId, d.turnId);
      result = await this.prompt(prompt);
    } catch (error) {
      result = { kind: 'error', error };
    }
    // Every path, whatever happened above, goes through the one teardown.
    return this.teardown(result);
  }

  /** Activity: an agent event, a terminal's output, or the supervisor's own turn-entry stamp. */
  onAgentEvent(event: AgentEvent): void {
    if (this.phase === 'ending') return;
    const { d } = this;
    const boundBefore = this.boundMs();
    const approvalsBefore = this.approvalsOpen;
    d.activity.touch(event.description);
    if (event.approval === 'opened') this.approvalsOpen += 1;
    if (event.approval === 'closed') this.approvalsOpen = Math.max(0, this.approvalsOpen - 1);
    this.waitingOn = this.approvalsOpen > 0 ? { kind: 'approval' } : event.waitingOn;
    this.tools.observe(event.update);
    if (event.update) this.persist({ type: 'agentUpdate', turnId: d.turnId, update: event.update });
    if (event.notice) this.persist({ type: 'notice', turnId: d.turnId, level: 'info', text: event.notice });
    if (approvalsBefore !== this.approvalsOpen && (approvalsBefore === 0 || this.approvalsOpen === 0)) {
      d.emit({ type: 'approvalWaiting', sessionId: d.sessionId, turnId: d.turnId, open: this.approvalsOpen > 0 });
    }
    // A shorter bound, or the end of an approval wait, must take effect now, not at the old deadline.
    if (d.settings.enabled && this.phase === 'running' && (boundBefore !== this.boundMs() || approvalsBefore !== this.approvalsOpen)) this.watchdog.arm();
    const now = d.clock.now();
    if (now - this.lastActivityEmit >= d.activityThrottleMs) {
      this.lastActivityEmit = now;
      d.emit({ type: 'activity', sessionId: d.sessionId, turnId: d.turnId, description: event.description, waitingOn: this.waitingOn });
    }
  }

  /** A notice record in this turn's transcript (shown by every window that follows it). */
  note(level: 'info' | 'warning' | 'error', text: string): void {
    if (this.phase !== 'ending') this.persist({ type: 'notice', turnId: this.d.turnId, level, text });
  }

  userAbort(reason: string): Promise<boolean> {
    return this.abort.userAbort(reason);
  }

  reserveBarrier(name: string): PendingBarrier {
    return this.barriers.reserve(name);
  }

  snapshot(): TurnSnapshot {
    const { d } = this;
    return {
      sessionId: d.sessionId,
      turnId: d.turnId,
      source: d.source,
      phase: this.phase,
      waitingOn: this.waitingOn,
      lastActivity: d.activity.lastActivity,
      generation: d.activity.generation,
      silenceMs: d.activity.silenceMs(),
      leaseRenewing: this.refresher.renewing,
      startedAt: this.startedAt,
    };
  }

  private boundMs(): number {
    const w = this.waitingOn;
    return w.kind === 'tool' && !w.observable ? this.d.settings.toolTimeoutMs : this.d.settings.timeoutMs;
  }

  private async prompt(text: string): Promise<PromptResult> {
    const { d } = this;
    try {
      const got = await Promise.race([d.agents.get(d.sessionId).then((handle) => ({ handle })), this.forced]);
      if (!('handle' in got)) return got;
      this.handle = got.handle;
      if (this.interruptState) return { kind: 'killed', reason: this.interruptState.message };
      const prompt = got.handle.prompt({ sessionId: d.sessionId, turnId: d.turnId, text, attachments: d.attachments, ...(d.redo?.replaced ? { rewritesHistory: true } : {}), onEvent: (e) => this.onAgentEvent(e), stored: () => this.writer.flush(), ...(d.adopted ? { adopted: { silentFor: (ms: number) => this.adopt(ms), startedAt: this.startedAt, epoch: d.token.epoch } } : {}) });
      return await Promise.race([
        prompt.then(
          (outcome): PromptResult => ({ kind: 'outcome', outcome }),
          (error: unknown): PromptResult => ({ kind: 'error', error }),
        ),
        this.forced,
      ]);
    } catch (error) {
      return { kind: 'error', error };
    }
  }

  private killAgent(reason: string): void {
    if (this.killRequested !== undefined || this.phase === 'ending') return;
    this.killRequested = reason;
    const { d } = this;
    d.logger.error(`Killing the agent process tree of session ${d.sessionId}: ${reason}`);
    d.emit({
      type: 'escalated', sessionId: d.sessionId, turnId: d.turnId,
      message: 'The agent did not stop, so Vigil is ending its process',
      detail: `The next message starts a new agent process.\nKilling the agent's process tree: ${reason}`,
    });
    const done = () => this.resolveForced({ kind: 'killed', reason });
    // A kill that hangs must not hang the turn: it ends as interrupted after a bounded wait.
    const timer = d.clock.setTimer(KILL_SETTLE_MS, done);
    const handle = this.handle;
    const kill = handle ? this.mayStopAgent('the agent').then((mine) => (mine ? handle.kill(reason) : undefined)) : Promise.resolve();
    kill
      .catch((error: unknown) => d.logger.error(`Killing the agent of session ${d.sessionId} failed: ${errorMessage(error)}`))
      .finally(() => {
        timer.cancel();
        done();
      });
  }

  /** Whether this window may still stop the agent (agentFence.ts); says so in the log when it may not. */
  private async mayStopAgent(what: string): Promise<boolean> {
    const { d } = this;
    if (await ownsAgent(this.handle, d.lease, d.token)) return true;
    d.logger.warn(`Session ${d.sessionId}, turn ${d.turnId}: not stopping ${what}: another window holds the session's lease (epoch ${d.token.epoch} is no longer current) and the agent behind the relay is its now`);
    return false;
  }

  private persist(record: RecordInput): void {
    this.writer.append(record).catch((error: unknown) => this.onWriteError(error));
  }

  private onWriteError(error: unknown): void {
    const { d } = this;
    if (isVigilError(error, 'STALE_EPOCH')) {
      d.logger.error(`Session ${d.sessionId}: ${errorMessage(error)}`);
      if (this.refresher.renewing) void this.abort.leaseLost();
      return;
    }
    d.logger.error(`Session ${d.sessionId}: transcript write failed: ${errorMessage(error)}`);
    d.emit({ type: 'notice', sessionId: d.sessionId, level: 'error', message: errorMessage(error) });
  }

  private endOf(result: PromptResult): { reason: TurnEndReason; message?: string } {
    const published = this.interruptState;
    if (published) return { reason: published.cause === 'user' ? 'aborted' : 'interrupted', message: published.message };
    // The prompt failing because we killed the agent is the kill's outcome, not an agent failure; why it was killed is in the log.
    if (this.killRequested !== undefined && result.kind === 'error') return { reason: 'interrupted', message: summaries.stoppedAgentEnded };
    switch (result.kind) {
      case 'killed':
        return { reason: 'interrupted', message: summaries.stoppedAgentEnded };
      case 'error': {
        const cause = (result.error as { cause?: unknown })?.cause as AgentFailure | undefined;
        if (cause && typeof cause === 'object' && typeof cause.code === 'string') this.failure = cause;
        if (cause?.notTakenBack) return { reason: 'interrupted', message: errorMessage(result.error) };
        return { reason: 'failed', message: errorMessage(result.error) };
      }
      case 'outcome':
        return { reason: result.outcome.stopReason === 'cancelled' ? 'cancelled' : 'completed' };
      default: {
        const never: never = result;
        return never;
      }
    }
  }

  /** In order: stop the refresher, cancel the watchdog, close the transcript, clear our own interrupt, release. */
  private async teardown(result: PromptResult): Promise<TurnEnded> {
    const { d } = this;
    const { reason, message } = this.endOf(result);
    this.phase = 'ending';
    this.refresher.stop();
    this.watchdog.cancel();
    this.abort.dispose();
    d.onEnding?.();
    const records: RecordInput[] = [];
    // Stop means stop: what the agent started in a stopped turn and left running is stopped too, and said so.
    // Fenced: what a relayed agent runs is no longer this window's once another took the session's lease.
    if ((reason === 'cancelled' || reason === 'aborted' || reason === 'interrupted') && (await this.mayStopAgent('its leftover processes'))) {
      const stopped = await reportLeftovers(this.handle, d);
      if (stopped) records.push({ type: 'notice', turnId: d.turnId, level: 'info', text: stopped });
    }
    // Whatever the reason, also a normal end: a call the agent left pending or running will never finish now.
    for (const toolCallId of this.tools.openIds()) {
      records.push({ type: 'syntheticToolResult', turnId: d.turnId, toolCallId, ...ENDED_WITHOUT_RESULT });
    }
    if (this.checkpoint) records.push({ type: 'checkpoint', turnId: d.turnId, ...(await checkpointFields(d.clock, this.checkpoint, CHECKPOINT_BOUND_MS)) });
    records.push({ type: 'turnEnded', turnId: d.turnId, reason, message });
    // Bounded: on a hung disk the turn still ends and releases its lease; the record follows if the disk recovers
    // (fenced, so it never lands in a later holder's turn).
    const recorded = this.recordEnd(records, reason, message);
    if (!(await within(d.clock, recorded, END_RECORD_BOUND_MS))) {
      d.logger.error(`Session ${d.sessionId}: the end of turn ${d.turnId} was not stored within ${END_RECORD_BOUND_MS / 1000} s (storage not answering); ending the turn anyway`);
    }
    if (d.interruptSlot.state?.turnId === d.turnId) d.interruptSlot.state = undefined;
    try {
      await d.lease.release(d.token);
    } catch (error) {
      d.logger.error(`Session ${d.sessionId}: releasing the turn lease failed (it will expire): ${errorMessage(error)}`);
    }
    const remedies = reason === 'failed' ? this.failure?.remedies : undefined;
    return { sessionId: d.sessionId, turnId: d.turnId, source: d.source, reason, message, ...(remedies?.length ? { remedies } : {}) };
  }

  private async recordEnd(records: RecordInput[], reason: TurnEndReason, message: string | undefined): Promise<void> {
    const { d } = this;
    try {
      await this.writer.append(records);
      const state: SessionState = reason === 'interrupted' ? 'interrupted' : reason === 'aborted' ? 'aborted' : 'idle';
      const patch: Partial<SessionMeta> = state !== d.initialState ? { state, stateReason: message } : {};
      // The wakeup pause is stored here, under the lease and before its release, so the next holder in
      // any window (a wakeup, a drain, a sweep) reads it.
      if (this.failure && (this.failure.code === 'PROVIDER_AUTH' || this.failure.code === 'PROVIDER_QUOTA')) patch.wakeupsPaused = this.failure.message;
      else if (reason === 'completed' && d.source === 'user' && d.pausedAtStart) patch.wakeupsPaused = undefined;
      if (Object.keys(patch).length > 0) await d.store.update(d.sessionId, patch, d.lease.guard(d.token));
    } catch (error) {
      d.logger.error(`Session ${d.sessionId}: could not record the end of turn ${d.turnId}: ${errorMessage(error)}`);
    }
  }
}
