// The delivery scenarios' turn port backed by real TurnSupervisors on one storage root: the same driving API as
// FakeTurnPort, with real leases, real admission, real pause and busy paths. Only the agent is scripted.

import { EventHub, type Unsubscribe } from '../../src/extension/core/common/events';
import type { AgentHandle, AgentHandleProvider, PromptOutcome, PromptRequest } from '../../src/extension/core/ports/agentHandle';
import { systemClock } from '../../src/extension/core/ports/clock';
import { silentLogger } from '../../src/extension/core/ports/logger';
import type { AdmissionHook, StartTurnOptions, StartTurnResult, TurnEnded, TurnEnding, TurnPort, TurnSource } from '../../src/extension/core/ports/turns';
import type { LivenessSettings } from '../../src/extension/core/supervisor/livenessSettings';
import { TurnSupervisor } from '../../src/extension/core/supervisor/turnSupervisor';
import type { ScriptedResult, StartCall } from './fakeTurnPort';
import { waitOnHub } from './waitOnHub';

const QUIET: LivenessSettings = { enabled: true, timeoutMs: 600_000, toolTimeoutMs: 600_000, graceMs: 5_000 };

/** Holds every prompt, keyed by turn, until the test ends or fails it. */
class HeldAgents implements AgentHandleProvider, AgentHandle {
  private readonly open = new Map<string, { resolve(o: PromptOutcome): void; reject(e: unknown): void }>();
  private readonly arrived = new EventHub<string>();

  async get(): Promise<AgentHandle> {
    return this;
  }

  prompt(request: PromptRequest): Promise<PromptOutcome> {
    return new Promise((resolve, reject) => {
      this.open.set(request.turnId, { resolve, reject });
      this.arrived.emit(request.turnId);
    });
  }

  /** Ends the turn's prompt once it has reached the agent (it may still be on its way). */
  async end(turnId: string, failure?: Error): Promise<void> {
    if (!this.open.has(turnId)) {
      await new Promise<void>((resolve) => {
        const off = this.arrived.subscribe((id) => {
          if (id !== turnId) return;
          off();
          resolve();
        });
      });
    }
    const pending = this.open.get(turnId)!;
    this.open.delete(turnId);
    if (failure) pending.reject(failure);
    else pending.resolve({ stopReason: 'end_turn' });
  }

  async cancel(): Promise<void> {
    for (const [id, p] of [...this.open]) {
      this.open.delete(id);
      p.resolve({ stopReason: 'cancelled' });
    }
  }

  async kill(): Promise<void> {
    await this.cancel();
  }
}

interface Begun {
  turnId: Promise<string>;
  ended: Promise<TurnEnded>;
}

/**
 * Window W is the coordinator's (its TurnPort is this object). Turns the test "begins" stand for turns of other
 * windows: they carry nothing (no coordinator of theirs here) and their teardowns reach the drain, as that
 * window's own coordinator would drain the shared outbox. A turn begun while the session is held waits for the
 * lease in W (active there, as a turn still unwinding or queued is).
 */
export class SupervisorTurnPort implements TurnPort {
  readonly calls: StartCall[] = [];
  readonly script: ScriptedResult[] = [];
  readonly sup: TurnSupervisor;
  private readonly other: TurnSupervisor;
  private readonly agents = new HeldAgents();
  private readonly teardown = new EventHub<TurnEnded>();
  private readonly ending = new EventHub<TurnEnding>();
  private readonly callHub = new EventHub<StartCall>();
  private readonly held = new Set<string>();
  /** Begun ids of held turns → the supervisor's ids. */
  private readonly heldAs = new Map<string, string>();
  private readonly begun = new Map<string, Begun>();
  private readonly prefixes = new Map<string, string>();
  private readonly endings = new Set<Promise<unknown>>();
  private hook: AdmissionHook | undefined;
  private quietAdmissions = 0;
  private nextBegun = 1;

