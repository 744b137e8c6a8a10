// The generation-bound abort of docs/turn-supervisor.md: observe, R1, R2, non-destructive barrier wait, R3 (consume + publish), settle, escalate.

import type { Clock, TimerHandle } from '../ports/clock';
import type { Logger } from '../ports/logger';
import { describeWaitingOn, type WaitingOn } from '../ports/agentHandle';
import { noProgressFor, STOPPED_MEANS, STOPPING, summaries } from '../../../shared/turnWords';
import type { LivenessSettings } from './livenessSettings';
import type { ActivityClock, ActivitySample } from './activityClock';
import type { CommitBarriers } from './commitBarriers';
import type { AbortCause, InterruptState, ParkingContext, SupervisorEvent, SupervisorHooks } from './supervisorEvents';

export interface AbortContext {
  sessionId: string;
  turnId: string;
  clock: Clock;
  logger: Logger;
  hooks: SupervisorHooks;
  settings: LivenessSettings;
  activity: ActivityClock;
  barriers: CommitBarriers;
  emit(event: SupervisorEvent): void;
  waitingOn(): WaitingOn;
  boundMs(): number;
  isRunning(): boolean;
  /** Publishes the interrupt state (docs/turn-supervisor.md R3); must be synchronous. */
  publish(state: InterruptState): void;
  /** Stops lease renewal (settle). */
  deactivate(): void;
  /** Re-arms the watchdog after a declined or failed attempt. */
  rearmWatchdog(delayMs?: number): void;
  stopWatchdog(): void;
  /** `session/cancel`, best effort. */
  cancelAgent(): void;
  /** Kills the agent's process tree and ends the turn as interrupted (needs no cooperation). */
  killAgent(reason: string): void;
}

const RETRY_AFTER_FAILED_INTERRUPT_MS = 1_000;

export class AbortProtocol {
  private observedGeneration = -1;
  private published: InterruptState | undefined;
  private failing: { since: number; generation: number } | undefined;
  private graceTimer: TimerHandle | undefined;
  /** Set when the abort's barrier wait ran out: the barriers that never finished. */
  private stuckBarriers: string[] | undefined;
  private readonly hardCancel = new AbortController();

  constructor(private readonly ctx: AbortContext) {}

  get interruptState(): InterruptState | undefined {
    return this.published;
  }

  /** Watchdog path: silence reached the bound at `sample`. */
  async onStall(sample: ActivitySample, silentMs: number): Promise<void> {
    const { ctx } = this;
    if (!ctx.isRunning() || this.published) return;
    const seconds = Math.round(silentMs / 1000);
    const park = this.parking(sample.generation);
    const waiting = describeWaitingOn(ctx.waitingOn());
    if (this.observedGeneration !== sample.generation) {
      this.observedGeneration = sample.generation;
      ctx.logger.error(`Turn liveness watchdog fired for session ${ctx.sessionId} (turn ${ctx.turnId}): No progress for ${seconds} s (waiting on: ${waiting}) — attempting recovery.`);
      ctx.emit({
        type: 'stallObserved', sessionId: ctx.sessionId, turnId: ctx.turnId, seconds, waitingOn: ctx.waitingOn(),
        message: summaries.stall(seconds),
        detail: `${noProgressFor(seconds, waiting)} ${STOPPING}; if the agent makes progress first, the turn goes on.\nThe liveness watchdog fired and is attempting recovery; activity that lands first cancels the attempt.`,
      });
    }
    try {
      await ctx.hooks.afterObserve?.(park);
      if (!ctx.activity.matches(sample)) return this.decline('activity landed before R1');
      await ctx.hooks.afterR1?.(park);
      const committed = await this.interrupt('watchdog', summaries.stoppedNoProgress(seconds), sample.generation);
      if (!committed) return this.decline('activity landed before the claim was consumed');
    } catch (error) {
      return this.failClosed(error, sample);
    }
    this.failing = undefined;
    const stuck = this.stuckBarriers;
    const said = `${noProgressFor(seconds, waiting)} ${STOPPED_MEANS}`;
    const renewal = 'lease renewal stopped so the session can be reclaimed.';
    if (stuck) {
      // The in-flight commit (e.g. a transcript write on a hung disk) outlasted the grace: cancelling cannot
      // help an agent we cannot observe finishing, so escalate at once, as for a refused cancel.
      const grace = Math.round(ctx.settings.graceMs / 100) / 10;
      const commit = `the commit "${stuck.join('", "')}" did not finish within ${grace} s`;
      this.settle(
        'watchdog',
        { message: summaries.stoppedNoProgress(seconds), detail: `${said}\nTurn aborted by the liveness watchdog (${seconds} s without progress; ${commit}, so the agent was killed); ${renewal}` },
        `${commit} of the abort`,
      );
      return;
    }
    this.settle('watchdog', { message: summaries.stoppedNoProgress(seconds), detail: `${said}\nTurn aborted by the liveness watchdog (${seconds} s without progress); ${renewal}` });
  }

  /** The person's Abort: same path without a generation requirement; publishes at once. */
  async userAbort(reason: string): Promise<boolean> {
    const said = reason || summaries.stoppedByYou;
    if (!(await this.interrupt('user', said))) return false;
    this.settle('user', { message: said, detail: STOPPED_MEANS });
    return true;
  }

  /** A lease loss during an active turn: a hard interrupt, no generation involved. */
  async leaseLost(): Promise<void> {
    if (!(await this.interrupt('leaseLost', summaries.stoppedTakenOver))) return;
    this.ctx.emit({ type: 'leaseLost', sessionId: this.ctx.sessionId, turnId: this.ctx.turnId, message: 'Session turn lease lost' });
    this.settle('leaseLost', {
      message: summaries.stoppedTakenOver,
      detail: `${STOPPED_MEANS}\nThis window lost the session's turn lease (another window holds it now), so its turn was interrupted.`,
    });
  }

