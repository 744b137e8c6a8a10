// Every command of package.json (listed in docs/ui.md), registered in one place; each handler says clearly why it cannot act.

import * as vscode from 'vscode';
import { errorMessage } from '../core/common/errors';
import type { SessionMeta } from '../core/store/sessionStore';
import { exportSessionAsMarkdown, type ExportHost } from './sessionExport';
import { folderRow } from '../presentation/sessionPresentation';
import type { SessionController } from './sessionController';
import type { SessionViewProvider } from './webview/sessionViewProvider';
import type { SessionTreeProvider } from './sessionTree';
import type { TaskTerminals } from './taskTerminal';
import type { ModelCommands } from './modelCommands';
import type { AgentSignIn } from './agentSignIn';
import type { AgentOptionPicks } from './agentOptionPicks';
import type { CheckpointCommands } from './checkpointCommands';
import type { RestrictedAgentConsent } from './restrictedAgentConsent';
import type { TurnChangesReview } from './turnChangesReview';
import { SessionSearchPick } from './sessionSearchPick';
import type { SessionPanels } from './webview/sessionPanels';
import type { EditorContext } from './editorContext';

/** What the commands reach of the running extension: vigilApp.ts provides it and registers them (so this module never imports it). */
export interface CommandHost extends ExportHost {
  readonly context: vscode.ExtensionContext;
  readonly logChannel: vscode.LogOutputChannel;
  readonly sessions: SessionController;
  readonly sessionView: SessionViewProvider;
  readonly tree: SessionTreeProvider;
  readonly terminals: TaskTerminals;
  readonly models: ModelCommands;
  readonly signIn: AgentSignIn;
  readonly agentOptions: AgentOptionPicks;
  readonly checkpoints: CheckpointCommands;
  readonly turnChanges: TurnChangesReview;
  readonly restricted: RestrictedAgentConsent;
  readonly panels: SessionPanels;
  readonly editorContext: EditorContext;
  focusSession(): Promise<void>;
}

type Handler = (...args: unknown[]) => unknown;

export function registerCommands(app: CommandHost): void {
  const commands: Record<string, Handler> = {
    ...sessionCommands(app),
    ...editorContextCommands(app),
    ...turnCommands(app),
    ...agentCommands(app),
    ...taskAndLogCommands(app),
  };
  for (const [id, handler] of Object.entries(commands)) app.context.subscriptions.push(vscode.commands.registerCommand(id, guarded(app, id, handler)));
}

