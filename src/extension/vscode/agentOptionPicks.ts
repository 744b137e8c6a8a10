// Quick picks over the options the session's agent offers (ACP configOptions or legacy modes), the built-in
// agent's (mode, the session's model) as any other's: "Select Agent Mode…", "Agent Options…" and, for a
// third-party agent with a model option, "Select Model…" (for the built-in one it chooses the provider). Every change
// goes to the agent (session/set_config_option or session/set_mode); its answer is what the view shows.

import * as vscode from 'vscode';
import { currentChoiceName, optionOfCategory, type AgentOptionView, type AgentStateView } from '../../shared/agentState';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';
import type { VigilServices } from '../services';

export interface AgentOptionPickDeps {
  services(): Promise<VigilServices>;
  /** The session the view shows. */
  currentSessionId(): string | undefined;
  turnLive(sessionId: string): boolean;
  /** Whether a third-party ACP agent serves new turns ("Select Model…" then picks among its models, not a provider). */
  thirdPartyAgent(): boolean;
  logger: Logger;
  redact(text: string): string;
}

type Select = Extract<AgentOptionView, { kind: 'select' }>;
type Item<T> = vscode.QuickPickItem & { value?: T };

export class AgentOptionPicks {
  constructor(private readonly deps: AgentOptionPickDeps) {}

  /** `vigil.selectAgentMode`. */
  async selectMode(sessionId = this.deps.currentSessionId()): Promise<void> {
    const ready = await this.load(sessionId, 'modes');
    if (!ready) return;
    const mode = optionOfCategory(ready.state, 'mode');
    if (!mode) {
      void vscode.window.showInformationMessage(
        ready.state.options.length > 0
          ? vscode.l10n.t('Vigil: this agent offers no modes. Its other options are under "Vigil: Agent Options…".')
          : vscode.l10n.t('Vigil: this agent offers no modes.'),
      );
      return;
    }
    await this.pickValue(ready.sessionId, mode);
  }

  /** `vigil.agentOptions`: one option's values (`configId`, from a header control) or the list of all options. */
  async options(arg?: { sessionId?: string; configId?: string }): Promise<void> {
    const ready = await this.load(arg?.sessionId ?? this.deps.currentSessionId(), 'options');
    if (!ready) return;
    const { sessionId, state } = ready;
    if (arg?.configId) {
      const option = state.options.find((o) => o.id === arg.configId);
      if (!option) {
        void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: the agent no longer offers that option.'));
        return;
      }
      await this.pickValue(sessionId, option);
      return;
    }
    if (state.options.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: this agent offers no options through ACP.'));
      return;
    }
    const picked = await vscode.window.showQuickPick<Item<AgentOptionView>>(
      state.options.map((o) => ({
        label: safeLabel(o.name),
        description: o.kind === 'boolean' ? (o.current ? '$(check) on' : 'off') : safeLabel(currentChoiceName(o)),
        detail: o.description === undefined ? undefined : safeLabel(o.description),
        value: o,
      })),
      { title: vscode.l10n.t('Agent Options'), placeHolder: this.placeHolder(sessionId, vscode.l10n.t('Which option of the agent?')), matchOnDescription: true },
    );
    if (picked?.value) await this.pickValue(sessionId, picked.value);
  }

  /**
   * For "Select Model…": when a third-party agent serves the session, its own model option (if any).
   * Returns false when the built-in agent's model settings apply instead.
   */
  async selectAgentModel(): Promise<boolean> {
    if (!this.deps.thirdPartyAgent()) return false;
    const ready = await this.load(this.deps.currentSessionId(), 'models');
    if (!ready) return true;
    const model = optionOfCategory(ready.state, 'model');
    if (!model) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: this agent offers no model choice through ACP; its model is set in its own configuration (e.g. the env of the vigil.agent setting).'));
      return true;
    }
    await this.pickValue(ready.sessionId, model);
    return true;
  }

  private placeHolder(sessionId: string, question: string): string {
    return this.deps.turnLive(sessionId) ? vscode.l10n.t('{0} (a turn is running: the agent takes the change as it can, usually from its next step)', question) : question;
  }

  private async pickValue(sessionId: string, option: AgentOptionView): Promise<void> {
    if (option.kind === 'boolean') {
      const picked = await vscode.window.showQuickPick<Item<boolean>>(
        [
          { label: `${vscode.l10n.t('On')}${option.current ? ' $(check)' : ''}`, value: true },
          { label: `${vscode.l10n.t('Off')}${!option.current ? ' $(check)' : ''}`, value: false },
        ],
        { title: option.name, placeHolder: this.placeHolder(sessionId, option.description ?? vscode.l10n.t('{0}: on or off?', option.name)) },
      );
      if (picked?.value !== undefined && picked.value !== option.current) await this.set(sessionId, option, picked.value);
      return;
    }
    const picked = await vscode.window.showQuickPick<Item<string>>(choiceItems(option), {
      title: option.name,
      placeHolder: this.placeHolder(sessionId, vscode.l10n.t('{0} (now {1})', option.name, currentChoiceName(option))),
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (picked?.value !== undefined && picked.value !== option.current) await this.set(sessionId, option, picked.value);
  }

  private async set(sessionId: string, option: AgentOptionView, value: string | boolean): Promise<void> {
    const services = await this.deps.services();
    const shown = option.kind === 'boolean' ? (value ? 'on' : 'off') : option.choices.find((c) => c.value === value)?.name ?? String(value);
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Vigil: {0} → {1}…', option.name, shown) }, () =>
        services.agents.setAgentOption(sessionId, option.id, value),
      );
    } catch (error) {
      this.deps.logger.warn(`changing ${option.name} of session ${sessionId} failed: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(this.deps.redact(`Vigil: ${errorMessage(error)}`));
    }
  }

  /** The session and its agent's state, starting the agent when it has not said anything yet. */
  private async load(sessionId: string | undefined, what: string): Promise<{ sessionId: string; state: AgentStateView } | undefined> {
    if (!sessionId) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: open or start a session first (Vigil: New Session); the agent\'s {0} belong to a session.', what));
      return undefined;
    }
    const services = await this.deps.services();
    if (services.crossWindow.elsewhere(sessionId)) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: this session\'s turn runs in another window; change the agent\'s {0} there.', what));
      return undefined;
    }
    const known = services.agents.agentStateOf(sessionId);
    if (known && known.options.length > 0) return { sessionId, state: known };
    try {
      const state = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Vigil: starting the agent to read its {0}…', what) },
        () => services.agents.prepareAgent(sessionId),
      );
      return { sessionId, state };
    } catch (error) {
      this.deps.logger.warn(`starting the agent of ${sessionId} for its ${what} failed: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(this.deps.redact(`Vigil: the agent could not be started: ${errorMessage(error)}`));
      return undefined;
    }
  }
}

/** Values in the agent's groups (a separator per group), the current one marked. */
function choiceItems(option: Select): Array<Item<string>> {
  const items: Array<Item<string>> = [];
  let group: string | undefined;
  for (const c of option.choices) {
    if (c.group !== group && c.group) items.push({ label: safeLabel(c.group), kind: vscode.QuickPickItemKind.Separator });
    group = c.group;
    items.push({ label: `${safeLabel(c.name)}${c.value === option.current ? ' $(check)' : ''}`, description: c.value !== c.name ? safeLabel(c.value) : undefined, detail: c.description === undefined ? undefined : safeLabel(c.description), value: c.value });
  }
  return items;
}

/** Quick pick labels render `$(icon)`: an agent's names must not draw icons (or fake a check mark). */
function safeLabel(text: string): string {
  return text.replace(/\$\(/g, '$ (');
}
