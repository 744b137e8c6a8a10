// Runs an async job one at a time; a request while it runs queues exactly one more pass, so a
// change that lands mid-run is never missed and bursts never pile up.

export class CoalescingRun {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly job: () => Promise<void>,
    /** Checked before a queued pass: true stops the loop (e.g. the owner was closed). */
    private readonly stopped: () => boolean = () => false,
  ) {}

  request(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.job();
        } while (this.again && !this.stopped());
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** The pass in progress, if any. */
  get current(): Promise<void> | undefined {
    return this.running;
  }
}
