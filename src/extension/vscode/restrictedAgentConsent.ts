// Restricted Mode and the person's third-party agent, in the workbench: the modal asked when that agent would start
// in a folder nobody answered for, the session header's agent and line with its Change…, and "Vigil: Forget Agent
// Consent for This Folder". What is decided and when: core/settings/restrictedAgentGate.ts.

import * as vscode from 'vscode';
import type { CustomAgentSettings } from '../core/acp/agentLaunch';
import type { Logger } from '../core/ports/logger';
import type { ConsentQuestion } from '../core/settings/restrictedAgent';
import { RestrictedAgentGate } from '../core/settings/restrictedAgentGate';
import type { SessionMetaView } from '../../shared/sessionView';
import type { VigilConfiguration } from './configuration';
import type { SessionController } from './sessionController';
import type { VigilServices } from '../services';
import { windowFolders } from './windowFolders';

const STORAGE_KEY = 'vigil.restrictedAgentConsent';

export interface RestrictedAgentDeps {
  /** Vigil's global storage: an answer belongs to a folder wherever it is opened, and no repository can write it. */
  storage: Pick<vscode.Memento, 'get' | 'update'>;
  logger: Logger;
  isTrusted(): boolean;
  customAgent(): CustomAgentSettings | undefined;
  /** The folder a session works in ('' in a window without one). */
  folderOf(sessionId: string): Promise<string>;
  currentSessionId(): string | undefined;
  windowFolders(): string[];
  /** A changed answer applies from the next agent process: idle sessions' agents stop now. */
  restartIdleAgents(): Promise<void>;
  refreshMeta(): void;
  /** The built-in agent's model as the header names it. */
  builtinModel(): string;
}

type MetaExtra = Partial<Omit<SessionMetaView, 'id' | 'title' | 'createdAt'>>;

/** What the consent needs of the app (VigilApp fits it), named here so the two files do not import each other. */
export interface ConsentHost {
  readonly context: vscode.ExtensionContext;
  readonly logger: Logger;
  readonly config: VigilConfiguration;
  readonly sessions: SessionController;
  services(): Promise<VigilServices>;
}

export class RestrictedAgentConsent {
  readonly gate: RestrictedAgentGate;

  constructor(private readonly d: RestrictedAgentDeps) {
    this.gate = new RestrictedAgentGate({
      store: { read: () => d.storage.get(STORAGE_KEY), write: (entries) => d.storage.update(STORAGE_KEY, entries) },
      isTrusted: d.isTrusted,
      folderOf: d.folderOf,
      ask: showQuestion,
      log: d.logger,
      refreshMeta: d.refreshMeta,
    });
  }

  /** The app's instance, made once its configuration exists; the rest of the app is read when used. */
  static forApp(app: ConsentHost, restartIdleAgents: () => Promise<void>): RestrictedAgentConsent {
    return new RestrictedAgentConsent({
      storage: app.context.globalState,
      logger: app.logger,
      isTrusted: () => app.config.isTrusted(),
      customAgent: () => app.config.customAgent(),
      folderOf: async (sessionId) => (await (await app.services()).folders.workFolder(sessionId)) ?? '',
      currentSessionId: () => app.sessions.currentSessionId,
      windowFolders,
      restartIdleAgents,
      refreshMeta: () => app.sessions.refreshMeta(),
      builtinModel: () => {
        const { provider, name } = app.config.settings.model;
        return provider === 'demo' ? 'demo model' : name ? `${provider}: ${name}` : provider;
      },
    });
  }

  /** See RestrictedAgentGate.admit: may ask the person (a modal) before the agent starts. */
  admit(sessionId: string, agent: CustomAgentSettings | undefined): Promise<{ agent?: CustomAgentSettings; readOnlyMode?: boolean }> {
    return this.gate.admit(sessionId, agent);
  }

  /** The session header's agent and the line, when Restricted Mode decides them; `label` is what the settings say. */
  labelled(sessionId: string, label: MetaExtra): MetaExtra {
    const restricted = this.gate.line(sessionId);
    if (!restricted) return label;
    return this.gate.servesBuiltin(sessionId) ? { ...label, agent: 'built-in, read-only (Restricted Mode)', model: this.d.builtinModel(), wakeups: undefined, restricted, builtin: true } : { ...label, restricted };
  }

  /** The view's Change…: asks again for the session's folder; the answer applies from the agent's next start. */
  async change(sessionId = this.d.currentSessionId()): Promise<void> {
    const agent = this.d.customAgent();
    if (this.d.isTrusted() || !agent) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: this window is not in Restricted Mode with an agent of your own, so there is nothing to allow.'));
      return;
    }
    const folder = sessionId ? await this.d.folderOf(sessionId) : (this.d.windowFolders()[0] ?? '');
    await this.gate.decideAgain(folder, agent);
    await this.d.restartIdleAgents();
  }

  /** "Vigil: Forget Agent Consent for This Folder": the folder of the open session (else the window's first). */
  async forget(): Promise<void> {
    const current = this.d.currentSessionId();
    const folder = current ? await this.d.folderOf(current) : this.d.windowFolders()[0];
    if (folder === undefined) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: open a folder first; agent consent belongs to a folder.'));
      return;
    }
    const had = await this.gate.forget(folder);
    void vscode.window.showInformationMessage(had
      ? vscode.l10n.t('Vigil: the agent consent for this folder is forgotten. In Restricted Mode, the next start of your agent here asks again.')
      : vscode.l10n.t('Vigil: no agent consent was given for this folder.'));
    await this.d.restartIdleAgents();
  }
}

async function showQuestion(question: ConsentQuestion): Promise<boolean> {
  const allow: vscode.MessageItem = { title: question.allow };
  const notNow: vscode.MessageItem = { title: question.notNow, isCloseAffordance: true };
  return (await vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, allow, notNow)) === allow;
}
