// Commit barriers: work that must not be torn in half. An abort waits for in-flight ones, never cancels them.

export interface PendingBarrier {
  readonly name: string;
  /** Starts the reserved work; false if an abort cancelled it while it was still pending. */
  begin(): boolean;
  finish(): void;
  readonly cancelled: boolean;
}

export class CommitBarriers {
  private inFlight = 0;
  /** Names of the in-flight barriers, so a stall that waits on one can say which. */
  private readonly names = new Map<string, number>();
  private idleWaiters: Array<() => void> = [];
  private readonly pending = new Set<Barrier>();

  /** Reserves a barrier that has not started yet; only a committed abort may cancel it. */
  reserve(name: string): PendingBarrier {
    const barrier = new Barrier(name, this);
    this.pending.add(barrier);
    return barrier;
  }

  /** Runs `work` as an in-flight barrier: an abort that arrives meanwhile waits for it to finish. */
  async run<T>(name: string, work: () => Promise<T>): Promise<T> {
    this.enter(name);
    try {
      return await work();
    } finally {
      this.leave(name);
    }
  }

  get inFlightCount(): number {
    return this.inFlight;
  }

  get inFlightNames(): string[] {
    return [...this.names.keys()];
  }

  /** Non-destructive: resolves once nothing is in flight. Pending barriers are left alone. */
  async waitInFlight(): Promise<void> {
    while (this.inFlight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Called only after an abort's claim survived and its state was published. */
  cancelPending(): void {
    for (const barrier of this.pending) barrier.cancel();
    this.pending.clear();
  }

  /** @internal */
  enter(name: string): void {
    this.inFlight += 1;
    this.names.set(name, (this.names.get(name) ?? 0) + 1);
  }

  /** @internal */
  leave(name: string): void {
    this.inFlight -= 1;
    const left = (this.names.get(name) ?? 1) - 1;
    if (left > 0) this.names.set(name, left);
    else this.names.delete(name);
    if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** @internal */
  forget(barrier: Barrier): void {
    this.pending.delete(barrier);
  }
}

class Barrier implements PendingBarrier {
  private state: 'pending' | 'started' | 'finished' | 'cancelled' = 'pending';

  constructor(
    readonly name: string,
    private readonly owner: CommitBarriers,
  ) {}

  get cancelled(): boolean {
    return this.state === 'cancelled';
  }

  begin(): boolean {
    if (this.state !== 'pending') return false;
    this.state = 'started';
    this.owner.forget(this);
    this.owner.enter(this.name);
    return true;
  }

  finish(): void {
    if (this.state !== 'started') return;
    this.state = 'finished';
    this.owner.leave(this.name);
  }

  cancel(): void {
    if (this.state === 'pending') this.state = 'cancelled';
  }
}
