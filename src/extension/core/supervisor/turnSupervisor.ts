// The turn supervisor: admits turns under the session lease, runs them, and offers abort, events and status.

import { randomUUID } from 'node:crypto';
import { Disposable, toDisposable } from '../common/disposable';
import { EventHub, type Unsubscribe } from '../common/events';
import { errorMessage, isVigilError } from '../common/errors';
import type { AgentHandleProvider, WaitingOn } from '../ports/agentHandle';
import type { CheckpointPort } from '../ports/checkpoints';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { AdmissionHook, StartTurnOptions, StartTurnResult, TurnEnded, TurnEnding, TurnPort } from '../ports/turns';
import { TurnLeaseStore } from '../lease/turnLease';
import { SessionStore, type SessionMeta } from '../store/sessionStore';
import type { Redactor } from '../common/redactor';
import { checkSessionId } from '../store/storePaths';
import type { LivenessSettings } from './livenessSettings';
import { ActivityClock } from './activityClock';
import type { PendingBarrier } from './commitBarriers';
import { admitPrompt } from './promptAdmission';
import { acquireForTurn, DEFAULT_BUSY_WAIT, type BusyWaitOptions } from './leaseWait';
import { recoverSession } from './recovery';
import { TurnRun } from './turnRun';
import type { InterruptState, SupervisorEvent, SupervisorHooks, TurnSnapshot } from './supervisorEvents';

export interface TurnSupervisorOptions {
  storageRoot: string;
  clock: Clock;
  logger: Logger;
  agents: AgentHandleProvider;
  /** Read at every turn start, so a settings change applies to the next turn. */
  settings: () => LivenessSettings;
  windowId: string;
  /** Default 30 s; refreshed every ttl / 3. */
  leaseTtlMs?: number;
  hooks?: SupervisorHooks;
  busyWait?: Partial<BusyWaitOptions>;
  /** Minimum spacing of `activity` events per turn (default 250 ms). */
  activityThrottleMs?: number;
  /** Secrets to keep out of transcripts and session metadata. */
  redactor?: Redactor;
  /** Snapshots of each turn's folder (core/checkpoints); absent: turns take none. */
  checkpoints?: CheckpointPort;
}

interface SessionSlot {
  activity: ActivityClock;
  interrupt: { state?: InterruptState };
  turn?: TurnRun;
  acquiring?: AbortController;
  /** This window's last unpause write: a read here never overtakes it (other windows read the disk). */
  pauseWrite?: Promise<void>;
}

export class TurnSupervisor extends Disposable implements TurnPort {
  readonly sessions: SessionStore;
  readonly lease: TurnLeaseStore;
  private readonly slots = new Map<string, SessionSlot>();
  private readonly events = new EventHub<SupervisorEvent>();
  private readonly teardown = new EventHub<TurnEnded>();
  private readonly ending = new EventHub<TurnEnding>();
  private admissionHook: AdmissionHook | undefined;
  /** Why a session's last turn ended, known before its recovery marks it (its relay's deadline). */
  private readonly interruptions = new Map<string, string>();
  private readonly busyWait: BusyWaitOptions;

  constructor(private readonly o: TurnSupervisorOptions) {
    super();
    this.sessions = new SessionStore(o.storageRoot, o.logger, () => o.clock.wallNow(), o.redactor);
    this.lease = new TurnLeaseStore(o.storageRoot, o.clock, o.logger, { ttlMs: o.leaseTtlMs ?? 30_000 });
    this.busyWait = { ...DEFAULT_BUSY_WAIT, ...o.busyWait };
    // Running turns are left to end (or to lapse and be reclaimed); waits for a busy lease stop at once.
    this._register(
      toDisposable(() => {
        for (const slot of this.slots.values()) slot.acquiring?.abort();
        this.events.clear();
        this.ending.clear();
      }),
    );
  }

  subscribe(listener: (event: SupervisorEvent) => void): Unsubscribe {
    return this.events.subscribe(listener);
  }

  onTurnTeardown(listener: (ended: TurnEnded) => void): Unsubscribe {
    return this.teardown.subscribe(listener);
  }

  onTurnEnding(listener: (ending: TurnEnding) => void): Unsubscribe {
    return this.ending.subscribe(listener);
  }

  setAdmissionHook(hook: AdmissionHook | undefined): void {
    if (hook && this.admissionHook) throw new Error('An admission hook is already set');
    this.admissionHook = hook;
  }

  /**
   * The pause is one durable fact shared by every window (a turn in another window may set or clear it),
   * so it is read from the session's metadata at every decision, never cached.
   */
  async isPaused(sessionId: string): Promise<boolean> {
    await this.slots.get(sessionId)?.pauseWrite;
    return (await this.sessions.get(sessionId).catch(() => undefined))?.wakeupsPaused !== undefined;
  }

