// Waiting on a promise only as long as an AbortSignal allows: with `AbortSignal.timeout(ms)` a bound on wall time,
// with a request's or a turn's signal a cancellation. One helper instead of a Promise.race per call site, each
// with its own timer and listener to clean up.

/**
 * Settles as `promise` does, unless `signal` aborts first (or already has): then settles with `onAbort(reason)`,
 * rejecting if it throws. The abort listener is removed as soon as the promise settles, so a long-lived signal
 * does not collect listeners; a rejection of `promise` after the abort is observed, never unhandled.
 */
export function untilAborted<T, U>(promise: Promise<T>, signal: AbortSignal, onAbort: (reason: unknown) => U): Promise<T | U> {
  return new Promise<T | U>((resolve, reject) => {
    const aborted = () => {
      try {
        resolve(onAbort(signal.reason));
      } catch (error) {
        reject(error);
      }
    };
    promise.then(
      (value) => {
        signal.removeEventListener('abort', aborted);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', aborted);
        reject(error);
      },
    );
    if (signal.aborted) aborted();
    else signal.addEventListener('abort', aborted, { once: true });
  });
}

/**
 * `AbortSignal.timeout` for any duration a setting, a test or an agent gives (it throws on a fraction, a negative
 * or NaN): whole ms, at least 0, at most what a timer holds (~24.8 days; a longer one would fire at once).
 */
export function timeoutSignal(ms: number): AbortSignal {
  const whole = Number.isNaN(ms) ? 0 : Math.ceil(ms);
  return AbortSignal.timeout(Math.min(Math.max(0, whole), 2_147_483_647));
}
