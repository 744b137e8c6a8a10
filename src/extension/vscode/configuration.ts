// All `vigil.*` settings as one validated, typed object with a change event, and workspace trust.
// Invalid values fall back to defaults and are reported once per key (log + warning with "Open Settings").
// Every value passes settingsTrust first: what a workspace may not decide never reaches a spawn or a request.

import * as vscode from 'vscode';
import type { CustomAgentSettings, ModelSettings } from '../core/acp/agentLaunch';
import { retryWaitBoundMs } from '../../shared/providerRetry';
import type { ProviderKind } from '../../shared/agentProtocol/agentConfig';
import { Disposable } from '../core/common/disposable';
import type { Logger } from '../core/ports/logger';
import { LivenessSettingsResolver, type LivenessSettings } from '../core/supervisor/livenessSettings';
import { layersFromSection } from '../core/settings/sectionLayers';
import { lowerTaskCaps, resolveSettingTrust, TASK_CAP_SETTINGS, tightenApprovals, type ConfirmedSetting, type IgnoredWorkspaceValue, type WorkspaceValueQuestion } from '../core/settings/settingsTrust';
import { IssueLedger, SETTING_KEYS, validateSettings, type SettingIssue, type ValidatedSettings } from '../core/settings/settingsValidation';
import { WorkspaceSettingsTrust } from './workspaceSettingsTrust';
import { userSettingsFileReader } from './userSettingsFile';
import { AgentChoiceGate, type SettledHooks, type SettingsFileText } from '../core/settings/agentChoiceGate';

export interface VigilSettings extends ValidatedSettings {
  liveness: LivenessSettings;
}

export interface VigilSettingsChange {
  settings: VigilSettings;
  /** e.g. `affects('vigil.agent')` or `affects('vigil.model')`: whether that section changed. */
  affects(section: string): boolean;
}

export interface ConfigurationOptions {
  /** Show a warning notification for invalid settings (default true; tests turn it off). */
  notify?: boolean;
  /** Where settings come from; default `vscode.workspace.getConfiguration('vigil')`. */
  source?: () => Pick<vscode.WorkspaceConfiguration, 'get' | 'inspect'>;
  /** Confirmations of a trusted workspace's agent and endpoint; without it those workspace values are never used. */
  trust?: Pick<WorkspaceSettingsTrust, 'answer' | 'confirm'>;
  /** Default `vscode.workspace.isTrusted`; tests inject one. */
  isTrusted?: () => boolean;
  /** The user settings file, compared with what VS Code reports before an agent is chosen; none: nothing is compared. */
  settingsFile?: () => Promise<SettingsFileText | undefined>;
  /** Bounds of the hold while the two differ (agentChoiceGate.ts); tests shorten them. */
  agentChoiceWait?: { boundMs?: number; recheckMs?: number };
}

/** Providers of the built-in agent that send requests (and the stored key) to `vigil.model.baseUrl`. */
const USES_BASE_URL: readonly ProviderKind[] = ['openai-compatible', 'auto', 'anthropic'];

const LIVENESS_KEYS = ['timeoutSeconds', 'toolTimeoutSeconds', 'graceSeconds'] as const;

