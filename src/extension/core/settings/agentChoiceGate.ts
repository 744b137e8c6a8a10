// Holds what would start an agent or send it a prompt while Vigil cannot know which agent the person chose
// (agentChoiceAgreement.ts): until the editor's settings agree with the user settings file, up to a bound;
// past it, an error that says what happened and what to do. Nearly always the first check agrees at once.

import { VigilError } from '../common/errors';
import type { Logger } from '../ports/logger';
import { choicesInSettingsText, disagreeingChoices } from './agentChoiceAgreement';

export interface SettingsFileText {
  /** Shown to the person: where the file is. */
  path: string;
  text: string;
}

export interface AgentChoiceGateDeps {
  /** The user settings file, or undefined where there is none to read (no evidence: nothing is held). */
  readSettingsFile(): Promise<SettingsFileText | undefined>;
  /** The user-level value the editor reports for a full key such as `vigil.agent`. */
  userValueOf(key: string): unknown;
  /** Calls `listener` when the editor's settings change; returns the unsubscribe. */
  onSettingsChanged(listener: () => void): () => void;
  log: Pick<Logger, 'info' | 'warn'>;
  /** How long a prompt is held at most (default 15 s). */
  boundMs?: number;
  /** How often the file is read again while holding, for an edit that undoes itself (default 500 ms). */
  recheckMs?: number;
}

export interface SettledHooks {
  /** Called once, when the first check disagrees: the view says "Waiting for settings…". */
  waiting?(): void;
  /** Stop: the held prompt is not sent. */
  signal?: AbortSignal;
}

export const defaultAgentChoiceBoundMs = 15_000;
const defaultRecheckMs = 500;

export class AgentChoiceGate {
  constructor(private readonly deps: AgentChoiceGateDeps) {}

  /**
   * Resolves when the agent the settings name is known, true when it had to wait for that; throws
   * (AGENT_FAILED, or CANCELLED on stop) when it is not known within the bound.
   */
  async settled(hooks: SettledHooks = {}): Promise<boolean> {
    let check = await this.check();
    if (check.differing.length === 0) return false;
    const boundMs = this.deps.boundMs ?? defaultAgentChoiceBoundMs;
    const keys = check.differing.join(', ');
    this.deps.log.warn(`[settings] ${check.path} sets ${keys} differently from what VS Code reports to extensions in this window; a prompt is held until they agree (at most ${Math.round(boundMs / 1000)} s)`);
    hooks.waiting?.();
    const deadline = Date.now() + boundMs;
    while (check.differing.length > 0) {
      if (hooks.signal?.aborted) throw new VigilError('CANCELLED', 'Stopped while waiting for your settings: the message was not sent.');
      const left = deadline - Date.now();
      if (left <= 0) throw this.notKnown(check.path, check.differing, boundMs);
      await this.nextChange(Math.min(left, this.deps.recheckMs ?? defaultRecheckMs), hooks.signal);
      check = await this.check();
    }
    this.deps.log.info('[settings] VS Code now reports the agent settings your settings file holds; the held prompt goes on');
    return true;
  }

  /**
   * Says once, at a window's start, whether the editor passed the person's agent settings to it: a window that
   * started without them is then named in the log before anyone sends a message.
   */
  async noteAtStart(): Promise<void> {
    const { path, differing } = await this.check();
    // No file to read gives no evidence: say so rather than claim a match.
    if (path === '') this.deps.log.info('[settings] no user settings file to compare the agent settings with; they are used as VS Code reports them');
    else if (differing.length === 0) this.deps.log.info('[settings] the agent settings VS Code reports match your settings file');
    else this.deps.log.warn(`[settings] this window started without your agent settings: ${path} sets ${differing.join(', ')}, VS Code reports otherwise; messages wait for them, and reloading the window brings them`);
  }

  private async check(): Promise<{ path: string; differing: string[] }> {
    const file = await this.deps.readSettingsFile();
    if (!file) return { path: '', differing: [] };
    return { path: file.path, differing: disagreeingChoices(choicesInSettingsText(file.text), (key) => this.deps.userValueOf(key)) };
  }

  /** A settings change, a recheck tick or a stop, whichever comes first. */
  private nextChange(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const unsubscribe = this.deps.onSettingsChanged(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private notKnown(path: string, keys: string[], boundMs: number): VigilError {
    return new VigilError(
      'AGENT_FAILED',
      `Not sent: your settings file (${path}) sets ${keys.join(', ')}, but VS Code has not passed ${keys.length === 1 ? 'that setting' : 'those settings'} to extensions in this window after ${Math.round(boundMs / 1000)} s, so Vigil cannot tell which agent you chose, and sends nothing to any agent. Reload the window (Developer: Reload Window) and send again; your message is back in the input.`,
    );
  }
}
