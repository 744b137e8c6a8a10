// A session's activity clock: the single progress source the watchdog keys off, with the abort claim.

import type { Clock } from '../ports/clock';

export interface ActivitySample {
  generation: number;
  at: number;
}

/**
 * Every method is synchronous, so each one is atomic with respect to every other on the event
 * loop: that is what makes `touch()` and the claim steps of the abort protocol race-free.
 */
export class ActivityClock {
  generation = 0;
  lastActivityAt: number;
  lastActivity = 'created';
  /** The generation an abort has reserved (docs/turn-supervisor.md R2), or null. */
  abortClaim: number | null = null;

  constructor(private readonly clock: Clock) {
    this.lastActivityAt = clock.now();
  }

  /**
   * O(1): advance the generation, stamp time and description, and drop any abort claim. `silentMs`: the
   * activity happened that long ago (a turn taken back after a reload keeps the silence it already had).
   */
  touch(description: string, silentMs = 0): void {
    this.generation += 1;
    this.lastActivityAt = this.clock.now() - Math.max(0, silentMs);
    this.lastActivity = description;
    this.abortClaim = null;
  }

  sample(): ActivitySample {
    return { generation: this.generation, at: this.lastActivityAt };
  }

  /** docs/turn-supervisor.md R1: does the clock still read what the watchdog observed? */
  matches(sample: ActivitySample): boolean {
    return this.generation === sample.generation && this.lastActivityAt === sample.at;
  }

  /** docs/turn-supervisor.md R2: reserve an abort for generation `g`; declines if the turn moved on. */
  reserve(g: number): boolean {
    if (this.generation !== g) return false;
    this.abortClaim = g;
    return true;
  }

  /** docs/turn-supervisor.md R3 (first half): consume the claim; true only if no `touch()` happened since `reserve(g)`. */
  consume(g: number): boolean {
    if (this.abortClaim !== g || this.generation !== g) return false;
    this.abortClaim = null;
    return true;
  }

  silenceMs(): number {
    return this.clock.now() - this.lastActivityAt;
  }
}
