// Restricted Mode and the person's third-party agent, in the workbench: the modal asked when that agent would start
// in a folder nobody answered for (one per folder and agent, however many sessions start at once), the session
// view's line with its Change…, and "Vigil: Forget Agent Consent for This Folder". Decisions: core/settings/restrictedAgent.ts.

import * as vscode from 'vscode';
import type { CustomAgentSettings } from '../core/acp/agentLaunch';
import { errorMessage } from '../core/common/errors';
import { SingleFlight } from '../core/common/singleFlight';
import type { Logger } from '../core/ports/logger';
import { AgentConsentBook, agentConsentId, agentName, consentQuestion, restrictedChoice, restrictedLine, type ConsentQuestion } from '../core/settings/restrictedAgent';
import type { SessionMetaView } from '../../shared/sessionView';
import type { VigilApp } from './vigilApp';
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
  /** Shows the question, true for "Allow"; default a modal. Tests inject one. */
  ask?(question: ConsentQuestion): PromiseLike<boolean>;
}

type Served = { folder: string; choice: 'agentReadOnlyMode' | 'builtinReadOnly'; command: string };
type MetaExtra = Partial<Omit<SessionMetaView, 'id' | 'title' | 'createdAt'>>;

export class RestrictedAgentConsent {
  private readonly book: AgentConsentBook;
  private readonly asking = new SingleFlight<string, boolean>();
  /** What serves each session this window started in Restricted Mode, for the view's line. */
  private readonly served = new Map<string, Served>();

  constructor(private readonly d: RestrictedAgentDeps) {
    this.book = new AgentConsentBook({ read: () => d.storage.get(STORAGE_KEY), write: (entries) => d.storage.update(STORAGE_KEY, entries) });
  }

  /** The app's instance, made once its configuration exists; the rest of the app is read when used. */
  static forApp(app: VigilApp, restartIdleAgents: () => Promise<void>): RestrictedAgentConsent {
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

  /**
   * The agent a session's next process starts with: the third-party `agent` as configured when the workspace is
   * trusted; in Restricted Mode only with the person's consent for the session's folder (asked now if nobody
   * answered), in its read-only or plan mode; else none, and the built-in agent serves.
   */
  async admit(sessionId: string, agent: CustomAgentSettings | undefined): Promise<{ agent?: CustomAgentSettings; readOnlyMode?: boolean }> {
    if (!agent || this.d.isTrusted()) {
      this.served.delete(sessionId);
      return { agent };
    }
    const folder = await this.d.folderOf(sessionId);
    const id = agentConsentId(agent);
    if (this.book.consent(folder, id) === 'unanswered') await this.ask(folder, agent.command, id);
    // Trust may have been granted while the question was open.
    const choice = restrictedChoice({ trusted: this.d.isTrusted(), thirdParty: true, consent: this.book.consent(folder, id) });
    if (choice !== 'agentReadOnlyMode' && choice !== 'builtinReadOnly') {
      this.served.delete(sessionId);
      return { agent };
    }
    const before = this.served.get(sessionId)?.choice;
    this.served.set(sessionId, { folder, choice, command: agent.command });
    if (before !== choice) this.d.refreshMeta();
    return choice === 'agentReadOnlyMode' ? { agent, readOnlyMode: true } : {};
  }

  /** Whether the built-in agent serves the session in place of the person's agent (Restricted Mode, not allowed). */
  servesBuiltin(sessionId: string | undefined): boolean {
    return sessionId !== undefined && !this.d.isTrusted() && this.served.get(sessionId)?.choice === 'builtinReadOnly';
  }

  /** The view's line for the session while Restricted Mode decides its agent. */
  line(sessionId: string | undefined): { text: string; detail: string } | undefined {
    const served = sessionId === undefined || this.d.isTrusted() ? undefined : this.served.get(sessionId);
    return served ? restrictedLine(served.choice, served.command) : undefined;
  }

  /** The session header's agent and the line, when Restricted Mode decides them; `label` is what the settings say. */
  labelled(sessionId: string, label: MetaExtra): MetaExtra {
    const restricted = this.line(sessionId);
    if (!restricted) return label;
    return this.servesBuiltin(sessionId) ? { ...label, agent: 'built-in, read-only (Restricted Mode)', model: this.d.builtinModel(), wakeups: undefined, restricted } : { ...label, restricted };
  }

  /** The view's Change…: asks again for the session's folder; the answer applies from the agent's next start. */
  async change(sessionId = this.d.currentSessionId()): Promise<void> {
    const agent = this.d.customAgent();
    if (this.d.isTrusted() || !agent) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: this window is not in Restricted Mode with an agent of your own, so there is nothing to allow.'));
      return;
    }
    const folder = sessionId ? await this.d.folderOf(sessionId) : (this.d.windowFolders()[0] ?? '');
    const id = agentConsentId(agent);
    const allowed = await this.ask(folder, agent.command, id);
    for (const served of this.served.values()) {
      if (served.folder === folder && served.command === agent.command) served.choice = allowed ? 'agentReadOnlyMode' : 'builtinReadOnly';
    }
    await this.d.restartIdleAgents();
    this.d.refreshMeta();
  }

