// All `vigil.*` settings as one validated, typed object with a change event, and workspace trust.
// Invalid values fall back to defaults and are reported once per key (log + warning with "Open Settings").

import * as vscode from 'vscode';
import type { CustomAgentSettings, ModelSettings } from '../core/acp/agentLaunch';
import { Disposable } from '../core/common/disposable';
import type { Logger } from '../core/ports/logger';
import { LivenessSettingsResolver, type LivenessSettings } from '../core/settings/livenessSettings';
import { IssueLedger, validateSettings, type SettingIssue, type ValidatedSettings } from './settingsValidation';

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
  source?: () => Pick<vscode.WorkspaceConfiguration, 'get'>;
}

const LIVENESS_KEYS = ['timeoutSeconds', 'toolTimeoutSeconds', 'graceSeconds'] as const;

export class VigilConfiguration extends Disposable {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<VigilSettingsChange>());
  /** Fires after any `vigil.*` setting changed, with the re-validated settings. */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidChangeTrust = this._register(new vscode.EventEmitter<boolean>());
  /** Fires when the person trusts the workspace (VS Code has no revoke without a reload). */
  readonly onDidChangeTrust = this._onDidChangeTrust.event;
  private readonly ledger = new IssueLedger();
  private readonly livenessIssues: SettingIssue[] = [];
  private readonly liveness: LivenessSettingsResolver;
  private current: VigilSettings;

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
    this._register(vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('vigil')) return;
      this.current = this.read();
      this._onDidChange.fire({ settings: this.current, affects: (section) => event.affectsConfiguration(section) });
    }));
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => {
      this.logger.info('[settings] the workspace is trusted now: commands and writes are allowed by the approval policy');
      this._onDidChangeTrust.fire(true);
    }));
  }

  get settings(): VigilSettings {
    return this.current;
  }

  isTrusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** `vigil.model.*` in the shape the agent launcher takes. */
  modelSettings(): ModelSettings {
    const { provider, baseUrl, name, scriptFile } = this.current.model;
    return { provider, baseUrl: baseUrl || undefined, name: name || undefined, scriptPath: scriptFile || undefined };
  }

  /** The third-party agent of `vigil.agent`, or undefined for the built-in one. */
  customAgent(): CustomAgentSettings | undefined {
    const agent = this.current.agent;
    return agent.kind === 'custom' ? { command: agent.command, args: agent.args, env: agent.env } : undefined;
  }

  private read(): VigilSettings {
    const config = this.options.source?.() ?? vscode.workspace.getConfiguration('vigil');
    const { settings, issues } = validateSettings((key) => config.get(key));
    const liveness = this.liveness.resolve(Object.fromEntries(LIVENESS_KEYS.map((k) => [k, config.get(`turnLiveness.${k}`)])));
    const fresh = this.ledger.fresh(issues);
    for (const issue of fresh) this.logger.warn(`[settings] ${issue.message}`);
    this.report([...fresh, ...this.livenessIssues.splice(0)]);
    return { ...settings, liveness };
  }

  private report(issues: SettingIssue[]): void {
    if (issues.length === 0 || this.options.notify === false) return;
    const message = issues.length === 1 ? `Vigil: ${issues[0].message}` : `Vigil: ${issues.length} settings are invalid and use their defaults: ${issues.map((i) => i.key).join(', ')}. See the Vigil log for details.`;
    void vscode.window.showWarningMessage(message, 'Open Settings').then(
      (choice) => {
        if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', issues.length === 1 ? issues[0].key : 'vigil.');
      },
      (error: unknown) => this.logger.error(`[settings] showing a settings warning failed: ${String(error)}`),
    );
  }
}
