// Every handler of the session webview's messages, put together once from the domains' handler modules
// (presentation/handlers/; webview/handlers/ for those that speak to VS Code themselves), each given the parts of
// the running extension it reaches: the compiler checks that each message type has its handler. A new message of
// an existing domain needs no change here.

import * as vscode from 'vscode';
import type { Logger } from '../../core/ports/logger';
import { activeProblemMentions, droppedMentions, mentionChoices } from '../../presentation/promptMentions';
import { checkpointHandlers } from '../../presentation/handlers/checkpoints';
import { composerHandlers } from '../../presentation/handlers/composer';
import { editorLinkHandlers } from '../../presentation/handlers/editorLinks';
import { optionHandlers } from '../../presentation/handlers/options';
import { sessionListHandlers } from '../../presentation/handlers/sessionList';
import { taskHandlers } from '../../presentation/handlers/tasks';
import { turnHandlers } from '../../presentation/handlers/turn';
import type { IntentHandlers } from '../../presentation/viewHandlers';
import type { AgentSignIn } from '../agentSignIn';
import type { EditDiffs } from '../editDiffs';
import type { SessionController } from '../sessionController';
import type { TaskTerminals } from '../taskTerminal';
import { openWorkspaceFile } from '../workspaceLinks';
import { approvalHandlers, type ApprovalApp } from './handlers/approvals';

/** The running extension (vigilApp.ts) as the handlers reach it: read when a message arrives, so built before its parts. */
export interface HandlerApp extends ApprovalApp {
  readonly sessions: SessionController;
  readonly terminals: TaskTerminals;
  readonly signIn: AgentSignIn;
  readonly editDiffs: EditDiffs;
  readonly logger: Logger;
}

/** The handlers of `app`'s views: the side bar's and every tab's. */
export function viewHandlers(app: HandlerApp): IntentHandlers {
  const command = (id: string, ...args: unknown[]) => Promise.resolve(vscode.commands.executeCommand(id, ...args));
  const mentions = {
    choices: (sessionId: string | undefined, query: string) => mentionChoices(app.sessions.mentionDeps, sessionId, query),
    dropped: (sessionId: string | undefined, uris: string[]) => droppedMentions(app.sessions.mentionDeps, sessionId, uris),
    activeProblems: (sessionId: string | undefined) => activeProblemMentions(app.sessions.mentionDeps, sessionId),
  };
  return {
    ...composerHandlers(() => ({ prompt: (intent) => app.sessions.prompt(intent), mentions, redo: (intent) => app.sessions.redo.redo(intent) })),
    ...turnHandlers(() => app.sessions),
    ...approvalHandlers(app),
    ...taskHandlers(() => app.terminals),
    ...sessionListHandlers(() => app.sessions),
    ...checkpointHandlers(() => ({ command })),
    ...optionHandlers(() => ({ command, remedy: (action, sessionId) => app.signIn.remedy(action, sessionId) })),
    ...editorLinkHandlers(() => ({ openFile: (file, line) => openWorkspaceFile(file, line, app.logger), openDiff: (editId) => app.editDiffs.open(editId) })),
  } satisfies IntentHandlers;
}