  /** "Vigil: Forget Agent Consent for This Folder": the folder of the open session (else the window's first). */
  async forget(): Promise<void> {
    const current = this.d.currentSessionId();
    const folder = current ? await this.d.folderOf(current) : this.d.windowFolders()[0];
    if (folder === undefined) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: open a folder first; agent consent belongs to a folder.'));
      return;
    }
    const had = await this.book.forget(folder);
    for (const [sessionId, served] of this.served) if (served.folder === folder) this.served.delete(sessionId);
    this.d.logger.info(`[restricted] agent consent for ${folder || 'this window'} ${had ? 'forgotten: the next start of your agent there asks again' : 'was not given; nothing to forget'}`);
    void vscode.window.showInformationMessage(had
      ? vscode.l10n.t('Vigil: the agent consent for this folder is forgotten. In Restricted Mode, the next start of your agent here asks again.')
      : vscode.l10n.t('Vigil: no agent consent was given for this folder.'));
    await this.d.restartIdleAgents();
    this.d.refreshMeta();
  }

  /** One question per folder and agent at a time; concurrent starts share its answer. */
  private ask(folder: string, command: string, id: string): Promise<boolean> {
    return this.asking.run(`${folder}\n${id}`, async () => {
      const question = consentQuestion({ command, folder: folder || 'this window (no folder)' });
      const name = agentName(command);
      this.d.logger.info(`[restricted] asking whether ${name} may work in ${folder || 'this window'} (Restricted Mode)`);
      let allowed = false;
      try {
        allowed = this.d.ask ? await this.d.ask(question) : await showQuestion(question);
      } catch (error) {
        this.d.logger.error(`[restricted] asking about ${name} failed: ${errorMessage(error)}; the built-in agent serves, read-only`);
      }
      try {
        if (allowed) await this.book.allow(folder, id);
        else await this.book.decline(folder, id);
      } catch (error) {
        // The answer holds in this window all the same; only a later window asks again.
        this.d.logger.error(`[restricted] remembering the answer about ${name} failed: ${errorMessage(error)}`);
      }
      this.d.logger.info(allowed
        ? `[restricted] ${name} allowed in ${folder || 'this window'}: it starts in its read-only or plan mode where it has one, and runs its own tools outside Vigil's control`
        : `[restricted] ${name} not allowed in ${folder || 'this window'} for now: the built-in agent serves, read-only`);
      return allowed;
    });
  }
}

async function showQuestion(question: ConsentQuestion): Promise<boolean> {
  const allow: vscode.MessageItem = { title: question.allow };
  const notNow: vscode.MessageItem = { title: question.notNow, isCloseAffordance: true };
  return (await vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, allow, notNow)) === allow;
}