  /** Lets wakeups run again after the person fixed the credential or quota problem. */
  unpause(sessionId: string): Promise<void> {
    const slot = this.slot(sessionId);
    const write = (slot.pauseWrite ?? Promise.resolve()).then(async () => {
      try {
        if ((await this.sessions.get(sessionId))?.wakeupsPaused === undefined) return;
        await this.sessions.update(sessionId, { wakeupsPaused: undefined });
      } catch (error) {
        this.o.logger.error(`Session ${sessionId}: clearing the wakeup pause failed: ${errorMessage(error)}`);
      }
    });
    slot.pauseWrite = write;
    void write.then(() => {
      if (slot.pauseWrite === write) slot.pauseWrite = undefined;
    });
    return write;
  }

  async hasActiveTurn(sessionId: string): Promise<boolean> {
    const slot = this.slots.get(sessionId);
    if (slot?.turn || slot?.acquiring) return true;
    return (await this.lease.liveHolder(sessionId)) !== undefined;
  }

  getSnapshot(sessionId: string): TurnSnapshot | undefined {
    return this.slots.get(sessionId)?.turn?.snapshot();
  }

  /** The interrupt state published for a session's current turn, if any (for tools and tests). */
  interruptState(sessionId: string): InterruptState | undefined {
    return this.slots.get(sessionId)?.interrupt.state;
  }

  /** Activity that does not come through the agent handle (e.g. output of a command the turn waits on). */
  reportActivity(sessionId: string, description: string, waitingOn: WaitingOn): void {
    this.slots.get(sessionId)?.turn?.onAgentEvent({ description, waitingOn });
  }

  /** A notice in the session's active turn, persisted under its epoch (e.g. why an approval was answered without the person). */
  recordNotice(sessionId: string, level: 'info' | 'warning' | 'error', text: string): void {
    this.slots.get(sessionId)?.turn?.note(level, text);
  }

  /** Reserves a commit barrier in the session's active turn (file edit, compaction); undefined if none. */
  reserveBarrier(sessionId: string, name: string): PendingBarrier | undefined {
    return this.slots.get(sessionId)?.turn?.reserveBarrier(name);
  }

  /** The person's Abort. A turn still waiting for the lease stops waiting at once. */
  async abort(sessionId: string, reason = 'Aborted by you'): Promise<boolean> {
    const slot = this.slots.get(sessionId);
    // A turn registered while its prompt is being stored is past the wait: abort the turn itself.
    if (slot?.turn) return slot.turn.userAbort(reason);
    if (slot?.acquiring) {
      slot.acquiring.abort(reason);
      return true;
    }
    return false;
  }

  /** The reason the recovery of this session's interrupted turn records (once), instead of "the window closed". */
  noteInterruption(sessionId: string, reason: string): void {
    this.interruptions.set(sessionId, reason);
  }

  private knownInterruption(sessionId: string): string | undefined {
    const reason = this.interruptions.get(sessionId);
    this.interruptions.delete(sessionId);
    return reason;
  }

  listResumable(): Promise<SessionMeta[]> {
    return this.sessions.listResumable();
  }

  /** Startup scan: reclaims every lease whose holder died or lapsed mid-turn and marks the session interrupted. */
  async recoverInterrupted(): Promise<string[]> {
    const recovered: string[] = [];
    for (const meta of await this.sessions.list()) {
      // A turn this window runs or is taking back (after a reload) is not the dead holder's to recover.
      if (this.slots.get(meta.id)?.turn || this.slots.get(meta.id)?.acquiring) continue;
      try {
        if (await recoverSession(this.sessions, this.lease, meta.id, this.o.windowId, this.o.logger, undefined, this.knownInterruption(meta.id))) recovered.push(meta.id);
      } catch (error) {
        this.o.logger.error(`Recovering session ${meta.id} failed: ${errorMessage(error)}`);
      }
    }
    return recovered;
  }

