// The host ↔ built-in agent contract for model-request retries: the agent tells the host about each retry
// (`_vigil/provider/retry`, an activity for the watchdog and a line in the transcript), and the host tells
// the agent how long it may wait before one (so a long Retry-After fails clearly instead of looking stalled).

import type { ProviderRetryParams } from './providerRetrySchema';

/** Agent → host notification, sent before each wait (only to a host that advertised it); params in providerRetrySchema.ts. */
export const providerRetryMethod = '_vigil/provider/retry';

export type { ProviderRetryParams };

/** Whole seconds as a person reads them: a wait under a second still says "1 s". */
export function retryWaitSeconds(delayMs: number): number {
  return Math.max(1, Math.ceil(delayMs / 1000));
}

/** The transcript line and the activity description of one retry: "Retrying in 8 s (2/5) after HTTP 429." */
export function retryNoticeText(p: Pick<ProviderRetryParams, 'attempt' | 'maxRetries' | 'delayMs' | 'reason'>): string {
  // The reason comes from the agent: one plain line, whatever it sent.
  // eslint-disable-next-line no-control-regex
  const reason = p.reason.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim() || 'a failed request';
  return `Retrying in ${retryWaitSeconds(p.delayMs)} s (${p.attempt}/${p.maxRetries}) after ${reason}.`;
}

/** Longest wait before a retry when the watchdog is off. */
export const RETRY_WAIT_CAP_MS = 300_000;

/**
 * The longest wait the agent may take before a retry: 40 % of the watchdog's bound, so the wait ends before
 * the turn is reported quiet (at half the bound) and far from a stall; at most `RETRY_WAIT_CAP_MS`.
 * `timeoutMs` ≤ 0 (watchdog off) or absent: the cap.
 */
export function retryWaitBoundMs(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs) || timeoutMs <= 0) return RETRY_WAIT_CAP_MS;
  return Math.max(1000, Math.min(RETRY_WAIT_CAP_MS, Math.floor(timeoutMs * 0.4)));
}
