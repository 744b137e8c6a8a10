// The core's event idiom: `subscribe(fn)` returns an unsubscribe function (ports/subscription.ts).

import type { Unsubscribe } from '../ports/subscription';

export type { Unsubscribe };
export type Listener<T> = (event: T) => void;

export class EventHub<T> {
  private listeners = new Set<Listener<T>>();

  subscribe(listener: Listener<T>): Unsubscribe {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Delivers to every listener; a throwing listener never stops the others or the emitter. */
  emit(event: T, onListenerError?: (error: unknown) => void): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        onListenerError?.(error);
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }

  clear(): void {
    this.listeners.clear();
  }
}
