// One in-flight run per key: callers that ask while a run for the same key is going join it.

export class SingleFlight<K, V> {
  private readonly running = new Map<K, Promise<V>>();

  /** The running promise for `key`, or a new one from `start`; it is forgotten once it settles. */
  run(key: K, start: () => Promise<V>): Promise<V> {
    let running = this.running.get(key);
    if (!running) {
      running = start().finally(() => this.running.delete(key));
      this.running.set(key, running);
    }
    return running;
  }

  /** The run in flight for `key`, if any. */
  get(key: K): Promise<V> | undefined {
    return this.running.get(key);
  }
}
