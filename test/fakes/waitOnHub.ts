// Waits until a condition holds, checking it again on each event of a hub (never on a timer).

import type { EventHub } from '../../src/extension/core/common/events';

/** Resolves once `holds()` is true (checked now and after every event); rejects after `timeoutMs` with `what()`. */
export function waitOnHub<T>(hub: EventHub<T>, holds: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  if (holds()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
    }, timeoutMs);
    const off = hub.subscribe(() => {
      if (!holds()) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}
