// Delivery rules for background completions: idle start, defer while active, teardown drain, user-turn carry, sweep.

import { Disposable, toDisposable } from '../common/disposable';
import { errorMessage } from '../common/errors';
import { EventHub, type Unsubscribe } from '../common/events';
import { KeyedMutex } from '../common/keyedMutex';
import { systemClock, type Clock, type TimerHandle } from '../ports/clock';
import { silentLogger, tagged, type Logger } from '../ports/logger';
import type { StartTurnResult, TurnEnding } from '../ports/turns';
import type { TaskCompletion } from '../tasks/taskTypes';
import { readMaxPerTurn, type DeliveryOutcome, type DeliveryTrigger, type WakeupCoordinatorOptions, type WakeupEvent } from './deliveryTypes';
import { wakeupAdmissionHook } from './wakeupAdmission';
import { formatWakeupPrompt } from './wakeupPrompt';
import type { Claim } from './wakeupOutbox';

export { DEFAULT_MAX_PER_TURN, type DeliveryOutcome, type DeliveryTrigger, type WakeupCoordinatorOptions, type WakeupEvent } from './deliveryTypes';

export class WakeupCoordinator extends Disposable {
  private readonly hub = new EventHub<WakeupEvent>();
  private readonly clock: Clock;
  private readonly logger: Logger;
  /** The claim our own wakeup turn carries while its start is in flight, per session. */
  private readonly inflight = new Map<string, Claim>();
  /** Deliveries run one at a time per session. */
  private readonly serial = new KeyedMutex();
  private readonly queued = new Map<string, Promise<DeliveryOutcome>>();
  /** Outbox writes started outside a delivery (marking a carried claim delivered, releasing a late one). */
  private readonly background = new Set<Promise<unknown>>();
  /** Turns whose teardown drain began as they started to end; their teardown event asks for nothing more. */
  private readonly drainingEarly = new Set<string>();
  private sweepTimer: TimerHandle | undefined;
  private sweeping: Promise<void> | undefined;
  private started = false;

  constructor(private readonly options: WakeupCoordinatorOptions) {
    super();
    this.clock = options.clock ?? systemClock;
    this.logger = tagged(options.logger ?? silentLogger, 'wakeups');
  }

  /** Plugs into the supervisor: admission hook, teardown drain, idle sweep. */
  start(): void {
    if (this.started || this.isDisposed) return;
    this.started = true;
    this.options.turns.setAdmissionHook(
      wakeupAdmissionHook({
        turns: this.options.turns,
        outbox: this.options.outbox,
        clock: this.clock,
        logger: this.logger,
        mayDeliver: (sessionId) => this.options.mayDeliver?.(sessionId) ?? true,
        claimOptions: () => ({ max: this.maxPerTurn(), ttlMs: this.claimTtlMs, ignoreBackoff: true }),
        timeoutMs: this.options.admissionTimeoutMs ?? 2_000,
        inflight: (sessionId) => this.inflight.get(sessionId),
        markDelivered: (claim, via, turnId) => this.markDelivered(claim, via, turnId),
        retry: (sessionId) => this.request(sessionId, 'retry'),
        track: (work) => this.track(work),
      }),
    );
    this._register(toDisposable(() => this.options.turns.setAdmissionHook(undefined)));
    const off = this.options.turns.onTurnTeardown((ended) => {
      if (this.drainingEarly.delete(ended.turnId)) return;
      // docs/background-tasks.md Rule 9: never throw into, and never block, the turn that is ending.
      try {
        this.request(ended.sessionId, 'teardown').catch((error: unknown) => this.logger.error('teardown drain failed', error));
      } catch (error) {
        this.logger.error('teardown drain could not be scheduled', error);
      }
    });
    this._register(toDisposable(off));
    const offEnding = this.options.turns.onTurnEnding?.((ending) => {
      try {
        this.drainAtEnd(ending);
      } catch (error) {
        this.logger.error('the teardown drain could not be scheduled early', error);
      }
    });
    if (offEnding) this._register(toDisposable(offEnding));
    this.scheduleSweep();
    this._register(toDisposable(() => this.sweepTimer?.cancel()));
  }

  subscribe(listener: (event: WakeupEvent) => void): Unsubscribe {
    return this.hub.subscribe(listener);
  }