  /**
   * docs/turn-supervisor.md R2, then the non-destructive barrier wait, then R3: the claim is consumed and the interrupt
   * state published in one synchronous section, so no `touch()` can land in between.
   */
  async interrupt(cause: AbortCause, message: string, requireGeneration?: number): Promise<boolean> {
    const { ctx } = this;
    if (!ctx.isRunning() || this.published) return false;
    const park = this.parking(requireGeneration ?? ctx.activity.generation);
    if (requireGeneration !== undefined) {
      if (!ctx.activity.reserve(requireGeneration)) return false;
      await ctx.hooks.afterR2?.(park);
      if (ctx.barriers.inFlightCount > 0) {
        const parked = ctx.hooks.insideBarrierWait?.(park);
        const stuck = await this.waitForBarriers();
        await parked;
        if (stuck) this.stuckBarriers = stuck;
      }
      await ctx.hooks.atConsumePublishEdge?.(park);
    }
    // ---- one synchronous section: no await below this line until `return` ----
    if (requireGeneration !== undefined && !ctx.activity.consume(requireGeneration)) return false;
    if (!ctx.isRunning() || this.published) return false;
    const state: InterruptState = {
      turnId: ctx.turnId,
      cause,
      message,
      toolReason: cause === 'watchdog' ? 'turn liveness watchdog fired' : message,
      hardCancel: this.hardCancel.signal,
    };
    this.published = state;
    this.hardCancel.abort(message);
    ctx.publish(state);
    ctx.hooks.onPublished?.(park, state);
    ctx.barriers.cancelPending();
    return true;
  }

  /** Clears the grace timer when the turn ends. */
  dispose(): void {
    this.graceTimer?.cancel();
    this.graceTimer = undefined;
  }

  /**
   * Non-destructive and bounded: waits for the in-flight barriers at most `graceMs` (a write on a hung disk
   * never finishes). Resolves undefined when they finished, else the names of those still in flight.
   */
  private async waitForBarriers(): Promise<string[] | undefined> {
    const { ctx } = this;
    let timer: TimerHandle | undefined;
    const expired = new Promise<'expired'>((resolve) => (timer = ctx.clock.setTimer(ctx.settings.graceMs, () => resolve('expired'))));
    try {
      const got = await Promise.race([ctx.barriers.waitInFlight().then(() => 'finished' as const), expired]);
      if (got === 'finished') return undefined;
      const names = ctx.barriers.inFlightNames;
      ctx.logger.error(`Session ${ctx.sessionId}: the abort of turn ${ctx.turnId} waited ${ctx.settings.graceMs} ms for the in-flight commit "${names.join('", "')}"; escalating`);
      return names.length > 0 ? names : undefined;
    } finally {
      timer?.cancel();
    }
  }

  /** `killNow`: the grace was already spent (waiting on a stuck commit): kill without another round of cancel. */
  private settle(cause: AbortCause, notice: { message: string; detail: string }, killNow?: string): void {
    const { ctx } = this;
    ctx.deactivate();
    ctx.stopWatchdog();
    if (cause === 'watchdog') ctx.logger.error(`Liveness watchdog aborted turn ${ctx.turnId} of session ${ctx.sessionId}; lease renewal stopped`);
    ctx.emit({ type: 'abortCommitted', sessionId: ctx.sessionId, turnId: ctx.turnId, cause, ...notice });
    if (killNow !== undefined) {
      ctx.cancelAgent();
      ctx.killAgent(killNow);
      return;
    }
    this.escalate();
  }

  private escalate(): void {
    const { ctx } = this;
    ctx.cancelAgent();
    this.graceTimer = ctx.clock.setTimer(ctx.settings.graceMs, () => {
      if (ctx.isRunning()) ctx.killAgent(`the agent did not stop within ${ctx.settings.graceMs / 1000} s of the abort`);
    });
  }

  private decline(why: string): void {
    this.ctx.logger.info(`Abort of turn ${this.ctx.turnId} declined: ${why}`);
    this.failing = undefined;
    this.ctx.rearmWatchdog();
  }

  /** Fail-closed: nothing is published and the lease keeps renewing; a further grace of silence escalates to a kill. */
  private failClosed(error: unknown, sample: ActivitySample): void {
    const { ctx } = this;
    ctx.logger.error(`Liveness abort of turn ${ctx.turnId} failed and was declined (nothing published): ${(error as Error)?.message ?? String(error)}`);
    if (!ctx.activity.matches(sample)) return this.decline('activity landed during a failed abort');
    // The further grace counts from the first failure for this generation of silence.
    if (this.failing?.generation !== sample.generation) this.failing = { since: ctx.clock.now(), generation: sample.generation };
    if (ctx.clock.now() - this.failing.since >= ctx.settings.graceMs) {
      const message = `The interrupt kept failing for ${Math.round(ctx.settings.graceMs / 1000)} s more of silence; killing the agent's process tree.`;
      ctx.stopWatchdog();
      ctx.emit({ type: 'escalated', sessionId: ctx.sessionId, turnId: ctx.turnId, message: 'The turn could not be stopped normally, so Vigil is ending the agent', detail: message });
      ctx.killAgent(message);
      return;
    }
    ctx.rearmWatchdog(Math.min(RETRY_AFTER_FAILED_INTERRUPT_MS, Math.max(1, ctx.settings.graceMs)));
  }

  private parking(generation: number): ParkingContext {
    return { sessionId: this.ctx.sessionId, turnId: this.ctx.turnId, generation };
  }
}
