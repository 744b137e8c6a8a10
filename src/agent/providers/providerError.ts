// Provider failures with a stable code; auth and quota name the setting to fix and pause the session's wakeups.

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
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProviderError';
  }
}

/** Maps an HTTP status from any provider SDK onto our codes, with a message that says what to fix. */
export function fromHttpStatus(status: number | undefined, providerName: string, detail: string, cause: unknown): ProviderError {
  if (status === 401 || status === 403) {
    return new ProviderError(
      'PROVIDER_AUTH',
      `${providerName} rejected the API key (HTTP ${status}): ${detail}. Set a valid key with the command "Vigil: Set API Key" (stored in VS Code SecretStorage), and check vigil.model.baseUrl.`,
      'Vigil: Set API Key…',
      { cause },
    );
  }
  if (status === 429) {
    return new ProviderError(
      'PROVIDER_QUOTA',
      `${providerName} refused the request for quota or rate limits (HTTP 429): ${detail}. Check the account's quota, or choose another provider in vigil.model.provider.`,
      'vigil.model.provider',
      { cause },
    );
  }
  return new ProviderError('PROVIDER_FAILED', `${providerName} request failed${status ? ` (HTTP ${status})` : ''}: ${detail}`, undefined, { cause });
}