  /**
   * The registry's completion sink: durable first, then an idle session is woken (without awaiting the turn).
   * Resolves once the completion is stored.
   */
  readonly onCompletion = async (completion: TaskCompletion): Promise<void> => {
    // Nothing of the session under way in this window: store and claim in one append (see enqueueAndDeliver).
    if (!this.isDisposed && !this.serial.busy(completion.sessionId)) return this.enqueueAndDeliver(completion);
    const fresh = await this.options.outbox.enqueue(completion);
    this.emit({ type: 'enqueued', completion, duplicate: !fresh });
    if (this.isDisposed) return;
    // A duplicate still asks for delivery: the window that stored it first may be gone. The claim makes this idempotent.
    this.request(completion.sessionId, 'completion').catch((error: unknown) => this.logger.error('wakeup after a completion failed', error));
  };

  /**
   * The idle wakeup's short path: the delivery's three reads run while the outbox is locked, the completion's
   * enqueue and the claim share one durable append, and the wakeup turn takes its lease while that append is
   * written (its prompt waits for the claim). Resolves once the completion is stored; the delivery goes on, one
   * at a time with the session's others.
   */
  private enqueueAndDeliver(completion: TaskCompletion): Promise<void> {
    const sessionId = completion.sessionId;
    return new Promise<void>((stored, failed) => {
      const delivery = this.serial.run(sessionId, async () => {
        const blocked = this.blockedBy(sessionId);
        blocked.catch(() => undefined);
        const options = { max: this.maxPerTurn(), ttlMs: this.claimTtlMs };
        const appended = this.options.outbox.enqueueAndClaim(completion, blocked.then((why) => (why ? undefined : options)));
        const claimed = appended.then(
          (taken) => {
            stored();
            this.emit({ type: 'enqueued', completion, duplicate: !taken.fresh });
            return taken.claim;
          },
          (error: unknown) => {
            failed(error);
            throw error;
          },
        );
        claimed.catch(() => undefined);
        let why: DeliveryOutcome | undefined;
        try {
          why = await blocked;
        } catch (error) {
          this.logger.error(`wakeup delivery for ${sessionId} failed (completion); the completions stay in the outbox`, error);
          why = 'error';
        }
        let outcome: DeliveryOutcome;
        let claim: Claim | undefined;
        try {
          if (why) {
            await claimed;
            outcome = why;
          } else {
            outcome = await this.startWakeup(sessionId, claimed.then((c) => (claim = c)));
          }
        } catch (error) {
          // The append failed: the completion was not stored, and onCompletion rejects with the reason.
          if (!(await appended.then(() => true, () => false))) return;
          this.logger.error(`wakeup delivery for ${sessionId} failed (completion); the completions stay in the outbox`, error);
          outcome = 'error';
        }
        this.emit({ type: 'delivery', sessionId, trigger: 'completion', outcome, keys: claim?.keys ?? [] });
      });
      delivery.catch((error: unknown) => this.logger.error('wakeup after a completion failed', error));
    });
  }

  /**
   * The teardown drain of a turn that is ending, begun before its end record and the lease's release: the
   * claim is taken meanwhile, and the wakeup turn starts once the turn's teardown ran (the lease is free).
   * Anything not claimed here is drained as usual after the teardown.
   */
  private drainAtEnd({ sessionId, turnId }: TurnEnding): void {
    if (this.isDisposed) return;
    let torn!: (seen: boolean) => void;
    const tornDown = new Promise<boolean>((resolve) => (torn = resolve));
    const off = this.options.turns.onTurnTeardown((ended) => {
      if (ended.turnId !== turnId) return;
      off();
      torn(true);
    });
    // A teardown always follows its ending; should one ever be lost, the session's deliveries must not wait forever.
    const bound = this.clock.setTimer(this.claimTtlMs / 2, () => {
      off();
      torn(false);
    });
    void tornDown.then(() => bound.cancel());
    this.drainingEarly.add(turnId);
    this.serial
      .run(sessionId, async () => {
        let claim: Claim | undefined;
        try {
          // The turn that is ending is this window's own; whether another turn is active is asked by the lease below.
          const may = (await this.options.mayDeliver?.(sessionId)) ?? true;
          if (may && !(await this.options.turns.isPaused(sessionId))) claim = await this.options.outbox.claim(sessionId, { max: this.maxPerTurn(), ttlMs: this.claimTtlMs });
        } catch (error) {
          this.logger.warn(`claiming ahead of the end of turn ${turnId} failed; the drain claims after it`, error);
        }
        if (!(await tornDown)) {
          this.drainingEarly.delete(turnId);
          this.logger.error(`turn ${turnId} of ${sessionId} began to end but its teardown was not heard of; draining anyway`);
        }
        if (!claim) return this.deliver(sessionId, 'teardown');
        if (this.isDisposed) {
          await this.options.outbox.release(claim, 'not-persisted');
          return 'nothing';
        }
        let outcome: DeliveryOutcome;
        try {
          outcome = await this.startWakeup(sessionId, claim);
        } catch (error) {
          this.logger.error(`wakeup delivery for ${sessionId} failed (teardown); the completions stay in the outbox`, error);
          outcome = 'error';
        }
        this.emit({ type: 'delivery', sessionId, trigger: 'teardown', outcome, keys: claim.keys });
        return outcome;
      })
      .catch((error: unknown) => this.logger.error('teardown drain failed', error));
  }

