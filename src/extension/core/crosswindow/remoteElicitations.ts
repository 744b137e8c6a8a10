// The holder's side of an agent's elicitation (a form or a link), treated as an approval is: published to the store
// so every window of the session shows it and can answer it, the first answer wins (sharedQuestion.ts), and nobody's
// answer within `vigil.approvals.timeoutSeconds` declines it, with a notice in the transcript saying so.

import { randomUUID } from 'node:crypto';
import type { ElicitationAnswer, ElicitationPrompter, ElicitationQuestion } from '../acp/elicitationHost';
import { clip } from '../../../shared/elicitationForm';
import { elicitationFileBytes, type ElicitationRequest, type ElicitationStoredAnswer } from './elicitationMail';
import { askEveryWindow, type EveryWindowDeps } from './sharedQuestion';

export type RemoteElicitationsDeps = EveryWindowDeps<ElicitationPrompter>;

/** What the person reads in the transcript when nobody answered. */
export function elicitationTimeoutMessage(question: ElicitationQuestion, seconds: number): string {
  const what = question.mode === 'url' ? `to open ${question.host} (“${clip(question.message, 200)}”)` : `to fill in a form (“${clip(question.message, 200)}”)`;
  return `The agent asked you ${what}, and nobody answered within ${seconds} s in any window, so Vigil declined it for you (vigil.approvals.timeoutSeconds). The agent was told you declined; ask it again when you are back.`;
}

const cancelled: ElicitationAnswer = { action: 'cancel' };

export class RemoteElicitations implements ElicitationPrompter {
  constructor(private readonly d: RemoteElicitationsDeps) {}

  ask(question: ElicitationQuestion, signal: AbortSignal): Promise<ElicitationAnswer> {
    const { d } = this;
    const turnId = d.turnOf(question.sessionId);
    if (turnId === undefined || signal.aborted) return d.local.ask(question, signal);
    const { sessionId } = question;
    const requestId = randomUUID();
    const timeoutMs = Math.max(1, d.timeoutMs());
    const at = d.clock.wallNow();
    const request: ElicitationRequest =
      question.mode === 'form'
        ? { version: 1, sessionId, requestId, turnId, windowId: d.windowId, at, deadlineAt: at + timeoutMs, mode: 'form', message: question.message, schema: question.schema }
        : { version: 1, sessionId, requestId, turnId, windowId: d.windowId, at, deadlineAt: at + timeoutMs, mode: 'url', message: question.message, url: question.url, host: question.host };
    const stored = (answer: ElicitationAnswer, reason?: string): ElicitationStoredAnswer => ({ version: 1, ...answer, by: d.windowId, at: d.clock.wallNow(), reason });
    return askEveryWindow<ElicitationAnswer>(
      {
        label: `the agent's ${question.mode === 'url' ? `link to ${question.host}` : 'form'}`,
        publish: () => this.publish(request),
        local: async (localSignal) => {
          const answer = await d.local.ask(question, localSignal);
          // This window's form closed because the question was withdrawn: not an answer.
          return localSignal.aborted && answer.action === 'cancel' ? undefined : answer;
        },
        claim: async (answer, reason) => {
          const result = await d.mailbox.claimElicitationAnswer(sessionId, requestId, stored(answer, reason));
          return { won: result.won, value: result.value && answerOf(result.value) };
        },
        read: async () => {
          const answer = await d.mailbox.readElicitationAnswer(sessionId, requestId);
          return answer && answerOf(answer);
        },
        withdraw: () => d.mailbox.withdrawElicitation(sessionId, requestId),
      },
      {
        clock: d.clock, logger: d.logger, timeoutMs, cancelled, onMailboxChange: d.onMailboxChange,
        timeout: { answer: { action: 'decline' }, reason: elicitationTimeoutMessage(question, Math.round(timeoutMs / 1000)) },
        onTimedOut: (message) => d.onTimedOut(sessionId, message),
      },
      signal,
    );
  }

  /** A form whose schema is too large for the store is published without it: other windows can still decline it. */
  private publish(request: ElicitationRequest): Promise<void> {
    if (request.mode === 'form' && Buffer.byteLength(JSON.stringify(request)) > elicitationFileBytes) {
      this.d.logger.warn(`[crosswindow] the agent's form is too large to show in other windows; they can only decline it`);
      return this.d.mailbox.publishElicitation({ ...request, schema: undefined });
    }
    return this.d.mailbox.publishElicitation(request);
  }
}

function answerOf(stored: ElicitationStoredAnswer): ElicitationAnswer {
  if (stored.action !== 'accept') return { action: stored.action };
  return stored.content ? { action: 'accept', content: stored.content } : { action: 'accept' };
}
