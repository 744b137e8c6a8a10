// Time as a port: monotonic milliseconds for deadlines, wall time for records, timers that tests can drive.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Monotonic milliseconds; never jumps backwards. */
  now(): number;
  /** Wall-clock milliseconds since the epoch, for durable records and suspend detection. */
  wallNow(): number;
  setTimer(ms: number, fn: () => void): TimerHandle;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
  setTimer(ms, fn) {
    const handle = setTimeout(fn, Math.max(0, ms));
    handle.unref?.();
    return { cancel: () => clearTimeout(handle) };
  },
};

/**
 * Detects a host suspend (laptop lid): wall time advanced much further than monotonic time
 * would suggest between two samples, or monotonic time jumped while the process was frozen.
 * Returns the milliseconds that should not count as silence.
 */
export class SuspendDetector {
  private lastMono: number;
  private lastWall: number;

  constructor(
    private readonly clock: Clock,
    private readonly toleranceMs = 2_000,
  ) {
    this.lastMono = clock.now();
    this.lastWall = clock.wallNow();
  }

  /** Call on every watchdog tick; returns the suspended span since the previous sample (0 if none). */
  sample(): number {
    const mono = this.clock.now();
    const wall = this.clock.wallNow();
    const drift = wall - this.lastWall - (mono - this.lastMono);
    this.lastMono = mono;
    this.lastWall = wall;
    return drift > this.toleranceMs ? drift : 0;
  }
}