  /** The teardown drain (also callable directly): one wakeup turn with up to `maxPerTurn` completions. */
  drain(sessionId: string): Promise<DeliveryOutcome> {
    return this.request(sessionId, 'teardown');
  }

  /** docs/background-tasks.md Rule 8: delivers for every idle session that still has claimable completions. */
  sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      try {
        const sessions = await this.options.outbox.sessionsWithWork();
        await Promise.all(sessions.map((s) => this.request(s, 'sweep')));
      } catch (error) {
        this.logger.error('wakeup sweep failed', error);
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }

  /**
   * Resolves once every delivery and outbox write this window started has finished. Disposing stops new work;
   * this waits for the work already under way (an orderly shutdown, and tests that then delete the storage).
   */
  async idle(): Promise<void> {
    for (;;) {
      const pending: Array<Promise<unknown>> = [...this.serial.inFlight(), ...this.background];
      if (this.sweeping) pending.push(this.sweeping);
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  override dispose(): void {
    this.sweepTimer?.cancel();
    super.dispose();
    this.hub.clear();
  }

  private maxPerTurn(): number {
    return readMaxPerTurn(() => this.options.maxPerTurn?.(), this.logger);
  }

  /** One delivery at a time per session in this window; requests made while one waits share it. */
  private request(sessionId: string, trigger: DeliveryTrigger): Promise<DeliveryOutcome> {
    const waiting = this.queued.get(sessionId);
    if (waiting) return waiting;
    const next = this.serial.run(sessionId, () => {
      this.queued.delete(sessionId);
      return this.deliver(sessionId, trigger);
    });
    this.queued.set(sessionId, next);
    return next;
  }

  private async deliver(sessionId: string, trigger: DeliveryTrigger): Promise<DeliveryOutcome> {
    if (this.isDisposed) return 'nothing';
    const { outbox } = this.options;
    let claim: Claim | undefined;
    let outcome: DeliveryOutcome;
    try {
      const blocked = await this.blockedBy(sessionId);
      if (blocked) {
        outcome = blocked;
      } else {
        claim = await outbox.claim(sessionId, { max: this.maxPerTurn(), ttlMs: this.claimTtlMs });
        outcome = claim ? await this.startWakeup(sessionId, claim) : 'nothing';
      }
    } catch (error) {
      this.logger.error(`wakeup delivery for ${sessionId} failed (${trigger}); the completions stay in the outbox`, error);
      outcome = 'error';
    }
    this.emit({ type: 'delivery', sessionId, trigger, outcome, keys: claim?.keys ?? [] });
    return outcome;
  }

  /**
   * Why the session cannot be woken now, or undefined if it can. Three reads without side effects, on the
   * way to every wakeup: asked together, decided in this order.
   */
  private async blockedBy(sessionId: string): Promise<'elsewhere' | 'active' | 'held' | undefined> {
    const { turns } = this.options;
    const may = Promise.resolve(this.options.mayDeliver?.(sessionId) ?? true);
    const active = Promise.resolve(turns.hasActiveTurn(sessionId));
    const paused = Promise.resolve(turns.isPaused(sessionId));
    for (const unawaited of [active, paused]) unawaited.catch(() => undefined);
    if (!(await may)) return 'elsewhere';
    if (await active) return 'active';
    if (await paused) return 'held';
    return undefined;
  }

  /**
   * Starts the wakeup turn for a claim. A claim still being written (the idle short path) is awaited by the
   * turn's admission, after its lease is taken; if it brings nothing, nothing starts.
   */
  private async startWakeup(sessionId: string, pending: Claim | Promise<Claim | undefined>): Promise<DeliveryOutcome> {
    const { turns, outbox } = this.options;
    let result: StartTurnResult;
    const tentative = pending instanceof Promise;
    let claim = tentative ? undefined : pending;
    // The admission hook finds the claim here; one still being written is put here as it lands.
    if (claim) this.inflight.set(sessionId, claim);
    const claimed = Promise.resolve(pending).then((c) => {
      if (c && !claim) this.inflight.set(sessionId, c);
      return (claim = c);
    });
    const wakeup = (c: Claim) => ({ prompt: formatWakeupPrompt(c.completions), taskIds: c.completions.map((x) => x.taskId) });
    try {
      if (claim) {
        const { prompt, taskIds } = wakeup(claim);
        result = await turns.startTurn(sessionId, prompt, { source: 'wakeup', taskIds });
      } else {
        result = await turns.startTurn(sessionId, '', { source: 'wakeup', pendingWakeup: claimed.then((c) => c && wakeup(c)) });
      }
    } catch (error) {
      result = { kind: 'failed', reason: errorMessage(error) };
    }
    // A turn refused before it needed the claim (busy, paused) still has the claim to give back once it lands.
    await claimed;
    if (claim && this.inflight.get(claim.sessionId) === claim) this.inflight.delete(claim.sessionId);
    if (!claim) {
      // A tentative wakeup that held the lease and carried nothing may have refused the real claimant meanwhile,
      // which gives its claim back for a teardown that never comes (no turn ran): like a teardown, ask once more.
      if (tentative && result.kind !== 'busy') this.askAgain(sessionId);
      return 'nothing';
    }
    switch (result.kind) {
      case 'started':
        await this.markDelivered(claim, 'wakeup', result.turnId);
        return 'started';
      case 'busy':
        // docs/background-tasks.md Rule 6: another turn won the session; each completion goes back once, for its teardown.
        await outbox.release(claim, 'busy');
        // A tentative holder may let go without a turn, and then no teardown drains: ask again now. Should it still
        // hold the session, its own ask after letting go comes after this release and finds the completion.
        if (result.tentative) this.askAgain(sessionId);
        return 'busy';
      case 'paused':
        // docs/background-tasks.md Rule 7: no retry loop against a dead provider; the first turn after the pause takes them.
        await outbox.park(claim);
        return 'paused';
      case 'failed':
        this.logger.warn(`wakeup turn for ${claim.sessionId} did not start: ${result.reason}`);
        await outbox.release(claim, 'failed', this.clock.wallNow() + (this.options.failureBackoffMs ?? 30_000));
        return 'failed';
      default: {
        const never: never = result;
        throw new Error(`unknown start result ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * A delivery after this one, for a session whose completion a tentative wakeup may have left without a turn.
   * Bounded: it claims before it takes the lease, so it is never tentative and never makes another window ask;
   * each ask answers one tentative wakeup, and there is at most one of those per completion signal.
   */
  private askAgain(sessionId: string): void {
    if (this.isDisposed) return;
    this.track(this.request(sessionId, 'retry').catch((error: unknown) => this.logger.error(`asking again for ${sessionId} failed`, error)));
  }

  private async markDelivered(claim: Claim, via: 'wakeup' | 'carried', turnId?: string): Promise<void> {
    const count = await this.options.outbox.deliver(claim);
    if (count > 0) this.emit({ type: 'delivered', sessionId: claim.sessionId, keys: claim.keys, via, ...(turnId ? { turnId } : {}) });
  }

  private get claimTtlMs(): number {
    return this.options.claimTtlMs ?? 60_000;
  }

  private scheduleSweep(): void {
    if (this.isDisposed) return;
    this.sweepTimer = this.clock.setTimer(this.options.sweepIntervalMs ?? 2_000, () => {
      void this.sweep().finally(() => this.scheduleSweep());
    });
  }

  private track(work: Promise<unknown>): void {
    this.background.add(work);
    void work.finally(() => this.background.delete(work)).catch(() => undefined);
  }

  private emit(event: WakeupEvent): void {
    this.hub.emit(event, (error) => this.logger.error('a wakeup listener threw', error));
  }
}
