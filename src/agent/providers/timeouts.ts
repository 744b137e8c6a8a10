// Vigil's own first-token, idle and per-call timeouts around any provider stream: the SDKs'
// timeouts stop counting once response headers arrive, so a stream that stalls mid-way would hang.

import { ProviderError } from './providerError';
import type { ModelEvent } from './types';

export interface StreamTimeouts {
  firstTokenMs: number;
  idleMs: number;
  /** Epoch ms by which the whole turn must be done (the per-turn timeout, shared by its model calls). */
  turnDeadline: number;
  turnMs: number;
}

/**
 * Iterates `source` while enforcing the timeouts. On a timeout the provider's own request is
 * aborted through `abort` (so its socket is closed) and a PROVIDER_TIMEOUT error is thrown.
 */
export async function* withTimeouts(
  source: AsyncIterable<ModelEvent>,
  timeouts: StreamTimeouts,
  abort: (reason: Error) => void,
  signal: AbortSignal,
): AsyncGenerator<ModelEvent> {
  const iterator = source[Symbol.asyncIterator]();
  let sawContent = false;
  try {
    for (;;) {
      const budgetLeft = timeouts.turnDeadline - Date.now();
      const wait = Math.min(sawContent ? timeouts.idleMs : timeouts.firstTokenMs, budgetLeft);
      const phase = budgetLeft <= (sawContent ? timeouts.idleMs : timeouts.firstTokenMs) ? 'turn' : sawContent ? 'idle' : 'firstToken';
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const timedOut = new Promise<'timeout' | 'aborted'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), Math.max(0, wait));
        onAbort = () => resolve('aborted');
        signal.addEventListener('abort', onAbort, { once: true });
      });
      const next = iterator.next();
      // A `next` that rejects after we stopped waiting for it (timeout, cancel) was already reported
      // by the race; marking it handled keeps it from becoming an unhandled rejection.
      next.catch(ignoreSettledElsewhere);
      const result = await Promise.race([next, timedOut]);
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      if (result === 'aborted') {
        throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      }
      if (result === 'timeout') {
        const error = timeoutError(phase, timeouts);
        abort(error);
        throw error;
      }
      if (result.done) return;
      sawContent = true;
      yield result.value;
    }
  } finally {
    // Closing the iterator releases the provider's stream (its socket) on every exit path.
    void Promise.resolve(iterator.return?.()).catch(ignoreSettledElsewhere);
  }
}

function ignoreSettledElsewhere(): void {
  // Intentionally nothing: the outcome of this promise was delivered through another path.
}

function timeoutError(phase: 'turn' | 'idle' | 'firstToken', t: StreamTimeouts): ProviderError {
  switch (phase) {
    case 'firstToken':
      return new ProviderError('PROVIDER_TIMEOUT', `The model sent nothing within ${t.firstTokenMs} ms of the request (first-token timeout).`);
    case 'idle':
      return new ProviderError('PROVIDER_TIMEOUT', `The model stream stalled: no content for ${t.idleMs} ms (idle timeout).`);
    case 'turn':
      return new ProviderError('PROVIDER_TIMEOUT', `The turn exceeded ${t.turnMs} ms in total (per-turn timeout).`);
  }
}
