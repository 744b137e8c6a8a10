// Gives memory back once the relay goes quiet: one relay lives per agent (bar: 10 MB PSS each), and V8 only
// collects when it allocates, so after a streamed turn the relay kept the turn's garbage (about 10 MB per
// few MB streamed, bench/relay.bench.ts) for as long as the agent stayed idle. One full GC a moment after
// the last message. Nothing is done per message but a clock read: the timer re-arms itself when it fires early.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Quiet time before the collection: a turn's pauses between chunks are far shorter. */
export const relayIdleGcMs = 1_500;

export interface IdleGcClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
}

const realClock: IdleGcClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
};

/** V8's `gc`, from a fresh context so the relay's own globals never carry it; undefined where the runtime refuses. */
export function loadGc(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

export class IdleGc {
  private last = 0;
  private armed = false;

  constructor(
    private readonly gc: (() => void) | undefined,
    private readonly quietMs = relayIdleGcMs,
    private readonly clock: IdleGcClock = realClock,
  ) {}

  /** Something passed through the relay: collect once it has been quiet for `quietMs`. */
  activity(): void {
    if (!this.gc) return;
    this.last = this.clock.now();
    if (this.armed) return;
    this.armed = true;
    this.clock.setTimeout(() => this.fire(), this.quietMs);
  }

  private fire(): void {
    const quiet = this.clock.now() - this.last;
    if (quiet < this.quietMs) {
      this.clock.setTimeout(() => this.fire(), this.quietMs - quiet);
      return;
    }
    this.armed = false;
    this.gc?.();
  }
}