/** A failing command is logged and shown, redacted, instead of rejecting into VS Code's generic error. */
function guarded(app: CommandHost, id: string, handler: Handler): Handler {
  return async (...args: unknown[]) => {
    try {
      return await handler(...args);
    } catch (error) {
      app.logger.error(`${id} failed: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(app.redactor.redact(`Vigil: ${errorMessage(error)}`));
      return undefined;
    }
  };
}

/** Creating, opening, finding, resuming, renaming, deleting and exporting sessions. */
function sessionCommands(app: CommandHost): Record<string, Handler> {
  let search: SessionSearchPick | undefined;
  const sessionSearch = () => {
    if (!search) app.context.subscriptions.push((search = new SessionSearchPick({ services: () => app.services(), logger: app.logger })));
    return search;
  };
  return {
    'vigil.newSession': async () => {
      await app.sessions.newSession();
      await app.sessionView.reveal();
      app.sessionView.focusInput();
    },
    'vigil.newSessionInEditor': async () => {
      const meta = await app.sessions.newSession(undefined, false);
      (await app.panels.open(meta.id)).channel.focusInput();
    },
    'vigil.openSessionInEditor': async (arg) => {
      const id = sessionIdOf(arg) ?? (await pickSession(app, 'Open which session in an editor?', false));
      if (id) await app.panels.open(id);
    },
    'vigil.focusSession': () => app.focusSession(),
    'vigil.openSession': async (arg) => {
      const id = sessionIdOf(arg) ?? (await pickSession(app, 'Open which session?', false));
      if (!id) return;
      await app.sessions.open(id);
      await app.sessionView.reveal();
    },
    'vigil.searchSessions': (arg) => sessionSearch().show(typeof arg === 'string' ? arg : undefined),
    'vigil.resumeSession': async (arg) => {
      const id = sessionIdOf(arg) ?? (await pickSession(app, 'Resume which session?', true));
      if (!id) return;
      await app.sessionView.reveal(true);
      await app.sessions.resume(id);
    },
    'vigil.renameSession': (arg) => app.tree.rename(arg as never),
    'vigil.deleteSession': (arg) => app.tree.delete(arg as never),
    'vigil.exportSession': (arg) => exportSessionAsMarkdown(app, arg),
  };
}

/** What the editor hands to the chat: the input's focus, the selection, files. */
function editorContextCommands(app: CommandHost): Record<string, Handler> {
  return {
    'vigil.focusChatInput': () => app.editorContext.focusChatInput(),
    'vigil.addSelection': () => app.editorContext.addSelection(),
    'vigil.addFile': (uri, uris) => app.editorContext.addFile(uri, uris),
  };
}

/** Stopping and retrying a turn, and restoring or reviewing what a turn changed. */
function turnCommands(app: CommandHost): Record<string, Handler> {
  return {
    'vigil.abortTurn': async () => {
      if (!app.sessions.turnLive) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: no turn is running in the open session.'));
        return;
      }
      await app.sessions.stop();
    },
    'vigil.retryLastTurn': () => app.sessions.redo.retryLast(),
    'vigil.restoreCheckpoint': (arg) => app.checkpoints.restore(sessionIdOf(arg) ?? optionTarget(arg)?.sessionId, turnIdOf(arg), filePathOf(arg)),
    'vigil.reviewTurnChanges': (arg) => app.turnChanges.open(sessionIdOf(arg) ?? optionTarget(arg)?.sessionId, turnIdOf(arg), filePathOf(arg)),
  };
}

/** The agent: which one, its model, mode and options, its sign-in and key, its process, the restricted one's consent. */
function agentCommands(app: CommandHost): Record<string, Handler> {
  return {
    'vigil.restartAgent': () => restartAgent(app),
    'vigil.signIn': (arg) => app.signIn.signIn(typeof arg === 'string' ? arg : undefined),
    'vigil.signOut': (arg) => app.signIn.signOut(typeof arg === 'string' ? arg : undefined),
    'vigil.selectAgent': () => app.models.selectAgent(),
    'vigil.selectModel': () => app.models.selectModel(),
    'vigil.selectAgentMode': (arg) => app.agentOptions.selectMode(sessionIdOf(arg)),
    'vigil.agentOptions': (arg) => app.agentOptions.options(optionTarget(arg)),
    'vigil.setApiKey': (arg) => app.models.setApiKey(typeof arg === 'string' ? (arg as never) : undefined),
    'vigil.changeAgentConsent': (arg) => app.restricted.change(typeof arg === 'string' ? arg : undefined),
    'vigil.forgetAgentConsent': () => app.restricted.forget(),
  };
}

/** Background tasks and Vigil's log. */
function taskAndLogCommands(app: CommandHost): Record<string, Handler> {
  return {
    'vigil.showBackgroundTasks': () => app.terminals.showBackgroundTasks(),
    'vigil.killBackgroundTask': (arg) => app.terminals.killBackgroundTask(typeof arg === 'string' ? arg : undefined),
    'vigil.showLog': () => app.logChannel.show(),
  };
}

/** Stops the open session's agent process (asking first when a turn runs); the next message starts a fresh one. */
async function restartAgent(app: CommandHost): Promise<void> {
  const id = app.sessions.currentSessionId;
  if (!id) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: open a session first; its agent process is restarted on the next message.'));
    return;
  }
  if (app.sessions.turnLive) {
    const choice = await vscode.window.showWarningMessage(vscode.l10n.t('A turn is running. Abort it and restart the agent?'), { modal: true }, vscode.l10n.t('Abort and Restart'));
    if (choice !== vscode.l10n.t('Abort and Restart')) return;
    await app.sessions.stop();
  }
  await (await app.services()).agents.release(id);
  void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: the agent process was stopped; a fresh one starts with the next message.'));
}

/** `{ sessionId?, configId? }` from the session view's header controls; anything else is ignored. */
function optionTarget(arg: unknown): { sessionId?: string; configId?: string } | undefined {
  if (arg === null || typeof arg !== 'object') return undefined;
  const { sessionId, configId } = arg as { sessionId?: unknown; configId?: unknown };
  return { sessionId: typeof sessionId === 'string' ? sessionId : undefined, configId: typeof configId === 'string' ? configId : undefined };
}

/** `{ turnId }` from a turn's Restore in the session view. */
function turnIdOf(arg: unknown): string | undefined {
  const turnId = (arg as { turnId?: unknown } | null | undefined)?.turnId;
  return typeof turnId === 'string' ? turnId : undefined;
}

/** `{ path }`: one file of a turn, as the turn's entry in the session view names it. */
function filePathOf(arg: unknown): string | undefined {
  const file = (arg as { path?: unknown } | null | undefined)?.path;
  return typeof file === 'string' && file.length > 0 ? file : undefined;
}

/** A session id from a command argument: the id itself, or a row of the session list. */
function sessionIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const meta = (arg as { meta?: { id?: unknown } } | undefined)?.meta;
  return typeof meta?.id === 'string' ? meta.id : undefined;
}

/** Quick pick of sessions: this window's folders first; for Resume, interrupted and aborted sessions first within those. */
async function pickSession(app: CommandHost, placeHolder: string, resumableFirst: boolean): Promise<string | undefined> {
  const services = await app.services();
  const sessions = await services.supervisor.sessions.list();
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: there are no sessions yet. Use "Vigil: New Session".'));
    return undefined;
  }
  const folders = new Map(await Promise.all(sessions.map(async (s) => [s.id, folderRow(await services.folders.checkMeta(s))] as const)));
  const rank = (s: SessionMeta) => (folders.get(s.id)?.here ? 0 : 2) + (resumableFirst && s.state !== 'idle' ? 0 : 1);
  const ordered = [...sessions].sort((a, b) => rank(a) - rank(b) || b.updatedAt - a.updatedAt);
  const picked = await vscode.window.showQuickPick(
    ordered.map((s) => ({
      label: `${s.state === 'idle' ? '$(comment-discussion)' : '$(debug-pause)'} ${s.title}`,
      description: [s.state === 'idle' ? undefined : s.state, folders.get(s.id)?.label].filter(Boolean).join(' · ') || undefined,
      detail: s.stateReason,
      id: s.id,
    })),
    { placeHolder, matchOnDescription: true },
  );
  return picked?.id;
}
