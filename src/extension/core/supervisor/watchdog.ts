// The per-turn liveness watchdog: timer-driven off the activity clock, no polling loop.

import type { Clock, TimerHandle } from '../ports/clock';
import { SuspendDetector } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { ActivityClock, ActivitySample } from './activityClock';

export interface WatchdogDeps {
  clock: Clock;
  logger: Logger;
  activity: ActivityClock;
  /** The bound for what the turn waits on now (model/agent vs. an unobservable tool). */
  boundMs(): number;
  /** True while a permission request is open: waiting on the person is not a stall. */
  suspended(): boolean;
  onQuiet(silentMs: number): void;
  /** Silence reached the bound. The watchdog stays disarmed until `arm()` is called again. */
  onStall(sample: ActivitySample, silentMs: number): void;
}

export class Watchdog {
  private timer: TimerHandle | undefined;
  private stopped = false;
  private quietGeneration = -1;
  private readonly suspend: SuspendDetector;

  constructor(private readonly deps: WatchdogDeps) {
    this.suspend = new SuspendDetector(deps.clock);
  }

  /** (Re)schedules the next check; `delayMs` overrides the computed one (retries after a failed abort). */
  arm(delayMs?: number): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.stopped || this.deps.suspended()) return;
    const delay = delayMs ?? this.nextDelay(this.deps.activity.silenceMs(), this.deps.boundMs());
    this.timer = this.deps.clock.setTimer(delay, () => this.tick());
  }

  cancel(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  get armed(): boolean {
    return this.timer !== undefined;
  }

  private tick(): void {
    this.timer = undefined;
    if (this.stopped || this.deps.suspended()) return;
    const suspended = this.suspend.sample();
    // Silence is monotonic time, which does not advance while the host sleeps; say so once.
    if (suspended > 0) this.deps.logger.info(`Host suspend of ${Math.round(suspended / 1000)} s detected; not counted as silence`);
    const silence = this.deps.activity.silenceMs();
    const bound = this.deps.boundMs();
    const sample = this.deps.activity.sample();
    if (silence >= bound) {
      this.deps.onStall(sample, silence);
      return;
    }
    if (silence >= bound / 2 && this.quietGeneration !== sample.generation) {
      this.quietGeneration = sample.generation;
      this.deps.onQuiet(silence);
    }
    this.arm();
  }

  private nextDelay(silence: number, bound: number): number {
    const half = bound / 2;
    return silence < half ? half - silence : Math.max(0, bound - silence);
  }
}