  // eslint-disable-next-line max-lines-per-function -- the admission of a turn, whose one-way rework (issue 27, item 1) splits it
  async startTurn(sessionId: string, prompt: string, options: StartTurnOptions): Promise<StartTurnResult> {
    let meta: SessionMeta | undefined;
    try {
      checkSessionId(sessionId);
      meta = await this.sessions.get(sessionId);
      if (!meta) return { kind: 'failed', reason: `Session ${sessionId} does not exist` };
    } catch (error) {
      return { kind: 'failed', reason: errorMessage(error) };
    }
    const slot = this.slot(sessionId);
    // Checked and claimed with no await in between: one turn per session in this window.
    if (slot.turn || slot.acquiring) return { kind: 'busy' };
    // Cheap early answer; the authoritative one is read again under the lease below.
    if (options.source === 'wakeup' && meta.wakeupsPaused !== undefined) return { kind: 'paused' };
    const turnId = randomUUID();
    const acquiring = new AbortController();
    slot.acquiring = acquiring;
    const onCallerAbort = () => acquiring.abort();
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (options.signal?.aborted) acquiring.abort();
    let run: TurnRun | undefined;
    try {
      await slot.pauseWrite;
      const holder = { ...this.lease.holderFor(this.o.windowId, turnId), ...(options.pendingWakeup ? { tentative: true as const } : {}) };
      const got = await acquireForTurn({
        lease: this.lease,
        clock: this.o.clock,
        sessionId,
        holder,
        wait: options.source !== 'wakeup',
        signal: acquiring.signal,
        options: this.busyWait,
        notice: (message, waitedMs) => this.emit({ type: 'busyWaiting', sessionId, message, waitedMs }),
      });
      if (got.kind === 'busy') return got.holder.tentative ? { kind: 'busy', tentative: true } : { kind: 'busy' };
      if (got.kind === 'aborted') return { kind: 'failed', reason: 'Aborted while waiting for the session to become free' };
      if (got.kind === 'timedOut') return { kind: 'failed', reason: `Session busy: another window kept this session for ${Math.round(got.waitedMs / 1000)} s. Try again.` };
      // Under the lease the metadata is stable (only a turn's end, under the lease, sets the pause): read it fresh.
      // A failed read keeps the metadata read at the start rather than leave the acquired lease unreleased.
      meta = (await this.sessions.get(sessionId).catch(() => undefined)) ?? meta;
      if (options.source === 'wakeup' && meta.wakeupsPaused !== undefined) {
        await this.lease.release(got.token).catch((e: unknown) => this.o.logger.warn(`Releasing the lease failed: ${errorMessage(e)}`));
        return { kind: 'paused' };
      }
      if (got.reclaimed) {
        await recoverSession(this.sessions, this.lease, sessionId, this.o.windowId, this.o.logger, { token: got.token, previous: got.reclaimed.previous, cause: got.reclaimed.cause }, this.knownInterruption(sessionId));
      }
      let taskIds = options.taskIds;
      if (options.pendingWakeup) {
        const wakeup = await options.pendingWakeup.catch(() => undefined);
        if (!wakeup) {
          await this.lease.release(got.token).catch((e: unknown) => this.o.logger.warn(`Releasing the lease failed: ${errorMessage(e)}`));
          return { kind: 'failed', reason: 'The wakeup had nothing to deliver' };
        }
        prompt = wakeup.prompt;
        taskIds = wakeup.taskIds;
      }
      run = new TurnRun({
        sessionId,
        turnId,
        source: options.source,
        clock: this.o.clock,
        logger: this.o.logger,
        hooks: this.o.hooks ?? {},
        settings: this.o.settings(),
        activity: slot.activity,
        lease: this.lease,
        token: got.token,
        store: this.sessions,
        agents: this.o.agents,
        interruptSlot: slot.interrupt,
        emit: (event) => this.emit(event),
        activityThrottleMs: this.o.activityThrottleMs ?? 250,
        // User and resume turns clear the resumable state at admission; a reclaim just set it.
        initialState: options.source !== 'wakeup' ? 'idle' : got.reclaimed ? 'interrupted' : meta.state,
        pausedAtStart: meta.wakeupsPaused !== undefined,
        attachments: options.attachments, redo: options.redo,
        ...(taskIds ? { taskIds } : {}),
        checkpoints: this.o.checkpoints,
        onEnding: () => this.ending.emit({ sessionId, turnId }, (error) => this.o.logger.error(`A turn ending listener failed: ${errorMessage(error)}`)),
      });
      slot.turn = run;
      const clearState = options.source !== 'wakeup' && (meta.state !== 'idle' || got.reclaimed !== undefined);
      const admitted = await admitPrompt({ hook: this.admissionHook, run, sessionId, turnId, source: options.source, prompt, logger: this.o.logger, lease: this.lease, token: got.token, sessions: this.sessions, clearState, abandon: () => (slot.turn = undefined) });
      if (admitted.kind !== 'stored') {
        return { kind: 'failed', reason: admitted.kind === 'lost' ? 'Another window delivered what this wakeup was to carry' : 'The prompt could not be stored' };
      }
      const text = admitted.text;
      const started = run;
      const ended = started.run(text).then((e) => this.finish(slot, started, e));
      return { kind: 'started', turnId, ended };
    } catch (error) {
      if (run && slot.turn === run) slot.turn = undefined;
      const reason = isVigilError(error) ? error.message : `Starting the turn failed: ${errorMessage(error)}`;
      this.o.logger.error(`Session ${sessionId}: ${reason}`);
      return { kind: 'failed', reason };
    } finally {
      options.signal?.removeEventListener('abort', onCallerAbort);
      if (slot.acquiring === acquiring) slot.acquiring = undefined;
    }
  }

