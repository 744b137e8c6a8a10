// What the rest of the extension (wakeups, UI, ACP client) may ask of the turn supervisor.

import type { PromptAttachment } from '../../../shared/promptContext';
import type { NoticeAction } from '../../../shared/sessionView';
import type { Unsubscribe } from './subscription';

export type TurnSource = 'user' | 'wakeup' | 'resume';

export type TurnEndReason = 'completed' | 'cancelled' | 'aborted' | 'interrupted' | 'failed';

export interface TurnEnded {
  sessionId: string;
  turnId: string;
  source: TurnSource;
  reason: TurnEndReason;
  message?: string;
  /** A failed turn's remedies (the agent's AgentFailure), offered with its notice. */
  remedies?: NoticeAction[];
}

/**
 * Called once the lease is held and before the prompt is persisted. It may add context ahead
 * of the prompt (pending background completions). `onPersisted` runs after the prompt is
 * durably in the transcript (the turn is admitted); `onNotPersisted` runs if it never gets there.
 */
export interface AdmissionContribution {
  prefix: string;
  /** The outbox claim the prompt carries, stored in its record (so a crash before `onPersisted` delivers it once). */
  claimId?: string;
  /**
   * Stores the prompt: calls `store` while no other window can take the claim, telling it whether the claim still
   * holds (false: a window frozen past the claim's deadline lost it, and the prompt must not carry it).
   */
  persist?(store: (held: boolean) => Promise<void>): Promise<void>;
  onPersisted(): void;
  onNotPersisted(): void;
}

export type AdmissionHook = (admission: {
  sessionId: string;
  turnId: string;
  source: TurnSource;
}) => AdmissionContribution | undefined | Promise<AdmissionContribution | undefined>;

export interface StartTurnOptions {
  source: TurnSource;
  /** Aborts a user turn that is still waiting for a busy lease. */
  signal?: AbortSignal;
  /** What the person attached to a user prompt; the transcript keeps only their names and links. */
  attachments?: PromptAttachment[];
  /** The background tasks a wakeup reports: kept as data in its prompt's transcript record. */
  taskIds?: string[];
  /** A prompt that replaces the session's last turn (edit, retry, regenerate): kept in its record; `replaced` also rewrites the agent's history. */
  redo?: { how: 'edit' | 'retry' | 'regenerate'; replaced: boolean };
  /**
   * A wakeup whose claim is still being written: the lease is taken meanwhile (its holder marked tentative), and
   * the prompt and task ids come from here once the claim is durable (they replace `prompt` and `taskIds`).
   * Undefined, or a rejection: the turn does not start, the lease is given back, and the result is `failed`.
   */
  pendingWakeup?: Promise<{ prompt: string; taskIds: string[] } | undefined>;
}

/** A turn that has decided to end: its end record and the lease's release are still to come. */
export interface TurnEnding {
  sessionId: string;
  turnId: string;
}

export type StartTurnResult =
  /** Admitted: lease held, prompt persisted. `ended` settles when the turn is over (never rejects). */
  | { kind: 'started'; turnId: string; ended: Promise<TurnEnded> }
  /**
   * Another turn holds the session (this window or another). Wakeups get this at once. `tentative`: the holder is
   * a wakeup whose claim was still being written; it may let go without a turn, and then no teardown drain follows.
   */
  | { kind: 'busy'; tentative?: true }
  /** The session's wakeups are paused by a provider credential/quota failure (wakeup turns only). */
  | { kind: 'paused' }
  | { kind: 'failed'; reason: string };

export interface TurnPort {
  startTurn(sessionId: string, prompt: string, options: StartTurnOptions): Promise<StartTurnResult>;
  /** True while any turn of the session is active in this window or (by its live lease) in another. */
  hasActiveTurn(sessionId: string): boolean | Promise<boolean>;
  /** Runs after a turn is unregistered and its lease released; must not throw into or block the turn. */
  onTurnTeardown(listener: (ended: TurnEnded) => void): Unsubscribe;
  /**
   * Runs when a turn starts its teardown, before its end record and the lease's release; `onTurnTeardown`
   * follows for the same turn. Lets the drain take its claim meanwhile. Must not throw into or block the turn.
   */
  onTurnEnding?(listener: (ending: TurnEnding) => void): Unsubscribe;
  /** Registers the hook that contributes context to every admitted turn. Only one may be set. */
  setAdmissionHook(hook: AdmissionHook | undefined): void;
  /** Whether a session's wakeups are paused by a provider failure. */
  isPaused(sessionId: string): boolean | Promise<boolean>;
}
