// Which API key a model configuration needs and where it lives in SecretStorage; pure, unit-tested.

import type { ProviderKind } from '../../../shared/agentProtocol/agentConfig';
import { autoKeyedProvider } from '../../../shared/agentProtocol/providers';

export type ApiKeyProvider = 'openai-compatible' | 'anthropic';
export const API_KEY_PROVIDERS: readonly ApiKeyProvider[] = ['openai-compatible', 'anthropic'];

export const API_KEY_LABELS: Record<ApiKeyProvider, string> = {
  'openai-compatible': 'OpenAI-compatible (OpenAI, OpenRouter, a local server…)',
  anthropic: 'Anthropic',
};

/** The SecretStorage key of a provider's API key. */
export function apiKeySecretName(provider: ApiKeyProvider): string {
  return `vigil.apiKey.${provider}`;
}

/**
 * The key the built-in agent needs at spawn, by the agent's own `auto` rule (autoKeyedProvider).
 */
export function apiKeyProviderFor(model: { provider: ProviderKind; baseUrl?: string; name?: string }): ApiKeyProvider | undefined {
  switch (model.provider) {
    case 'openai-compatible':
    case 'anthropic':
      return model.provider;
    case 'auto':
      return autoKeyedProvider({ baseUrl: model.baseUrl, model: model.name });
    case 'vscode-lm':
    case 'demo':
      return undefined;
    default: {
      const never: never = model.provider;
      return never;
    }
  }
}