  /**
   * Takes back the turn an earlier window of this session began and could not finish (a reload, a closed
   * window): its agent still runs behind the relay. The lease is re-taken through the reclaim path (its
   * holder died or lapsed; fencing makes the old holder's late writes fail), but the session is not marked
   * interrupted: the same turn id goes on, its prompt already stored, its silence so far counted.
   * Resolves once the turn is registered (or could not be); `ended` settles at its end.
   */
  async adoptTurn(sessionId: string, options: { signal?: AbortSignal } = {}): Promise<StartTurnResult> {
    const slot = this.slot(sessionId);
    if (slot.turn || slot.acquiring) return { kind: 'busy' };
    const acquiring = new AbortController();
    slot.acquiring = acquiring;
    options.signal?.addEventListener('abort', () => acquiring.abort(), { once: true });
    try {
      const meta = await this.sessions.get(sessionId);
      const record = await this.lease.read(sessionId);
      const previous = record?.holder;
      if (!meta || !previous) return { kind: 'failed', reason: 'no turn of this session was running' };
      const turnId = previous.turnId;
      const got = await acquireForTurn({
        lease: this.lease, clock: this.o.clock, sessionId, holder: this.lease.holderFor(this.o.windowId, turnId),
        // Never waits: a live holder is a window that took the turn back first (two windows starting at once);
        // this one follows it, as any second window does, instead of holding its start until that turn ends.
        wait: false, signal: acquiring.signal, options: this.busyWait, notice: () => undefined,
      });
      if (got.kind !== 'acquired') return { kind: 'busy' };
      if (!got.reclaimed || got.reclaimed.previous.turnId !== turnId) {
        // Someone else ran a turn in between: the earlier one is not there to take back.
        await this.lease.release(got.token).catch(() => undefined);
        return { kind: 'busy' };
      }
      const run = new TurnRun({
        sessionId, turnId, source: 'user', clock: this.o.clock, logger: this.o.logger, hooks: this.o.hooks ?? {}, settings: this.o.settings(),
        activity: slot.activity, lease: this.lease, token: got.token, store: this.sessions, agents: this.o.agents, interruptSlot: slot.interrupt,
        emit: (event) => this.emit(event), activityThrottleMs: this.o.activityThrottleMs ?? 250, initialState: meta.state,
        pausedAtStart: meta.wakeupsPaused !== undefined, checkpoints: this.o.checkpoints, adopted: true,
        ...(record && record.acquiredAt > 0 ? { startedAt: record.acquiredAt } : {}),
        onEnding: () => this.ending.emit({ sessionId, turnId }, (error) => this.o.logger.error(`A turn ending listener failed: ${errorMessage(error)}`)),
      });
      run.adopt(0);
      slot.turn = run;
      this.o.logger.info(`Session ${sessionId}: took back turn ${turnId} from ${got.reclaimed.cause === 'holder-dead' ? 'a window that is gone' : 'a lapsed window'}`);
      const ended = run.run('').then((e) => this.finish(slot, run, e));
      return { kind: 'started', turnId, ended };
    } catch (error) {
      return { kind: 'failed', reason: errorMessage(error) };
    } finally {
      if (slot.acquiring === acquiring) slot.acquiring = undefined;
    }
  }

  /** After the turn's own teardown (lease released): unregister, tell the UI, then the teardown hook. */
  private finish(slot: SessionSlot, run: TurnRun, ended: TurnEnded): TurnEnded {
    // The wakeup pause was stored by the turn's own teardown, under its lease, before the release.
    if (slot.turn === run) slot.turn = undefined;
    this.emit({ type: 'turnEnded', ended });
    this.teardown.emit(ended, (error) => this.o.logger.error(`A turn teardown listener failed: ${errorMessage(error)}`));
    return ended;
  }

  private slot(sessionId: string): SessionSlot {
    let slot = this.slots.get(sessionId);
    if (!slot) {
      slot = { activity: new ActivityClock(this.o.clock), interrupt: {} };
      this.slots.set(sessionId, slot);
    }
    return slot;
  }

  private emit(event: SupervisorEvent): void {
    this.events.emit(event, (error) => this.o.logger.error(`A supervisor event listener failed: ${errorMessage(error)}`));
  }
}
