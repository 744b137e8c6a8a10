// A parking point for race tests: the supervisor awaits it, the test acts while it is parked, then releases.

export class ParkingPoint {
  calls = 0;
  private releaseFn: (() => void) | undefined;
  private parkedFn!: () => void;
  readonly parked: Promise<void> = new Promise<void>((resolve) => (this.parkedFn = resolve));

  /** Pass as a hook: parks the caller on its first call; later calls pass straight through. */
  readonly hook = (): Promise<void> | void => {
    this.calls += 1;
    if (this.calls > 1) return;
    this.parkedFn();
    return new Promise<void>((resolve) => (this.releaseFn = resolve));
  };

  release(): void {
    this.releaseFn?.();
  }
}