  constructor(private readonly root: string) {
    const make = (windowId: string) => new TurnSupervisor({ storageRoot: root, clock: systemClock, logger: silentLogger, agents: this.agents, settings: () => QUIET, windowId });
    this.sup = make('window-w');
    this.other = make('window-x');
    // W's own turns announce their ending, as its supervisor does to its coordinator; each ending is followed by
    // its teardown (a held one at `emitTeardown`). Another window's turns end unannounced here.
    this.sup.onTurnEnding((ending) => {
      this.ending.emit(ending, (error) => {
        throw error;
      });
    });
    for (const s of [this.sup, this.other]) {
      s.onTurnTeardown((ended) => {
        if (this.held.has(ended.turnId)) return;
        this.teardown.emit(ended, (error) => {
          throw error;
        });
      });
    }
    this.sup.setAdmissionHook(async (ctx) => {
      if (ctx.source === 'user' && this.quietAdmissions > 0) {
        this.quietAdmissions -= 1;
        return undefined;
      }
      const contribution = await this.hook?.(ctx);
      this.prefixes.set(ctx.turnId, contribution?.prefix ?? '');
      return contribution;
    });
  }

  async init(): Promise<void> {
    await this.sup.sessions.init();
  }

  /** Ends every open turn, waits until each has torn down (its writes done), then stops the supervisors. */
  async close(): Promise<void> {
    await this.agents.cancel();
    await Promise.allSettled([...this.endings]);
    this.sup.dispose();
    this.other.dispose();
  }

  async startTurn(sessionId: string, prompt: string, options: StartTurnOptions): Promise<StartTurnResult> {
    await this.ensureSession(sessionId);
    const scripted = this.script.shift() ?? 'auto';
    let result: StartTurnResult;
    if (scripted === 'busy') {
      // Another window wins the session just before this start: a real lease held elsewhere.
      const got = await this.other.lease.acquire(sessionId, this.other.lease.holderFor('window-x', 'scripted-winner'));
      if (got.kind !== 'acquired') throw new Error('the scripted winner could not take the lease');
      result = await this.sup.startTurn(sessionId, prompt, options);
      await this.other.lease.release(got.token);
    } else {
      // A provider failure in another window pauses the session between the coordinator's check and this start.
      if (scripted === 'paused') await this.sup.sessions.update(sessionId, { wakeupsPaused: 'scripted: the provider rejected the credentials' });
      if (scripted === 'failed') return this.record(sessionId, prompt, options.source, { kind: 'failed', reason: 'scripted failure' });
      result = await this.sup.startTurn(sessionId, prompt, options);
    }
    // A wakeup whose claim was still being written when it started: its prompt came with the claim.
    const sent = options.pendingWakeup ? ((await options.pendingWakeup.catch(() => undefined))?.prompt ?? prompt) : prompt;
    return this.record(sessionId, sent, options.source, result);
  }

  async userTurn(sessionId: string, text = 'hello'): Promise<{ turnId: string; prefix: string }> {
    const result = await this.startTurn(sessionId, text, { source: 'user' });
    if (result.kind !== 'started') throw new Error(`user turn did not start: ${result.kind}`);
    return { turnId: result.turnId, prefix: this.prefixes.get(result.turnId) ?? '' };
  }

  /** A turn of another window (or one queued behind it); resolves once it holds or waits for the session. */
  async beginTurn(sessionId: string, source: TurnSource = 'user'): Promise<string> {
    await this.ensureSession(sessionId);
    const id = `begun-${this.nextBegun++}`;
    const free = !(await this.sup.hasActiveTurn(sessionId));
    const owner = free ? this.other : this.sup;
    if (!free) this.quietAdmissions += 1;
    let waiting: (() => void) | undefined;
    const queued = free ? Promise.resolve() : new Promise<void>((resolve) => (waiting = resolve));
    const off = this.sup.subscribe((e) => {
      if (e.type === 'busyWaiting' && e.sessionId === sessionId) waiting?.();
    });
    const start = owner.startTurn(sessionId, `begun ${source} turn`, { source });
    const turnId = start.then((r) => {
      if (r.kind !== 'started') throw new Error(`a begun turn did not start: ${JSON.stringify(r)}`);
      return r.turnId;
    });
    const ended = start.then((r) => (r.kind === 'started' ? r.ended : Promise.reject(new Error(r.kind))));
    ended.catch(() => undefined);
    this.endings.add(ended);
    this.begun.set(id, { turnId, ended });
    await (free ? turnId : Promise.race([queued, turnId]));
    off();
    return id;
  }

