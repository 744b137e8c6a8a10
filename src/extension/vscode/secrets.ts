// API keys in VS Code SecretStorage (`vigil.apiKey.<provider>`): the ACP client's SecretSource, read at agent spawn. Keys are never logged.

import * as vscode from 'vscode';
import type { SecretSource } from '../core/acp/hostPorts';
import { Disposable } from '../core/common/disposable';
import { errorMessage } from '../core/common/errors';
import type { Redactor } from '../core/common/redactor';
import type { Logger } from '../core/ports/logger';
import { API_KEY_PROVIDERS, apiKeyProviderFor, apiKeySecretName, type ApiKeyProvider } from '../core/settings/apiKeys';
import type { ProviderKind } from '../../shared/agentProtocol/agentConfig';

export class SecretStorageSource extends Disposable implements SecretSource {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<ApiKeyProvider>());
  /** A key was set or deleted (in this window or another): VigilApp restarts idle agents so they pick it up. */
  readonly onDidChange = this._onDidChange.event;
  /** Resolves once every stored key is known to the redactor (never rejects). */
  readonly learned: Promise<void>;

  constructor(
    private readonly storage: vscode.SecretStorage,
    private readonly logger: Logger,
    /** Learns every key read, stored or changed (also by another window), so it is redacted at once. */
    private readonly redactor?: Redactor,
  ) {
    super();
    this._register(storage.onDidChange((event) => {
      const provider = API_KEY_PROVIDERS.find((p) => apiKeySecretName(p) === event.key);
      if (!provider) return;
      // Learn the new key before anyone reacts to the change (agents restart and may echo it).
      void this.apiKey(provider).finally(() => this._onDidChange.fire(provider));
    }));
    this.learned = Promise.all(API_KEY_PROVIDERS.map((p) => this.apiKey(p))).then(() => undefined);
  }

  /** The key, or undefined when none is set or the OS keyring cannot be read (logged, without the key). */
  async apiKey(provider: ApiKeyProvider): Promise<string | undefined> {
    try {
      const key = (await this.storage.get(apiKeySecretName(provider)))?.trim();
      if (key) this.redactor?.add([key]);
      return key ? key : undefined;
    } catch (error) {
      this.logger.error(`[secrets] reading the ${provider} API key from SecretStorage failed: ${errorMessage(error)}`);
      return undefined;
    }
  }

  /** The key the agent needs for this model configuration (none for demo and vscode-lm). */
  async apiKeyFor(model: { provider: ProviderKind; baseUrl?: string; name?: string }): Promise<string | undefined> {
    const provider = apiKeyProviderFor(model);
    return provider ? this.apiKey(provider) : undefined;
  }

  async hasApiKey(provider: ApiKeyProvider): Promise<boolean> {
    return (await this.apiKey(provider)) !== undefined;
  }

  /** Stores the key; an empty one deletes it. */
  async setApiKey(provider: ApiKeyProvider, key: string): Promise<'stored' | 'deleted'> {
    const trimmed = key.trim();
    if (trimmed === '') {
      await this.storage.delete(apiKeySecretName(provider));
      this.logger.info(`[secrets] the ${provider} API key was deleted`);
      return 'deleted';
    }
    // A secret from this moment: new writes redact it even before SecretStorage reports the change.
    this.redactor?.add([trimmed]);
    await this.storage.store(apiKeySecretName(provider), trimmed);
    this.logger.info(`[secrets] a ${provider} API key was stored (${trimmed.length} characters)`);
    return 'stored';
  }
}
