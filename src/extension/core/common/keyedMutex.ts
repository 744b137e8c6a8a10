// Serialises async work per key inside one process: runs for one key go one at a time, in call order, and
// different keys run side by side (across windows a file lock serialises on top of this).

export class KeyedMutex<K = string> {
  private readonly tails = new Map<K, Promise<void>>();

  /** Runs `fn` once every earlier run for `key` has settled; a run that fails does not stop the next. */
  run<T>(key: K, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Whether a run for `key` is under way or waiting. */
  busy(key: K): boolean {
    return this.tails.has(key);
  }

  /** The last queued run of every busy key, settled either way (for a drain that waits for them). */
  inFlight(): Array<Promise<void>> {
    return [...this.tails.values()];
  }
}
