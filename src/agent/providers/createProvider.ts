// Chooses the model provider from the configuration (`vigil.model.*`), resolving `auto` in a fixed, explainable order.

import { autoKeyedProvider } from '../../shared/agentProtocol/providers';
import type { AgentConfig } from '../config';
import type { HostChannel } from '../hostChannel';
import { log } from '../log';
import { DemoProvider } from './demoProvider';
import type { AnthropicOptions } from './anthropicProvider';
import type { OpenAiOptions } from './openaiProvider';
import { ProviderError } from './providerError';
import { ScriptProvider } from './scriptProvider';
import type { ModelProvider } from './types';
import { VscodeLmProvider } from './vscodeLmProvider';

// The vendor SDKs are loaded on first use: most sessions need one of them and the demo none, and
// loading both at spawn would double the agent's start-up time.
async function openAi(options: OpenAiOptions): Promise<ModelProvider> {
  const { OpenAiProvider } = await import('./openaiProvider.js');
  return new OpenAiProvider(options);
}

async function anthropic(options: AnthropicOptions): Promise<ModelProvider> {
  const { AnthropicProvider } = await import('./anthropicProvider.js');
  return new AnthropicProvider(options);
}

/**
 * `auto`: an explicit base URL → openai-compatible; else an API key with an Anthropic model name
 * → anthropic (autoKeyedProvider, which the host's key choice shares); else a VS Code language model if the
 * host offers one; else the demo.
 */
export async function createProvider(config: AgentConfig, host: HostChannel): Promise<ModelProvider> {
  const common = { baseUrl: config.baseUrl, model: config.model, apiKey: config.apiKey, maxTokens: config.maxTokens };
  switch (config.provider) {
    case 'demo':
      return config.scriptPath ? new ScriptProvider(config.scriptPath) : new DemoProvider(config.demoBuildSeconds, config.demoHoldFile);
    case 'openai-compatible':
      return openAi(common);
    case 'anthropic':
      return anthropic(common);
    case 'vscode-lm': {
      const models = await VscodeLmProvider.available(host);
      if (models.length === 0) {
        throw new ProviderError(
          'PROVIDER_UNAVAILABLE',
          'This VS Code offers no language model (none is installed or signed in, e.g. GitHub Copilot Chat). Choose another provider in vigil.model.provider.',
          'vigil.model.provider',
        );
      }
      return new VscodeLmProvider(host, config.model ?? models[0].id);
    }
    case 'auto': {
      const keyed = autoKeyedProvider(config);
      if (keyed === 'openai-compatible') return openAi(common);
      if (keyed === 'anthropic' && config.apiKey) return anthropic(common);
      try {
        const models = await VscodeLmProvider.available(host);
        if (models.length > 0) return new VscodeLmProvider(host, config.model ?? models[0].id);
      } catch (error) {
        log('warn', `auto provider: the host's language models are unavailable (${(error as Error).message}); using the demo`);
      }
      return new DemoProvider(config.demoBuildSeconds);
    }
  }
}
