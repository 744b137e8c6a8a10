// A scripted TurnPort: one lease per session, teardown after unregistration, parking points for races.

import { EventHub, type Unsubscribe } from '../../src/extension/core/common/events';
import type { AdmissionHook, StartTurnOptions, StartTurnResult, TurnEnded, TurnEnding, TurnPort, TurnSource } from '../../src/extension/core/ports/turns';
import { waitOnHub } from './waitOnHub';

export type ScriptedResult = 'auto' | 'started' | 'busy' | 'paused' | 'failed';

export interface StartCall {
  sessionId: string;
  prompt: string;
  source: TurnSource;
  result: StartTurnResult['kind'];
  turnId?: string;
  /** What the admission hook put ahead of the prompt. */
  prefix?: string;
  at: number;
}

export class FakeTurnPort implements TurnPort {
  readonly calls: StartCall[] = [];
  /** Results for the next wakeup starts, consumed in order; afterwards `defaultResult`. */
  readonly script: ScriptedResult[] = [];
  defaultResult: ScriptedResult = 'auto';
  /** A parking point inside `startTurn`, after the lease decision and before admission. */
  parking: ((call: StartCall) => Promise<void>) | undefined;
  private readonly active = new Map<string, Map<string, TurnSource>>();
  private readonly paused = new Set<string>();
  private readonly teardown = new EventHub<TurnEnded>();
  private readonly ending = new EventHub<TurnEnding>();
  private readonly callHub = new EventHub<StartCall>();
  private readonly endings = new Map<string, (ended: TurnEnded) => void>();
  private hook: AdmissionHook | undefined;
  private nextTurn = 1;

  async startTurn(sessionId: string, prompt: string, options: StartTurnOptions): Promise<StartTurnResult> {
    const scripted = this.script.shift() ?? this.defaultResult;
    const kind = scripted === 'auto' ? (this.hasActiveTurn(sessionId) ? 'busy' : this.paused.has(sessionId) && options.source === 'wakeup' ? 'paused' : 'started') : scripted;
    // The lease is taken synchronously, as the real supervisor's acquire is atomic.
    const turnId = kind === 'started' ? this.register(sessionId, options.source) : undefined;
    // As the supervisor does: the lease is held while a wakeup's claim is still being written.
    if (turnId && options.pendingWakeup) {
      const wakeup = await options.pendingWakeup.catch(() => undefined);
      if (!wakeup) {
        this.unregister(turnId);
        this.calls.push({ sessionId, prompt, source: options.source, result: 'failed', at: performance.now() });
        return { kind: 'failed', reason: 'The wakeup had nothing to deliver' };
      }
      prompt = wakeup.prompt;
    }
    const call: StartCall = { sessionId, prompt, source: options.source, result: kind, at: performance.now() };
    if (turnId) call.turnId = turnId;
    this.calls.push(call);
    this.callHub.emit(call);
    if (this.parking) await this.parking(call);
    if (kind === 'failed') return { kind, reason: 'scripted failure' };
    if (kind === 'busy' || kind === 'paused') return { kind };
    if (!turnId) throw new Error('a started turn has an id');
    const contribution = await this.hook?.({ sessionId, turnId, source: options.source });
    call.prefix = contribution?.prefix;
    contribution?.onPersisted();
    const ended = new Promise<TurnEnded>((resolve) => this.endings.set(turnId, resolve));
    return { kind: 'started', turnId, ended };
  }

  /** A person's turn: admitted through the hook like any other; returns its id and what it carried. */
  async userTurn(sessionId: string, text = 'hello'): Promise<{ turnId: string; prefix: string }> {
    const result = await this.startTurn(sessionId, text, { source: 'user' });
    if (result.kind !== 'started') throw new Error(`user turn did not start: ${result.kind}`);
    const call = this.calls.find((c) => c.turnId === result.turnId);
    return { turnId: result.turnId, prefix: call?.prefix ?? '' };
  }

  /** A turn that is simply running (e.g. begun before the test, or in another window). */
  beginTurn(sessionId: string, source: TurnSource = 'user'): string {
    return this.register(sessionId, source);
  }

  /** The supervisor's teardown: unregister, then tell the listeners (synchronously, as the `finally` does). */
  /** `how` matters to a real supervisor (a provider failure keeps a pause); this port's pause is set by the test. */
  endTurn(turnId: string, how: 'completed' | 'providerFailure' = 'completed'): void {
    void how;
    const ended = this.unregister(turnId);
    this.emitTeardown(ended);
  }

  /**
   * The supervisor's "this turn begins its teardown" (before its end record and the lease's release): the
   * turn stays active until `endTurn`. Tests that never call it see a port that announces no ending.
   */
  announceEnding(turnId: string): void {
    const sessionId = [...this.active].find(([, turns]) => turns.has(turnId))?.[0];
    if (sessionId === undefined) throw new Error(`no active turn ${turnId}`);
    this.ending.emit({ sessionId, turnId }, (error) => {
      throw error;
    });
  }

  /** First half of `endTurn`, for parking a completion between unregistration and the hook. */
  unregister(turnId: string): TurnEnded {
    for (const [sessionId, turns] of this.active) {
      const source = turns.get(turnId);
      if (source === undefined) continue;
      turns.delete(turnId);
      const ended: TurnEnded = { sessionId, turnId, source, reason: 'completed' };
      this.endings.get(turnId)?.(ended);
      this.endings.delete(turnId);
      return ended;
    }
    throw new Error(`no active turn ${turnId}`);
  }

  emitTeardown(ended: TurnEnded): void {
    this.teardown.emit(ended, (error) => {
      throw error;
    });
  }

  hasActiveTurn(sessionId: string): boolean {
    return (this.active.get(sessionId)?.size ?? 0) > 0;
  }

  activeTurns(sessionId: string): string[] {
    return [...(this.active.get(sessionId)?.keys() ?? [])];
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

  get hasHook(): boolean {
    return this.hook !== undefined;
  }

  isPaused(sessionId: string): boolean {
    return this.paused.has(sessionId);
  }

  setPaused(sessionId: string, paused: boolean): void {
    if (paused) this.paused.add(sessionId);
    else this.paused.delete(sessionId);
  }

  wakeupCalls(sessionId?: string): StartCall[] {
    return this.calls.filter((c) => c.source === 'wakeup' && (sessionId === undefined || c.sessionId === sessionId));
  }

  /**
   * Resolves once `predicate` holds for the calls so far (checked on every new call). The bound only ends a
   * wait that fails: the calls often come from real processes, which take seconds on a busy 2-core machine.
   */
  async waitForCalls(predicate: (calls: StartCall[]) => boolean, timeoutMs = 15_000): Promise<StartCall[]> {
    await waitOnHub(this.callHub, () => predicate(this.calls), timeoutMs, () => `start calls; have ${this.calls.length}`);
    return this.calls;
  }

  private register(sessionId: string, source: TurnSource): string {
    const turnId = `turn-${this.nextTurn++}`;
    let turns = this.active.get(sessionId);
    if (!turns) this.active.set(sessionId, (turns = new Map()));
    turns.set(turnId, source);
    return turnId;
  }
}
