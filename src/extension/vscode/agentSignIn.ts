// Sign-in and sign-out of third-party ACP agents in VS Code: the agent's auth methods as a quick pick,
// env-var credentials in SecretStorage (passed at the agent's next start), `authenticate` with progress,
// terminal logins, and the notification (with its remedies) when a turn fails to start.

import * as vscode from 'vscode';
import type { AcpAgentHandle } from '../core/acp/acpAgentHandle';
import {
  agentIdentity, authIndexKey, envSecretKey, parseStoredAuth, SignInRetry, storedAgentEnv, terminalCommand,
  type AgentAuthInfo, type AgentAuthMethod, type TerminalLogin,
} from '../core/acp/agentAuth';
import type { LaunchSpec } from '../core/acp/agentLaunch';
import { errorMessage, isVigilError } from '../core/common/errors';
import type { Redactor } from '../core/common/redactor';
import type { Logger } from '../core/ports/logger';
import type { TurnEnded } from '../core/ports/turns';
import type { NoticeAction } from '../../shared/sessionView';
import { toastText } from '../presentation/toastText';

export interface AgentSignInDeps {
  agent(sessionId: string): Promise<AcpAgentHandle>;
  secrets: vscode.SecretStorage;
  redactor: Redactor;
  logger: Logger;
  showLog(): void;
  currentSessionId(): string | undefined;
  /** Sends a message in a session as the person would (the one a sign-in interrupted). */
  send(sessionId: string, text: string): Promise<void>;
  /** The person signed in: wakeups paused by the auth failure may flow again. */
  unpause(sessionId: string): Promise<void>;
  /** The workspace folder a terminal login runs in. */
  cwd(): string | undefined;
}

const kindWords: Record<AgentAuthMethod['kind'], string> = {
  agent: 'signs in inside the agent',
  envVar: 'an API key or token, kept in VS Code’s secret storage',
  terminal: 'runs a login in a terminal',
};

function remedyLabel(action: NoticeAction): string {
  return { openLog: vscode.l10n.t('Open Log'), openSettings: vscode.l10n.t('Open Settings'), signIn: vscode.l10n.t('Sign in…'), agentConsent: vscode.l10n.t('Change…') }[action];
}

export class AgentSignIn {
  private readonly retry = new SignInRetry();
  private busy = false;

  constructor(private readonly d: AgentSignInDeps) {}

  /** The launch with the credentials stored for this agent: env values (secret, redacted) and the method to authenticate with. */
  async withStoredCredentials(spec: LaunchSpec): Promise<LaunchSpec> {
    if (spec.builtin) return spec;
    const stored = await storedAgentEnv(this.d.secrets, agentIdentity(spec.command, spec.args));
    const names = Object.keys(stored.env);
    this.d.redactor.add(Object.values(stored.env));
    if (names.length === 0 && !stored.methodId) return spec;
    return {
      ...spec,
      env: { ...spec.env, ...stored.env },
      secretEnv: [...new Set([...spec.secretEnv, ...names])],
      ...(stored.methodId ? { authMethodId: stored.methodId } : {}),
    };
  }

  /**
   * A turn ended with remedies (a start failure or a sign-in request): a notification with the same
   * buttons as the view's notice. The message of a user turn is kept so a sign-in can send it again.
   */
  turnFailed(ended: TurnEnded, text: string | undefined): void {
    const remedies = ended.remedies ?? [];
    if (remedies.length === 0) return;
    if (remedies.includes('signIn') && text !== undefined) this.retry.remember(ended.sessionId, text);
    const shown = toastText(this.d.redactor.redact(`Vigil: ${ended.message ?? 'the agent failed'}`));
    void vscode.window.showErrorMessage(shown, ...remedies.map(remedyLabel)).then((choice) => {
      const action = remedies.find((r) => remedyLabel(r) === choice);
      if (action) void this.remedy(action, ended.sessionId);
    });
  }

  /** A remedy button (notification or the view's notice). */
  async remedy(action: NoticeAction, sessionId: string | undefined): Promise<void> {
    switch (action) {
      case 'openLog':
        this.d.showLog();
        return;
      case 'openSettings':
        await vscode.commands.executeCommand('workbench.action.openSettings', 'vigil.agent');
        return;
      case 'signIn':
        await this.signIn(sessionId);
        return;
      case 'agentConsent':
        // Restricted Mode's question about the person's own agent (restrictedAgentConsent.ts).
        await vscode.commands.executeCommand('vigil.changeAgentConsent', sessionId);
        return;
      default: {
        const never: never = action;
        return never;
      }
    }
  }

