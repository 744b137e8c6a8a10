// When a failed model request is tried again, and after how long: transient failures (rate limits, 5xx,
// dropped connections) back off exponentially with jitter or as the server's Retry-After says; credentials,
// hard quota and bad requests fail at once. Pure: the caller supplies the clock and the randomness.

/** What a provider learned about a failed request, as far as retrying is concerned. */
export interface FailureFacts {
  /** HTTP status, when the server answered. */
  status?: number;
  /** The server's Retry-After (already converted to ms from now), when it sent one. */
  retryAfterMs?: number;
  /** The account is out of quota or credit (e.g. OpenAI's `insufficient_quota`): retrying cannot help. */
  hardQuota?: boolean;
  /** A dropped or reset connection, by its error code or wording (e.g. `ECONNRESET`, `socket hang up`). */
  connection?: string;
}

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Backoff before retry k (from 1) is `baseDelayMs · 2^(k−1)`, jittered, at most `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest wait the host allows (from the watchdog's bound); a longer Retry-After gives up. */
  maxWaitMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 5, baseDelayMs: 1000, maxDelayMs: 30_000, maxWaitMs: 120_000 };

export type RetryDecision =
  | { kind: 'retry'; delayMs: number; attempt: number }
  | { kind: 'giveUp'; why: 'permanent' }
  | { kind: 'giveUp'; why: 'exhausted'; retries: number }
  | { kind: 'giveUp'; why: 'waitTooLong'; waitMs: number; maxWaitMs: number };

const transientStatuses = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529]);
const connectionFailures = /\b(ECONNRESET|ETIMEDOUT|EPIPE|ECONNABORTED|UND_ERR_SOCKET|UND_ERR_CLOSED)\b|socket hang up|other side closed|connection (?:was )?reset|terminated|stream ended before/i;

/** Whether trying the same request again may succeed. */
export function isTransient(f: FailureFacts): boolean {
  if (f.hardQuota) return false;
  if (f.status !== undefined) return transientStatuses.has(f.status) || (f.status >= 500 && f.status <= 599);
  return f.connection !== undefined && connectionFailures.test(f.connection);
}

/** Whether a connection failure's wording or code is one of the transient ones (for providers that classify). */
export function isTransientConnection(text: string): boolean {
  return connectionFailures.test(text);
}

/**
 * `retriesSoFar` retries were made already. `random` returns [0, 1): the jitter draws the backoff from
 * [half, all] of its exponential value, so clients that failed together do not come back together.
 */
export function decideRetry(f: FailureFacts, retriesSoFar: number, policy: RetryPolicy, random: () => number): RetryDecision {
  if (!isTransient(f)) return { kind: 'giveUp', why: 'permanent' };
  if (retriesSoFar >= policy.maxRetries) return { kind: 'giveUp', why: 'exhausted', retries: retriesSoFar };
  const attempt = retriesSoFar + 1;
  if (f.retryAfterMs !== undefined) {
    if (f.retryAfterMs > policy.maxWaitMs) return { kind: 'giveUp', why: 'waitTooLong', waitMs: f.retryAfterMs, maxWaitMs: policy.maxWaitMs };
    return { kind: 'retry', delayMs: Math.max(0, Math.round(f.retryAfterMs)), attempt };
  }
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1), policy.maxWaitMs);
  const jittered = exponential / 2 + (exponential / 2) * Math.min(1, Math.max(0, random()));
  return { kind: 'retry', delayMs: Math.round(jittered), attempt };
}

/** Longest Retry-After we read at all; anything longer is as good as "not within this turn". */
const RETRY_AFTER_LIMIT_MS = 7 * 24 * 3600 * 1000;

/**
 * Retry-After in ms from `nowMs`: `retry-after-ms` (OpenAI's, milliseconds), else `retry-after` as seconds or an
 * HTTP-date. Absent, malformed or negative values give undefined (the backoff applies); a date in the past gives 0.
 */
export function parseRetryAfter(header: (name: string) => string | null | undefined, nowMs: number): number | undefined {
  const ms = header('retry-after-ms')?.trim();
  if (ms && /^\d+(?:\.\d+)?$/.test(ms)) return Math.min(RETRY_AFTER_LIMIT_MS, Number(ms));
  const value = header('retry-after')?.trim();
  if (!value || value.length > 64) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(value)) return Math.min(RETRY_AFTER_LIMIT_MS, Number(value) * 1000);
  // An HTTP-date names a weekday and a GMT time; Date.parse alone would also take bare numbers and odd forms.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)) return undefined;
  const at = Date.parse(value);
  if (!Number.isFinite(at)) return undefined;
  return Math.min(RETRY_AFTER_LIMIT_MS, Math.max(0, at - nowMs));
}

/** How a failure reads in "Retrying in 8 s (2/5) after …". */
export function describeFailure(f: FailureFacts): string {
  if (f.status !== undefined) return `HTTP ${f.status}`;
  const code = f.connection?.match(/\b(E[A-Z]+|UND_ERR_[A-Z_]+)\b/)?.[1];
  return code ? `a dropped connection (${code})` : 'a dropped connection';
}

/** The codes and messages along an error's `cause` chain, for telling a reset connection from a refused one. */
export function causeChainText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    const e = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof e.code === 'string') parts.push(e.code);
    if (typeof e.message === 'string') parts.push(e.message.slice(0, 200));
    current = e.cause;
  }
  return parts.join(' ');
}
