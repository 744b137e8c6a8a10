// What the supervisor tells the UI (one discriminated union), its status snapshot, and its parking points.

import type { WaitingOn } from '../ports/agentHandle';
import type { TurnEnded, TurnSource } from '../ports/turns';

export type AbortCause = 'watchdog' | 'user' | 'leaseLost';

export type SupervisorEvent =
  | { type: 'turnStarted'; sessionId: string; turnId: string; source: TurnSource; startedAt: number }
  /** Throttled: at most one per throttle interval per turn. */
  | { type: 'activity'; sessionId: string; turnId: string; description: string; waitingOn: WaitingOn }
  /** No progress for half the bound (`boundMs`, the bound that applies now). */
  | { type: 'quiet'; sessionId: string; turnId: string; silentMs: number; waitingOn: WaitingOn; boundMs: number }
  /**
   * Observational only: never says that anything was aborted. `message` is the one-line summary a person reads,
   * `detail` what it means and the mechanism (shown folded); the log line keeps the watchdog's own words.
   */
  | { type: 'stallObserved'; sessionId: string; turnId: string; seconds: number; waitingOn: WaitingOn; message: string; detail: string }
  /** The definitive notice (summary and folded detail), emitted only after a committed abort and after lease renewal stopped. */
  | { type: 'abortCommitted'; sessionId: string; turnId: string; cause: AbortCause; message: string; detail: string }
  /** The agent's process tree is being killed (grace ran out, or the interrupt kept failing). */
  | { type: 'escalated'; sessionId: string; turnId: string; message: string; detail?: string }
  | { type: 'approvalWaiting'; sessionId: string; turnId: string; open: boolean }
  | { type: 'busyWaiting'; sessionId: string; message: string; waitedMs: number }
  | { type: 'leaseLost'; sessionId: string; turnId: string; message: string }
  | { type: 'notice'; sessionId: string; level: 'info' | 'warning' | 'error'; message: string }
  | { type: 'turnEnded'; ended: TurnEnded };

/** Where a turn is in its own run (the supervisor's step, not the seven-value TurnPhase the views show, shared/sessionView.ts). */
export type TurnStep = 'running' | 'aborting' | 'ending';

/** What a status bar polls once a second. */
export interface TurnSnapshot {
  sessionId: string;
  turnId: string;
  source: TurnSource;
  phase: TurnStep;
  waitingOn: WaitingOn;
  lastActivity: string;
  /** The activity generation (advances on every activity). */
  generation: number;
  silenceMs: number;
  /** False once an abort settled: the lease is left to lapse or be released. */
  leaseRenewing: boolean;
  /** Wall-clock ms. */
  startedAt: number;
}

/** The interrupt state a committed abort publishes (docs/turn-supervisor.md R3). */
export interface InterruptState {
  turnId: string;
  cause: AbortCause;
  message: string;
  toolReason: string;
  /** Aborted at publication: the hard-cancel signal for anything that waits on the turn. */
  hardCancel: AbortSignal;
}

export interface ParkingContext {
  sessionId: string;
  turnId: string;
  generation: number;
}

/**
 * Deterministic race tests park the abort protocol at its boundaries by returning a promise.
 * Production passes none; each costs one `await` of `undefined` at most.
 */
export interface SupervisorHooks {
  afterObserve?(ctx: ParkingContext): void | Promise<void>;
  afterR1?(ctx: ParkingContext): void | Promise<void>;
  afterR2?(ctx: ParkingContext): void | Promise<void>;
  insideBarrierWait?(ctx: ParkingContext): void | Promise<void>;
  atConsumePublishEdge?(ctx: ParkingContext): void | Promise<void>;
  /** Synchronous, inside the consume-and-publish section. */
  onPublished?(ctx: ParkingContext, state: InterruptState): void;
  onLeaseRefresh?(info: { sessionId: string; turnId: string; result: 'ok' | 'lost' | 'error' }): void;
}
