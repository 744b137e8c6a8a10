// A manually driven clock for deterministic timing tests: time moves only when the test says so.

import type { Clock, TimerHandle } from '../../src/extension/core/ports/clock';

interface PendingTimer {
  id: number;
  at: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  private mono = 0;
  private wall = Date.UTC(2026, 0, 1);
  private nextId = 1;
  private timers: PendingTimer[] = [];

  now(): number {
    return this.mono;
  }

  wallNow(): number {
    return this.wall;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const timer = { id: this.nextId++, at: this.mono + Math.max(0, ms), fn };
    this.timers.push(timer);
    return { cancel: () => (this.timers = this.timers.filter((t) => t !== timer)) };
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /**
   * Advances time by `ms`, firing due timers in order; after each timer the microtask queue is
   * drained so that promise continuations scheduled by a timer run before the next one fires.
   */
  async advance(ms: number): Promise<void> {
    const target = this.mono + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.wall += due.at - this.mono;
      this.mono = due.at;
      due.fn();
      await flushMicrotasks();
    }
    this.wall += target - this.mono;
    this.mono = target;
    await flushMicrotasks();
  }

  /** Simulates a host suspend: wall time jumps, monotonic time does not. */
  suspend(ms: number): void {
    this.wall += ms;
  }
}

export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i += 1) await Promise.resolve();
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A fake clock that says when a timer is armed: a server that arms one per connection has taken the connection by then. */
export class ArmedClock extends FakeClock {
  private armed: Array<() => void> = [];

  override setTimer(ms: number, fn: () => void): TimerHandle {
    for (const resolve of this.armed.splice(0)) resolve();
    return super.setTimer(ms, fn);
  }

  nextTimer(): Promise<void> {
    return new Promise((resolve) => this.armed.push(resolve));
  }
}