  /** "Vigil: Sign In to Agent…": the agent's methods as choices, then that method's flow. */
  async signIn(sessionId = this.d.currentSessionId()): Promise<boolean> {
    if (!sessionId) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: open a session first; sign-in applies to the agent that serves it.'));
      return false;
    }
    if (this.busy) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: a sign-in is already in progress.'));
      return false;
    }
    this.busy = true;
    try {
      return await this.signInOnce(sessionId);
    } finally {
      this.busy = false;
    }
  }

  private async signInOnce(sessionId: string): Promise<boolean> {
    const agent = await this.d.agent(sessionId);
    const info = await this.inspect(agent);
    if (!info) return false;
    if (info.builtin) {
      const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Vigil: the built-in agent uses the API key of its model provider.'), vscode.l10n.t('Set API Key'));
      if (choice) await vscode.commands.executeCommand('vigil.setApiKey');
      return false;
    }
    if (info.methods.length === 0) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: {0} offers no way to sign in over ACP. Sign in with its own tool, then send your message again.', info.label));
      return false;
    }
    const picked = await vscode.window.showQuickPick(
      info.methods.map((method) => ({ label: method.name, description: kindWords[method.kind === 'agent' && method.terminal ? 'terminal' : method.kind], detail: method.description, method })),
      { title: vscode.l10n.t('Sign in to {0}', info.label), placeHolder: vscode.l10n.t('How do you want to sign in?'), ignoreFocusOut: true },
    );
    if (!picked) return false;
    const method = picked.method;
    let ok: boolean;
    if (method.kind === 'envVar') ok = await this.signInWithEnv(agent, info, method);
    else if (method.kind === 'terminal') ok = await this.signInInTerminal(agent, info, method.terminal);
    // An agent method with `_meta["terminal-auth"]` (Copilot, OpenCode) is a login command to run, not an `authenticate`.
    else if (method.terminal) ok = await this.signInInTerminal(agent, info, method.terminal);
    else ok = await this.progress(`Signing in to ${info.label} (${method.name})…`, (signal) => agent.signIn(method.id, signal));
    if (!ok) return false;
    void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: signed in to {0}.', info.label));
    await this.d.unpause(sessionId).catch((error: unknown) => this.d.logger.warn(`unpausing ${sessionId} after sign-in: ${errorMessage(error)}`));
    const text = this.retry.take(sessionId);
    if (text !== undefined) {
      this.d.logger.info(`sending the message the sign-in interrupted again (session ${sessionId})`);
      await this.d.send(sessionId, text).catch((error: unknown) => {
        this.retry.remember(sessionId, text);
        void vscode.window.showErrorMessage(this.d.redactor.redact(`Vigil: your message could not be sent again: ${errorMessage(error)}`));
      });
    }
    return true;
  }

  /** The agent's methods (starting it just for `initialize` when it never ran here). */
  private async inspect(agent: AcpAgentHandle): Promise<AgentAuthInfo | undefined> {
    try {
      return agent.authInfo ?? (await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Vigil: asking the agent how to sign in…') }, () => agent.inspectAuth()));
    } catch (error) {
      this.failed('The agent could not be asked how to sign in', error);
      return undefined;
    }
  }

  /** Asks for each variable (hidden input), stores it for this agent, restarts it with the values and authenticates. */
  private async signInWithEnv(agent: AcpAgentHandle, info: AgentAuthInfo, method: Extract<AgentAuthMethod, { kind: 'envVar' }>): Promise<boolean> {
    const values: Array<[string, string]> = [];
    for (const v of method.vars) {
      const value = await vscode.window.showInputBox({
        title: vscode.l10n.t('{0} — {1}', method.name, info.label),
        prompt: v.optional
          ? vscode.l10n.t('{0} (optional). Kept in VS Code’s secret storage and passed to this agent as {1}.', v.label ?? v.name, v.name)
          : vscode.l10n.t('{0}. Kept in VS Code’s secret storage and passed to this agent as {1}.', v.label ?? v.name, v.name),
        placeHolder: v.name,
        password: true,
        ignoreFocusOut: true,
        validateInput: (text) => (text.includes('\0') || /[\r\n]/.test(text) ? 'The value must be one line.' : !v.optional && !text.trim() ? `Enter ${v.name}, or press Escape to cancel.` : undefined),
      });
      if (value === undefined) return false;
      if (value.trim()) values.push([v.name, value.trim()]);
    }
    // Known as secrets before anything can echo them (the agent's stderr, an error message).
    this.d.redactor.add(values.map(([, value]) => value));
    const identity = info.identity;
    const index = parseStoredAuth(await this.d.secrets.get(authIndexKey(identity)));
    for (const [name, value] of values) await this.d.secrets.store(envSecretKey(identity, name), value);
    await this.d.secrets.store(authIndexKey(identity), JSON.stringify({ vars: [...new Set([...index.vars, ...values.map(([name]) => name)])], methodId: method.id }));
    this.d.logger.info(`stored ${values.map(([name]) => name).join(', ') || 'no values'} for ${info.label}; restarting it to sign in with "${method.id}"`);
    return this.progress(`Signing in to ${info.label} (${method.name})…`, (signal) => agent.signIn(method.id, signal));
  }

  /** Runs the agent's login in a terminal; when it closes with 0, restarts the agent and checks it starts. */
  private async signInInTerminal(agent: AcpAgentHandle, info: AgentAuthInfo, login: TerminalLogin): Promise<boolean> {
    const launch = agent.lastLaunch;
    if (!launch) return false;
    const run = terminalCommand(launch, login);
    const terminal = vscode.window.createTerminal({
      name: `Sign in: ${login.label ?? info.label}`.slice(0, 80),
      shellPath: run.command,
      shellArgs: run.args,
      env: run.env,
      cwd: this.d.cwd(),
      isTransient: true,
    });
    terminal.show();
    const exit = await new Promise<vscode.TerminalExitStatus | undefined>((resolve) => {
      const sub = vscode.window.onDidCloseTerminal((closed) => {
        if (closed !== terminal) return;
        sub.dispose();
        resolve(closed.exitStatus);
      });
    });
    if (exit?.code !== 0) {
      void vscode.window.showWarningMessage(
        exit?.code !== undefined
          ? vscode.l10n.t('Vigil: the login in the terminal ended with exit code {0} without signing in. Choose "Sign in…" to try again.', exit.code)
          : vscode.l10n.t('Vigil: the login in the terminal ended without signing in. Choose "Sign in…" to try again.'),
      );
      return false;
    }
    return this.progress(`Starting ${info.label} after the login…`, async () => {
      await agent.restart('signed in through a terminal');
      await agent.verifyStart();
    });
  }

  /** "Vigil: Sign Out of Agent": `logout` where the agent supports it, and forgets the variables stored for it. */
  async signOut(sessionId = this.d.currentSessionId()): Promise<void> {
    if (!sessionId) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: open a session first; sign-out applies to the agent that serves it.'));
      return;
    }
    const agent = await this.d.agent(sessionId);
    const info = await this.inspect(agent);
    if (!info) return;
    const stored = parseStoredAuth(await this.d.secrets.get(authIndexKey(info.identity)));
    if (!info.logout && stored.vars.length === 0 && !stored.methodId) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: {0} does not support signing out over ACP, and Vigil keeps no credentials for it.', info.label));
      return;
    }
    if (info.logout) {
      const ok = await this.progress(`Signing out of ${info.label}…`, (signal) => agent.logout(signal));
      if (!ok) return;
    }
    for (const name of stored.vars) await this.d.secrets.delete(envSecretKey(info.identity, name));
    await this.d.secrets.delete(authIndexKey(info.identity));
    if (!info.logout) await agent.restart('stored credentials forgotten').catch(() => undefined);
    const forgot = stored.vars.length > 0 ? ` Vigil forgot ${stored.vars.join(', ')}.` : '';
    void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: signed out of {0}.{1}', info.label, forgot));
  }

  /** Runs one sign-in step with a cancellable notification; errors are shown in the agent's words. */
  private async progress(title: string, work: (signal: AbortSignal) => Promise<void>): Promise<boolean> {
    const abort = new AbortController();
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Vigil: {0}', title), cancellable: true }, (_progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        return work(abort.signal);
      });
      return true;
    } catch (error) {
      if (abort.signal.aborted || isVigilError(error, 'CANCELLED')) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: sign-in cancelled.'));
        return false;
      }
      this.failed('Sign-in failed', error);
      return false;
    }
  }

  private failed(what: string, error: unknown): void {
    const message = this.d.redactor.redact(`Vigil: ${what}: ${errorMessage(error)}`);
    this.d.logger.warn(message);
    void vscode.window.showErrorMessage(toastText(message), vscode.l10n.t('Open Log')).then((c) => c && this.d.showLog());
  }
}

