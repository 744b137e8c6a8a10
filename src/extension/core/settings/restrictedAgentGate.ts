// Which agent a session's next process starts with while Restricted Mode holds (the decisions are in
// restrictedAgent.ts): the person is asked once per folder and agent however many sessions start at once, and what
// serves each session is kept for the view's line. The question itself is the caller's (a modal in the workbench).

import type { CustomAgentSettings } from '../acp/agentLaunch';
import { SingleFlight } from '../common/singleFlight';
import { errorMessage } from '../common/errors';
import type { Logger } from '../ports/logger';
import { AgentConsentBook, agentConsentId, agentName, consentQuestion, restrictedChoice, restrictedLine, type ConsentQuestion } from './restrictedAgent';

export interface RestrictedAgentGateDeps {
  /** Where allowances persist: Vigil's own storage, never a setting a repository could write. */
  store: ConstructorParameters<typeof AgentConsentBook>[0];
  isTrusted(): boolean;
  /** The folder a session works in ('' in a window without one). */
  folderOf(sessionId: string): Promise<string>;
  /** Puts the question to the person; true for "Allow". */
  ask(question: ConsentQuestion): PromiseLike<boolean>;
  log: Logger;
  /** What the view shows of a session changed. */
  refreshMeta(): void;
}

type Served = { folder: string; choice: 'agentReadOnlyMode' | 'builtinReadOnly'; command: string };

export class RestrictedAgentGate {
  private readonly book: AgentConsentBook;
  private readonly asking = new SingleFlight<string, boolean>();
  /** What serves each session this window started in Restricted Mode. */
  private readonly served = new Map<string, Served>();

  constructor(private readonly d: RestrictedAgentGateDeps) {
    this.book = new AgentConsentBook(d.store);
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

  /** Asks again (the view's Change…); the sessions of the folder show the answer at once, their agents apply it at their next start. */
  async decideAgain(folder: string, agent: CustomAgentSettings): Promise<boolean> {
    const allowed = await this.ask(folder, agent.command, agentConsentId(agent));
    for (const served of this.served.values()) {
      if (served.folder === folder && served.command === agent.command) served.choice = allowed ? 'agentReadOnlyMode' : 'builtinReadOnly';
    }
    this.d.refreshMeta();
    return allowed;
  }

  /** Forgets every answer for the folder; its sessions' next start asks again. True when there was one. */
  async forget(folder: string): Promise<boolean> {
    const had = await this.book.forget(folder);
    for (const [sessionId, served] of this.served) if (served.folder === folder) this.served.delete(sessionId);
    this.d.log.info(`[restricted] agent consent for ${folder || 'this window'} ${had ? 'forgotten: the next start of your agent there asks again' : 'was not given; nothing to forget'}`);
    this.d.refreshMeta();
    return had;
  }

  /** One question per folder and agent at a time; concurrent starts share its answer. */
  private ask(folder: string, command: string, id: string): Promise<boolean> {
    return this.asking.run(`${folder}\n${id}`, async () => {
      const name = agentName(command);
      const where = folder || 'this window';
      this.d.log.info(`[restricted] asking whether ${name} may work in ${where} (Restricted Mode)`);
      let allowed = false;
      try {
        allowed = (await this.d.ask(consentQuestion({ command, folder: folder || 'this window (no folder)' }))) === true;
      } catch (error) {
        this.d.log.error(`[restricted] asking about ${name} failed: ${errorMessage(error)}; the built-in agent serves, read-only`);
      }
      try {
        if (allowed) await this.book.allow(folder, id);
        else await this.book.decline(folder, id);
      } catch (error) {
        // The answer holds in this window all the same; only a later window asks again.
        this.d.log.error(`[restricted] remembering the answer about ${name} failed: ${errorMessage(error)}`);
      }
      this.d.log.info(allowed
        ? `[restricted] ${name} allowed in ${where}: it starts in its read-only or plan mode where it has one, and runs its own tools outside Vigil's control`
        : `[restricted] ${name} not allowed in ${where} for now: the built-in agent serves, read-only`);
      return allowed;
    });
  }
}
