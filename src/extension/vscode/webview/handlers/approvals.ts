// The person's answers to what an agent asks: approvals, and elicitations (forms and links). Each goes to the
// question waiting in this window, else to the one another window's turn published for the session on screen.

import * as vscode from 'vscode';
import type { ApprovalDecision } from '../../../../shared/sessionView';
import type { IntentHandlers } from '../../../presentation/viewHandlers';
import { ElicitationIntents } from '../../elicitationIntents';
import type { ApprovalBroker } from '../../../presentation/approvalBroker';
import type { ElicitationBroker } from '../../../presentation/elicitationBroker';
import type { VigilServices } from '../../../services';
import type { SessionController } from '../../sessionController';

/** What answering reaches in the running extension (vigilApp.ts), read when a message arrives. */
export interface ApprovalApp {
  readonly sessions: Pick<SessionController, 'remoteFeedOf' | 'models'>;
  readonly broker: ApprovalBroker;
  readonly elicitations: ElicitationBroker;
  services(): Promise<VigilServices>;
}

export function approvalHandlers(app: ApprovalApp) {
  let intents: ElicitationIntents | undefined;
  const elicitations = () => (intents ??= new ElicitationIntents({
    elicitations: app.elicitations,
    remoteFeedOf: (sessionId) => app.sessions.remoteFeedOf(sessionId),
    claim: async (sessionId, requestId, answer) => (await app.services()).crossWindow.control.answerElicitation(sessionId, requestId, answer),
  }));
  return {
    approval: (m, view) => answerApproval(app, view.aim(m.sessionId), m.requestId, m.decision),
    elicitation: async (m, view) => {
      const sessionId = view.aim(m.sessionId);
      const went = await elicitations().answer({ sessionId, requestId: m.requestId, action: m.action, content: m.content });
      if (went === 'remote' && sessionId) app.sessions.models.elicitationResolved(sessionId, m.requestId);
    },
    openElicitationUrl: (m, view) => elicitations().openUrl({ requestId: m.requestId, sessionId: view.aim(undefined) }),
  } satisfies Partial<IntentHandlers>;
}

async function answerApproval(app: ApprovalApp, sessionId: string | undefined, requestId: string, decision: ApprovalDecision): Promise<void> {
  if (app.broker.answer(requestId, decision)) return;
  if (sessionId && app.sessions.remoteFeedOf(sessionId)?.isRemoteApproval(requestId)) {
    const services = await app.services();
    const result = await services.crossWindow.control.answer(sessionId, requestId, decision);
    if (result.kind === 'won') {
      app.sessions.models.approvalResolved(sessionId, requestId);
      return;
    }
  }
  void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: that approval request was already answered or cancelled.'));
}