  /** The turn ends and its teardown runs; resolves once its supervisor unregistered it. */
  async endTurn(turnId: string, how: 'completed' | 'providerFailure' = 'completed'): Promise<void> {
    await this.finish(turnId, how);
  }

  /** First half of `endTurn`: the turn ends and is unregistered; its teardown hook waits for `emitTeardown`. */
  async unregister(turnId: string): Promise<TurnEnded> {
    const real = await this.realId(turnId);
    this.held.add(real);
    this.heldAs.set(turnId, real);
    return this.finish(turnId, 'completed');
  }

  /** `ended` may name a begun turn by the id `beginTurn` gave it; listeners hear the supervisor's own id. */
  emitTeardown(ended: TurnEnded): void {
    const turnId = this.heldAs.get(ended.turnId) ?? ended.turnId;
    this.heldAs.delete(ended.turnId);
    this.held.delete(turnId);
    this.teardown.emit({ ...ended, turnId }, (error) => {
      throw error;
    });
  }

  hasActiveTurn(sessionId: string): Promise<boolean> {
    return this.sup.hasActiveTurn(sessionId);
  }

  onTurnTeardown(listener: (ended: TurnEnded) => void): Unsubscribe {
    return this.teardown.subscribe(listener);
  }

  onTurnEnding(listener: (ending: TurnEnding) => void): Unsubscribe {
    return this.ending.subscribe(listener);
  }

  setAdmissionHook(hook: AdmissionHook | undefined): void {
    this.hook = hook;
  }

  isPaused(sessionId: string): Promise<boolean> {
    return this.sup.isPaused(sessionId);
  }

  async setPaused(sessionId: string, paused: boolean): Promise<void> {
    if (paused) await this.sup.sessions.update(sessionId, { wakeupsPaused: 'the provider rejected the credentials' });
    else await this.sup.unpause(sessionId);
  }

  wakeupCalls(sessionId?: string): StartCall[] {
    return this.calls.filter((c) => c.source === 'wakeup' && (sessionId === undefined || c.sessionId === sessionId));
  }

  async waitForCalls(predicate: (calls: StartCall[]) => boolean, timeoutMs = 15_000): Promise<StartCall[]> {
    await waitOnHub(this.callHub, () => predicate(this.calls), timeoutMs, () => `start calls; have ${this.calls.length}`);
    return this.calls;
  }

  private record(sessionId: string, prompt: string, source: TurnSource, result: StartTurnResult): StartTurnResult {
    const call: StartCall = { sessionId, prompt, source, result: result.kind, at: performance.now() };
    if (result.kind === 'started') {
      this.endings.add(result.ended);
      call.turnId = result.turnId;
      call.prefix = this.prefixes.get(result.turnId);
    }
    this.calls.push(call);
    this.callHub.emit(call);
    return result;
  }

  private async finish(turnId: string, how: 'completed' | 'providerFailure'): Promise<TurnEnded> {
    const real = await this.realId(turnId);
    const failure = how === 'providerFailure' ? new Error('401', { cause: { code: 'PROVIDER_AUTH', message: 'the provider rejected the credentials' } }) : undefined;
    const begun = this.begun.get(turnId);
    // Listening before the prompt ends, so the teardown cannot pass unseen.
    const done =
      begun?.ended ??
      new Promise<TurnEnded>((resolve) => {
        const offs = [this.sup, this.other].map((s) =>
          s.onTurnTeardown((ended) => {
            if (ended.turnId !== real) return;
            for (const off of offs) off();
            resolve(ended);
          }),
        );
      });
    await this.agents.end(real, failure);
    return done;
  }

  private realId(turnId: string): Promise<string> {
    return this.begun.get(turnId)?.turnId ?? Promise.resolve(turnId);
  }

  private async ensureSession(sessionId: string): Promise<void> {
    if (!(await this.sup.sessions.get(sessionId))) await this.sup.sessions.create(`scenario ${sessionId}`, sessionId);
  }
}
