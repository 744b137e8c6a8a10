// Provider failures with a stable code; auth and hard quota name the setting to fix and pause the session's wakeups.

import type { FailureFacts } from './retryPolicy';

export type ProviderErrorCode =
  | 'PROVIDER_AUTH'
  | 'PROVIDER_QUOTA'
  | 'PROVIDER_FAILED'
  | 'PROVIDER_TIMEOUT'
  | 'PROVIDER_UNAVAILABLE';

export class ProviderError extends Error {
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    /** The setting (or command) the person should change, if any. */
    readonly setting?: string,
    options?: { cause?: unknown; facts?: FailureFacts },
  ) {
    super(message, options);
    this.name = 'ProviderError';
    this.facts = options?.facts;
  }

  /** What the retry policy needs to know (status, Retry-After, dropped connection); absent: never retried. */
  readonly facts: FailureFacts | undefined;
}

/**
 * Maps an HTTP status from any provider SDK onto our codes, with a message that says what to fix. A 429 is
 * PROVIDER_QUOTA (which pauses wakeups) only for a hard quota; a rate limit is a transient PROVIDER_FAILED.
 */
export function fromHttpStatus(status: number | undefined, providerName: string, detail: string, cause: unknown, facts: FailureFacts = { status }): ProviderError {
  if (status === 401 || status === 403) {
    return new ProviderError(
      'PROVIDER_AUTH',
      `${providerName} rejected the API key (HTTP ${status}): ${detail}. Set a valid key with the command "Vigil: Set API Key" (stored in VS Code SecretStorage), and check vigil.model.baseUrl.`,
      'Vigil: Set API Key…',
      { cause, facts },
    );
  }
  if (status === 429 && facts.hardQuota) {
    return new ProviderError(
      'PROVIDER_QUOTA',
      `${providerName} refused the request: the account is out of quota (HTTP 429): ${detail}. Check the account's quota, or choose another provider in vigil.model.provider.`,
      'vigil.model.provider',
      { cause, facts },
    );
  }
  if (status === 429) {
    return new ProviderError('PROVIDER_FAILED', `${providerName} refused the request for rate limits (HTTP 429): ${detail}. Wait a moment and send the message again.`, undefined, { cause, facts });
  }
  return new ProviderError('PROVIDER_FAILED', `${providerName} request failed${status ? ` (HTTP ${status})` : ''}: ${detail}`, undefined, { cause, facts });
}

/** A hard quota (no retry helps) as OpenAI-compatible servers and Anthropic word it in the error body. */
export function isHardQuota(body: unknown, message: string): boolean {
  const e = (body && typeof body === 'object' ? ((body as { error?: unknown }).error ?? body) : {}) as { code?: unknown; type?: unknown };
  if (e.code === 'insufficient_quota' || e.type === 'insufficient_quota' || e.code === 'billing_hard_limit_reached') return true;
  return /insufficient_quota|exceeded your current quota|credit balance is too low|billing hard limit/i.test(message);
}