export class VigilConfiguration extends Disposable {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<VigilSettingsChange>());
  /** Fires after any `vigil.*` setting changed, with the re-validated settings. */
  readonly onDidChange = this._onDidChange.event;
  private readonly ledger = new IssueLedger();
  private readonly livenessIssues: SettingIssue[] = [];
  private readonly liveness: LivenessSettingsResolver;
  /** Workspace values seen and not used, already logged (by setting, value and reason). */
  private readonly noted = new Set<string>();
  private questions: WorkspaceValueQuestion[] = [];
  private ignored: IgnoredWorkspaceValue[] = [];
  /** The agent the last read resolved to, logged when it changes: which agent a window starts is never a guess. */
  private agentNoted: string | undefined;
  private current: VigilSettings;
  private readonly agentChoice: AgentChoiceGate;

  constructor(
    private readonly logger: Logger,
    private readonly options: ConfigurationOptions = {},
  ) {
    super();
    // The supervisor's resolver owns turnLiveness validation and warns once per key; its warnings also reach the notification.
    this.liveness = new LivenessSettingsResolver({
      trace: (m, ...a) => logger.trace(m, ...a),
      debug: (m, ...a) => logger.debug(m, ...a),
      info: (m, ...a) => logger.info(m, ...a),
      error: (m, ...a) => logger.error(m, ...a),
      warn: (message: string, ...args: unknown[]) => {
        const key = /vigil\.turnLiveness(?:\.\w+)?/.exec(message)?.[0] ?? 'vigil.turnLiveness';
        this.livenessIssues.push({ key, message });
        logger.warn(`[settings] ${message}`, ...args);
      },
    });
    this.current = this.read();
    this.agentChoice = new AgentChoiceGate({
      readSettingsFile: options.settingsFile ?? (async () => undefined),
      userValueOf: (key) => this.userValueOf(key),
      onSettingsChanged: (listener) => {
        const subscription = vscode.workspace.onDidChangeConfiguration((event) => event.affectsConfiguration('vigil') && listener());
        return () => subscription.dispose();
      },
      log: logger,
      ...options.agentChoiceWait,
    });
    this._register(vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('vigil')) return;
      this.current = this.read();
      this._onDidChange.fire({ settings: this.current, affects: (section) => event.affectsConfiguration(section) });
    }));
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => {
      this.logger.info('[settings] the workspace is trusted now: commands and writes are allowed by the approval policy, and its settings count (its agent and endpoint after you confirm them)');
      // The workspace's restricted settings count from now on: re-read, as after a settings change.
      this.current = this.read();
      this._onDidChange.fire({ settings: this.current, affects: () => true });
    }));
  }

  /** A window's settings: its workspace's confirmations in its workspace state, the user settings file beside its storage. */
  static forWindow(context: vscode.ExtensionContext, logger: Logger): VigilConfiguration {
    return new VigilConfiguration(logger, {
      trust: new WorkspaceSettingsTrust({ storage: context.workspaceState, logger }),
      settingsFile: userSettingsFileReader(context.globalStorageUri, logger),
    });
  }

  get settings(): VigilSettings {
    return this.current;
  }

  isTrusted(): boolean {
    return this.options.isTrusted?.() ?? vscode.workspace.isTrusted;
  }

  /** `vigil.model.*` in the shape the agent launcher takes (never an unconfirmed workspace endpoint). */
  modelSettings(): ModelSettings {
    const { provider, baseUrl, name, maxOutputTokens } = this.current.model;
    const { enabled, timeoutMs } = this.current.liveness;
    return { provider, baseUrl: baseUrl || undefined, name: name || undefined, maxOutputTokens, retryMaxWaitMs: retryWaitBoundMs(enabled ? timeoutMs : 0) };
  }

  /**
   * What the next agent process is started with. Asks first about a trusted workspace's agent (and, for the
   * built-in agent on a provider that uses it, its endpoint) when nobody answered for that exact value yet;
   * a declined or unanswered value is replaced by the user's own setting.
   */
  async launchSettings(purpose: { takingBack?: boolean } = {}): Promise<{ agent?: CustomAgentSettings; model: ModelSettings }> {
    // A turn taken back keeps the agent it runs on (relayAdoption.ts): nothing is chosen, so nothing waits or asks.
    if (purpose.takingBack) {
      const agent = this.customAgent();
      return { ...(agent ? { agent } : {}), model: this.modelSettings() };
    }
    await this.agentChoiceSettled();
    // Asked before the agent starts: its sessions are opened with these servers right after.
    await this.confirmPending('mcpServers');
    await this.confirmPending('agent');
    const agent = this.customAgent();
    if (agent) return { agent, model: this.modelSettings() };
    if (USES_BASE_URL.includes(this.current.model.provider)) await this.confirmPending('model.baseUrl');
    return { model: this.modelSettings() };
  }

  /**
   * Resolves once the agent the settings name is known: at once, unless VS Code reports other agent settings
   * than the user settings file holds (a window that did not get them); then it holds, up to a bound, and
   * throws with what to do past it. Whatever chooses or prompts an agent waits for it.
   */
  async agentChoiceSettled(hooks: SettledHooks = {}): Promise<void> {
    if (await this.agentChoice.settled(hooks)) this.current = this.read();
  }

  /** Logs whether this window got the person's agent settings (agentChoiceGate.ts). */
  noteAgentChoiceAtStart(): Promise<void> {
    return this.agentChoice.noteAtStart();
  }

  /** The value of a full key (`vigil.agent`) in the user's own settings, as VS Code reports it. */
  private userValueOf(key: string): unknown {
    const source = this.options.source?.();
    const layers = source ? source.inspect(key.replace(/^vigil\./, '')) : vscode.workspace.getConfiguration().inspect(key);
    if (!layers) return undefined;
    // Where the editor tells the user's file apart from the remote machine's settings, the file's own layer.
    return 'globalLocalValue' in layers ? (layers as { globalLocalValue?: unknown }).globalLocalValue : layers.globalValue;
  }

  /** Why a workspace value of `key` is not used in this window, if it is not. */
  ignoredWorkspaceValue(key: string): IgnoredWorkspaceValue['reason'] | undefined {
    return this.ignored.find((i) => i.key === key)?.reason;
  }

  private async confirmPending(key: ConfirmedSetting): Promise<void> {
    const question = this.questions.find((q) => q.key === key);
    if (!question || !this.options.trust) return;
    await this.options.trust.confirm(question);
    this.current = this.read();
  }

  /** The third-party agent of `vigil.agent`, or undefined for the built-in one. */
  customAgent(): CustomAgentSettings | undefined {
    const agent = this.current.agent;
    return agent.kind === 'custom' ? { command: agent.command, args: agent.args, env: agent.env, secretEnv: agent.secretEnv } : undefined;
  }

  private read(): VigilSettings {
    const source = this.options.source?.();
    const config = source ?? vscode.workspace.getConfiguration('vigil');
    const trusted = this.isTrusted();
    // Layers from inspect(), so the workspace's part is decided here, whatever VS Code already filtered;
    // one inspect() of the whole section, not one per setting (sectionLayers.ts).
    const layersOf = source ? (key: string) => source.inspect(key) : layersFromSection(vscode.workspace.getConfiguration().inspect('vigil'));
    const resolution = resolveSettingTrust(SETTING_KEYS, layersOf, {
      trusted,
      answer: (key, hash) => this.options.trust?.answer(key, hash) ?? 'unanswered',
    });
    const { settings, issues } = validateSettings(resolution.effective);
    if (trusted && (resolution.setByWorkspace('approvals.policy') || resolution.setByWorkspace('approvals.byKind'))) {
      const userApprovals = validateSettings(resolution.userLevel).settings.approvals;
      const { approvals, loosened } = tightenApprovals(userApprovals, settings.approvals);
      settings.approvals = approvals;
      if (loosened.length > 0) {
        this.noteOnce(`approvals:${JSON.stringify(approvals)}:${loosened.join(',')}`, () => this.logger.warn(
          `[settings] this workspace's vigil.approvals.* would allow more than your user settings (${loosened.join(', ')}); a workspace can only make approvals stricter, so your user setting applies there. To allow more, change vigil.approvals.* in your User settings.`,
        ));
      }
    }
    // Trusted or not, a workspace may lower the task caps, never raise them above the person's.
    if (TASK_CAP_SETTINGS.some((key) => resolution.setByWorkspace(`tasks.${key}`))) {
      const { tasks, raised } = lowerTaskCaps(validateSettings(resolution.userLevel).settings.tasks, settings.tasks);
      settings.tasks = tasks;
      const names = raised.map((key) => `vigil.tasks.${key}`).join(' and ');
      if (raised.length > 0) this.noteOnce(`taskCaps:${JSON.stringify(tasks)}:${names}`, () => this.logger.warn(`[settings] this workspace's ${names} would let more commands run at once than your user settings; a workspace can only lower these caps, so your user setting applies. To allow more, change it in your User settings.`));
    }
    // A workspace may ask for reviews of writes, never turn off the review its person asked for.
    if (resolution.setByWorkspace('edits.review') && settings.edits.review === 'auto' && validateSettings(resolution.userLevel).settings.edits.review === 'ask') {
      settings.edits.review = 'ask';
      this.noteOnce('edits.review', () => this.logger.warn('[settings] this workspace sets vigil.edits.review to "auto", but your user setting asks to review edits, so edits are reviewed. To stop reviewing, change vigil.edits.review in your User settings.'));
    }
    this.questions = resolution.questions;
    this.ignored = resolution.ignored;
    for (const ignored of resolution.ignored) this.noteIgnored(ignored);
    this.noteAgent(settings.agent);
    const liveness = this.liveness.resolve(Object.fromEntries(LIVENESS_KEYS.map((k) => [k, config.get(`turnLiveness.${k}`)])));
    const fresh = this.ledger.fresh(issues);
    for (const issue of fresh) this.logger.warn(`[settings] ${issue.message}`);
    this.report([...fresh, ...this.livenessIssues.splice(0)]);
    return { ...settings, liveness };
  }

  private noteAgent(agent: VigilSettings['agent']): void {
    // The command only: its arguments may carry a token nobody declared a secret.
    const label = agent.kind === 'custom' ? `${agent.command} (vigil.agent)` : 'the built-in agent';
    if (label === this.agentNoted) return;
    this.agentNoted = label;
    this.logger.info(`[settings] new agent processes start ${label}`);
  }

  private noteIgnored({ key, hash, reason }: IgnoredWorkspaceValue): void {
    this.noteOnce(`${key}:${hash}:${reason}`, () => {
      if (reason === 'restricted') {
        this.logger.warn(`[settings] Restricted Mode: this workspace's vigil.${key} is ignored; your user setting (or the default) applies. Trust the workspace (Workspaces: Manage Workspace Trust) to let its settings count.`);
      } else if (reason === 'unconfirmed') {
        this.logger.info(`[settings] this workspace sets vigil.${key}; it is not used until you confirm it, which Vigil asks before the next agent start that needs it`);
      }
      // 'declined' is logged with its advice where the person answered (workspaceSettingsTrust).
    });
  }

  private noteOnce(id: string, log: () => void): void {
    if (this.noted.has(id)) return;
    this.noted.add(id);
    log();
  }

  private report(issues: SettingIssue[]): void {
    if (issues.length === 0 || this.options.notify === false) return;
    const message = issues.length === 1 ? `Vigil: ${issues[0].message}` : `Vigil: ${issues.length} settings are invalid and use their defaults: ${issues.map((i) => i.key).join(', ')}. See the Vigil log for details.`;
    void vscode.window.showWarningMessage(message, vscode.l10n.t('Open Settings')).then(
      (choice) => {
        if (choice === vscode.l10n.t('Open Settings')) void vscode.commands.executeCommand('workbench.action.openSettings', issues.length === 1 ? issues[0].key : 'vigil.');
      },
      (error: unknown) => this.logger.error(`[settings] showing a settings warning failed: ${String(error)}`),
    );
  }
}
