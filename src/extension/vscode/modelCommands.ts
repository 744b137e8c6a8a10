// Select Agent…, Select Model… and Set API Key…: quick picks that write `vigil.agent` / `vigil.model.*`
// at the global level and API keys to SecretStorage.

import * as vscode from 'vscode';
import type { ProviderKind } from '../../shared/agentProtocol/agentConfig';
import { defaultAnthropicModel } from '../../shared/agentProtocol/providers';
import type { CustomAgentSettings } from '../core/acp/agentLaunch';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';
import { API_KEY_LABELS, API_KEY_PROVIDERS, type ApiKeyProvider } from '../core/settings/apiKeys';
import { agentLabel, parseCommandLine, readRemembered, rememberAgent, sameAgent, validateModelName } from '../presentation/modelChoices';
import type { SecretStorageSource } from './secrets';
import { validateBaseUrl, type ValidatedSettings } from '../core/settings/settingsValidation';

const REMEMBERED_AGENTS_KEY = 'vigil.rememberedAgents';

export interface ModelCommandDeps {
  /** Remembers third-party agents the person used, so they stay one pick away after switching back to built-in. */
  globalState: vscode.Memento;
  secrets: Pick<SecretStorageSource, 'hasApiKey' | 'setApiKey'>;
  /** The validated settings (VigilConfiguration fits). */
  config: { readonly settings: Pick<ValidatedSettings, 'agent' | 'model'> };
  logger: Logger;
  /** "Select Model…" for a third-party agent with its own model option; false when the built-in agent's settings apply. */
  agentModel?(): Promise<boolean>;
  /** Default `vscode.lm.selectChatModels()`; injectable for tests. */
  chatModels?(): Thenable<readonly vscode.LanguageModelChat[]>;
}

type Pick1<T> = vscode.QuickPickItem & { value: T };

export class ModelCommands {
  constructor(private readonly deps: ModelCommandDeps) {}

