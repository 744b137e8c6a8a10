// The session view's answers to an agent's forms and links, wherever they wait: this window's own, or those
// another window's turn published for the session on screen (the view's or a tab's).

import * as vscode from 'vscode';
import type { ElicitationAnswer } from '../core/acp/elicitationHost';
import type { AnswerResult } from '../core/crosswindow/remoteControl';
import type { ElicitationValue } from '../../shared/elicitationForm';
import type { ElicitationAction } from '../../shared/sessionView';
import type { ElicitationBroker } from '../presentation/elicitationBroker';
import { answerElicitation, elicitationUrl, type ElicitationRoutes } from '../presentation/elicitationAnswers';
import type { RemoteTurnFeed } from '../presentation/remoteTurnFeed';

export interface ElicitationIntentsDeps {
  elicitations: ElicitationBroker;
  /** The follower of another window's turn in a session on screen. */
  remoteFeedOf(sessionId: string): RemoteTurnFeed | undefined;
  claim(sessionId: string, requestId: string, answer: ElicitationAnswer): Promise<AnswerResult>;
}

export class ElicitationIntents {
  constructor(private readonly d: ElicitationIntentsDeps) {}

  /** Where the answer went; `gone` is said to the person here. */
  async answer(intent: { sessionId?: string; requestId: string; action: ElicitationAction; content?: Record<string, ElicitationValue> }): Promise<'local' | 'remote' | 'gone'> {
    const went = await answerElicitation(this.routes(intent.sessionId), intent.sessionId, intent.requestId, intent.action, intent.content);
    if (went === 'gone') void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: that request of the agent was already answered or cancelled.'));
    return went;
  }

  async openUrl(intent: { requestId: string; sessionId?: string }): Promise<void> {
    const url = elicitationUrl(this.routes(intent.sessionId), intent.requestId);
    if (!url) throw new Error('That link request was already answered or cancelled.');
    // The URL was checked (http/https, no credentials) when the agent sent it; the person clicked to open it.
    const opened = await vscode.env.openExternal(vscode.Uri.parse(url, true));
    if (!opened) throw new Error(`The link to ${new URL(url).host} could not be opened.`);
  }

  /** This window's forms, and those of another window's turn shown in the view (or a tab). */
  private routes(sessionId: string | undefined): ElicitationRoutes {
    return {
      local: this.d.elicitations,
      remote: (requestId) => (sessionId ? this.d.remoteFeedOf(sessionId)?.remoteElicitation(requestId) : undefined),
      claim: this.d.claim,
    };
  }
}
