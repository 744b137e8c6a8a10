// Keeps a turn's lease alive: refreshed every third of its time to live until the turn stops renewing it.
// A refresh that finds the lease taken reports it lost (the turn then aborts); one that fails is retried.

import { errorMessage } from '../common/errors';
import type { Clock, TimerHandle } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { LeaseToken, TurnLeaseStore } from '../lease/turnLease';
import type { SupervisorHooks } from './supervisorEvents';

export interface LeaseRefresherDeps {
  sessionId: string;
  turnId: string;
  clock: Clock;
  logger: Logger;
  hooks: SupervisorHooks;
  lease: TurnLeaseStore;
  token: LeaseToken;
}

export class LeaseRefresher {
  private stopped = false;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly d: LeaseRefresherDeps,
    private readonly onLost: () => void,
  ) {}

  /** Until stopped: the turn's lease is being kept. */
  get renewing(): boolean {
    return !this.stopped;
  }

  /** Schedules the next refresh, a third of the lease's time to live from now (none once stopped). */
  schedule(): void {
    if (this.stopped) return;
    const { d } = this;
    this.timer = d.clock.setTimer(d.lease.ttlMs / 3, () => {
      this.timer = undefined;
      if (this.stopped) return;
      d.lease.refresh(d.token).then(
        (result) => {
          d.hooks.onLeaseRefresh?.({ sessionId: d.sessionId, turnId: d.turnId, result });
          // After deactivation a miss is expected (we stopped renewing), never a loss.
          if (this.stopped) return;
          if (result === 'lost') this.onLost();
          else this.schedule();
        },
        (error: unknown) => {
          d.hooks.onLeaseRefresh?.({ sessionId: d.sessionId, turnId: d.turnId, result: 'error' });
          d.logger.warn(`Lease refresh for session ${d.sessionId} failed (will retry): ${errorMessage(error)}`);
          this.schedule();
        },
      );
    });
  }

  /** Stops renewing: the abort protocol deactivated the turn, or the turn ends. */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }
}