  /** `vigil.selectAgent`. */
  async selectAgent(): Promise<void> {
    const current = this.deps.config.settings.agent;
    const currentCustom: CustomAgentSettings | undefined = current.kind === 'custom' ? { command: current.command, args: current.args, env: current.env } : undefined;
    const remembered = readRemembered(this.deps.globalState.get(REMEMBERED_AGENTS_KEY)).filter((a) => !currentCustom || !sameAgent(a, currentCustom));
    const mark = (on: boolean) => (on ? ' $(check)' : '');
    type Choice = { kind: 'builtin' } | { kind: 'agent'; agent: CustomAgentSettings } | { kind: 'enter' } | { kind: 'settings' };
    const items: Array<Pick1<Choice> | vscode.QuickPickItem> = [
      { label: `$(hubot) Built-in agent${mark(!currentCustom)}`, description: 'uses the model of Vigil: Select Model…', value: { kind: 'builtin' } },
      ...(currentCustom ? [{ label: `$(terminal) ${agentLabel(currentCustom)}${mark(true)}`, description: 'ACP agent (current)', value: { kind: 'agent', agent: currentCustom } as Choice }] : []),
      ...remembered.map((agent) => ({ label: `$(terminal) ${agentLabel(agent)}`, description: 'ACP agent', value: { kind: 'agent', agent } as Choice })),
      { label: '', kind: vscode.QuickPickItemKind.Separator },
      { label: '$(edit) Enter an ACP agent command…', description: 'e.g. gemini --acp', value: { kind: 'enter' } },
      { label: '$(gear) Configure a third-party ACP agent…', description: 'opens the vigil.agent setting (command, args, env)', value: { kind: 'settings' } },
    ];
    const picked = (await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Which agent serves new turns?') })) as Pick1<Choice> | undefined;
    if (!picked) return;
    const choice = picked.value;
    switch (choice.kind) {
      case 'builtin':
        if (currentCustom) await this.remember(currentCustom);
        await this.write('agent', undefined, 'the built-in agent');
        return;
      case 'agent':
        await this.remember(choice.agent);
        await this.write('agent', choice.agent, agentLabel(choice.agent));
        return;
      case 'enter': {
        const line = await vscode.window.showInputBox({
          title: vscode.l10n.t('ACP agent command'),
          prompt: vscode.l10n.t('The command that starts an agent speaking ACP on stdio; environment variables go in the vigil.agent setting.'),
          placeHolder: vscode.l10n.t('gemini --acp'),
          validateInput: (value) => {
            const parsed = parseCommandLine(value);
            return 'error' in parsed ? parsed.error : undefined;
          },
        });
        if (line === undefined) return;
        const parsed = parseCommandLine(line);
        if ('error' in parsed) return;
        const agent: CustomAgentSettings = { command: parsed.command, args: parsed.args, env: {} };
        if (currentCustom) await this.remember(currentCustom);
        await this.remember(agent);
        await this.write('agent', agent, agentLabel(agent));
        return;
      }
      case 'settings':
        await vscode.commands.executeCommand('workbench.action.openSettings', 'vigil.agent');
        return;
      default: {
        const never: never = choice;
        return never;
      }
    }
  }

  /** `vigil.selectModel`: the third-party agent's own models when it serves turns; else provider, then what that provider needs. */
  async selectModel(): Promise<void> {
    if (await this.deps.agentModel?.()) return;
    const model = this.deps.config.settings.model;
    const mark = (p: ProviderKind) => (model.provider === p ? ' $(check)' : '');
    const items: Array<Pick1<ProviderKind>> = [
      { label: `$(vscode) VS Code language models${mark('vscode-lm')}`, description: 'e.g. GitHub Copilot; no API key needed', value: 'vscode-lm' },
      { label: `$(globe) OpenAI-compatible${mark('openai-compatible')}`, description: 'OpenAI, OpenRouter, Ollama, LM Studio, vLLM', value: 'openai-compatible' },
      { label: `$(sparkle) Anthropic${mark('anthropic')}`, description: 'Claude models', value: 'anthropic' },
      { label: `$(wand) Auto${mark('auto')}`, description: 'VS Code models if offered, else a key that is set, else the demo', value: 'auto' },
      { label: `$(beaker) Demo${mark('demo')}`, description: 'an offline demo, not a real model', detail: 'Shows what Vigil does (streaming, tools, a background task) without any model.', value: 'demo' },
    ];
    const picked = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Which model provider does the built-in agent use?'), matchOnDescription: true });
    if (!picked) return;
    switch (picked.value) {
      case 'openai-compatible': {
        const baseUrl = await vscode.window.showInputBox({
          title: vscode.l10n.t('OpenAI-compatible endpoint (1/2)'),
          prompt: vscode.l10n.t('Base URL of the endpoint. Leave empty for OpenAI itself.'),
          placeHolder: vscode.l10n.t('http://127.0.0.1:11434/v1 (Ollama), https://openrouter.ai/api/v1, …'),
          value: model.provider === 'openai-compatible' ? model.baseUrl : '',
          validateInput: validateBaseUrl,
          ignoreFocusOut: true,
        });
        if (baseUrl === undefined) return;
        const name = await this.askModelName(vscode.l10n.t('OpenAI-compatible endpoint (2/2)'), 'gpt-4.1, llama3.1, …', model.provider === 'openai-compatible' ? model.name : '');
        if (name === undefined) return;
        await this.writeModel('openai-compatible', { baseUrl: baseUrl.trim(), name });
        await this.offerKey('openai-compatible', baseUrl.trim());
        return;
      }
      case 'anthropic': {
        const name = await this.askModelName(vscode.l10n.t('Anthropic model'), defaultAnthropicModel, model.provider === 'anthropic' ? model.name : '');
        if (name === undefined) return;
        // A base URL left from an OpenAI-compatible endpoint would send Anthropic requests there.
        await this.writeModel('anthropic', { baseUrl: '', name });
        await this.offerKey('anthropic', '');
        return;
      }
      case 'vscode-lm':
        await this.selectVscodeModel();
        return;
      case 'auto':
      case 'demo':
        await this.writeModel(picked.value, {});
        return;
      default: {
        const never: never = picked.value;
        return never;
      }
    }
  }

  /** `vigil.setApiKey`: a provider (or the one given), then the key in a password box; empty deletes it. */
  async setApiKey(provider?: ApiKeyProvider): Promise<void> {
    if (!provider) {
      const items = await Promise.all(API_KEY_PROVIDERS.map(async (p) => ({ label: API_KEY_LABELS[p], description: (await this.deps.secrets.hasApiKey(p)) ? 'a key is set' : 'no key set', value: p })));
      provider = (await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('API key of which provider?') }))?.value;
      if (!provider) return;
    }
    const key = await vscode.window.showInputBox({
      title: vscode.l10n.t('{0} API key', API_KEY_LABELS[provider]),
      prompt: vscode.l10n.t('Stored in VS Code’s secret storage, never in settings or logs. Leave empty and press Enter to delete the stored key.'),
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (/\s/.test(value.trim()) ? vscode.l10n.t('An API key has no spaces or line breaks.') : undefined),
    });
    if (key === undefined) return;
    try {
      const result = await this.deps.secrets.setApiKey(provider, key);
      void vscode.window.showInformationMessage(
        result === 'stored'
          ? vscode.l10n.t('Vigil: the {0} API key is stored; the next turn uses it.', API_KEY_LABELS[provider])
          : vscode.l10n.t('Vigil: the {0} API key is deleted.', API_KEY_LABELS[provider]),
      );
    } catch (error) {
      this.deps.logger.error(`[settings] storing the ${provider} API key failed: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Vigil: could not store the API key in VS Code’s secret storage: {0}', errorMessage(error)));
    }
  }

  private async selectVscodeModel(): Promise<void> {
    let models: readonly vscode.LanguageModelChat[];
    try {
      models = await (this.deps.chatModels?.() ?? vscode.lm.selectChatModels());
    } catch (error) {
      this.deps.logger.warn(`[settings] listing VS Code language models failed: ${errorMessage(error)}`);
      models = [];
    }
    if (models.length === 0) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t('Vigil: this VS Code offers no language model. Install and sign in to an extension that provides one (e.g. GitHub Copilot Chat), or choose another provider.'),
      );
      return;
    }
    const current = this.deps.config.settings.model;
    const picked = await vscode.window.showQuickPick(
      models.map((m) => ({
        label: `${m.name}${current.provider === 'vscode-lm' && current.name === m.id ? ' $(check)' : ''}`,
        description: `${m.vendor} · ${m.family}`,
        detail: `${m.id} · up to ${m.maxInputTokens.toLocaleString()} input tokens`,
        value: m.id,
      })),
      { placeHolder: vscode.l10n.t('Which VS Code language model?'), matchOnDescription: true, matchOnDetail: true },
    );
    if (picked) await this.writeModel('vscode-lm', { baseUrl: '', name: picked.value });
  }

  private askModelName(title: string, placeHolder: string, value: string): Thenable<string | undefined> {
    return vscode.window
      .showInputBox({ title, prompt: vscode.l10n.t('Model name. Leave empty for the provider’s default.'), placeHolder, value, validateInput: validateModelName, ignoreFocusOut: true })
      .then((name) => name?.trim());
  }

  private async writeModel(provider: ProviderKind, values: { baseUrl?: string; name?: string }): Promise<void> {
    const ok = await this.write('model.provider', provider, undefined);
    if (!ok) return;
    if (values.baseUrl !== undefined) await this.write('model.baseUrl', values.baseUrl || undefined, undefined);
    if (values.name !== undefined) await this.write('model.name', values.name || undefined, undefined);
    const what = [provider, values.name].filter(Boolean).join(' · ');
    this.deps.logger.info(`[settings] model set to ${what}`);
    void vscode.window.showInformationMessage(
      provider === 'demo'
        ? vscode.l10n.t('Vigil: the built-in agent now uses the demo model (not a real model). New turns use it.')
        : vscode.l10n.t('Vigil: the built-in agent now uses {0}. New turns use it.', what),
    );
  }

  private async offerKey(provider: ApiKeyProvider, baseUrl: string): Promise<void> {
    if (await this.deps.secrets.hasApiKey(provider)) return;
    // Local servers (Ollama, LM Studio) usually need no key: offer it, never insist.
    const local = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:|\/|$)/.test(baseUrl);
    const message = local ? 'Vigil: no API key is set for this endpoint (local servers often need none).' : `Vigil: no ${API_KEY_LABELS[provider]} API key is set yet.`;
    const choice = await vscode.window.showInformationMessage(message, vscode.l10n.t('Set API Key'));
    if (choice === vscode.l10n.t('Set API Key')) await this.setApiKey(provider);
  }

  private async remember(agent: CustomAgentSettings): Promise<void> {
    await this.deps.globalState.update(REMEMBERED_AGENTS_KEY, rememberAgent(this.deps.globalState.get(REMEMBERED_AGENTS_KEY), agent));
  }

  /** Writes one setting globally; says so when a workspace value hides it. `announce` names the result for a message. */
  private async write(key: string, value: unknown, announce: string | undefined): Promise<boolean> {
    const config = vscode.workspace.getConfiguration('vigil');
    try {
      await config.update(key, value, vscode.ConfigurationTarget.Global);
    } catch (error) {
      this.deps.logger.error(`[settings] writing vigil.${key} failed: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Vigil: could not write vigil.{0}: {1}', key, errorMessage(error)));
      return false;
    }
    const inspected = config.inspect(key);
    if (inspected?.workspaceValue !== undefined || inspected?.workspaceFolderValue !== undefined) {
      void vscode.window
        .showWarningMessage(vscode.l10n.t('Vigil: vigil.{0} is also set in this workspace\'s settings, which take precedence here; the new value applies in other workspaces.', key), vscode.l10n.t('Open Workspace Settings'))
        .then((choice) => choice && vscode.commands.executeCommand('workbench.action.openWorkspaceSettings', `vigil.${key}`));
    }
    if (announce) {
      this.deps.logger.info(`[settings] agent set to ${announce}`);
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: new turns are served by {0}.', announce));
    }
    return true;
  }
}
