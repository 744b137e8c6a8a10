// The wakeup coordinator's options (and the check of maxPerTurn), its delivery triggers, outcomes and events.

import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { TurnPort } from '../ports/turns';
import type { TaskCompletion } from '../tasks/taskTypes';
import type { WakeupOutbox } from './wakeupOutbox';

export type DeliveryTrigger = 'completion' | 'teardown' | 'sweep' | 'retry';

/**
 * `active`: a turn of the session is running, the completions wait for its teardown.
 * `held`: the session's wakeups are paused; nothing was attempted. `nothing`: no claimable completion.
 * `elsewhere`: the session belongs to a folder this window does not have open; its completions stay
 * pending, untouched, for a window that does.
 */
export type DeliveryOutcome = 'started' | 'busy' | 'paused' | 'failed' | 'active' | 'held' | 'nothing' | 'error' | 'elsewhere';

export type WakeupEvent =
  | { type: 'enqueued'; completion: TaskCompletion; duplicate: boolean }
  | { type: 'delivery'; sessionId: string; trigger: DeliveryTrigger; outcome: DeliveryOutcome; keys: string[] }
  | { type: 'delivered'; sessionId: string; keys: string[]; via: 'wakeup' | 'carried'; turnId?: string };

export interface WakeupCoordinatorOptions {
  turns: TurnPort;
  outbox: WakeupOutbox;
  clock?: Clock;
  logger?: Logger;
  /** `vigil.wakeups.maxPerTurn`, read at each delivery (default 5). */
  maxPerTurn?: () => number;
  sweepIntervalMs?: number;
  /** How long a window's claim holds before another window may take the completions again. */
  claimTtlMs?: number;
  /** Bound on what the admission hook may add to a user turn's start. */
  admissionTimeoutMs?: number;
  /** After a wakeup turn failed to start, wait this long before the next wakeup attempt. */
  failureBackoffMs?: number;
  /**
   * Whether this window may run the session (its folder is one of the window's); asked before any
   * claim, for every trigger. Default: every session may be delivered.
   */
  mayDeliver?(sessionId: string): boolean | Promise<boolean>;
}

export const DEFAULT_MAX_PER_TURN = 5;

/** `vigil.wakeups.maxPerTurn` as read at a delivery: 1–100; anything else, or a read that throws, is the default. */
export function readMaxPerTurn(read: () => number | undefined, logger: Logger): number {
  let value: number = DEFAULT_MAX_PER_TURN;
  try {
    value = read() ?? DEFAULT_MAX_PER_TURN;
  } catch (error) {
    logger.warn('reading vigil.wakeups.maxPerTurn failed; using the default', error);
  }
  return Number.isInteger(value) && value >= 1 ? Math.min(value, 100) : DEFAULT_MAX_PER_TURN;
}
