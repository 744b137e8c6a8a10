// The holder's side of an approval: the question is published to the store so any window can answer;
// every answer — this window's prompt, another window, or the timeout — goes through one atomic claim,
// so the first wins exactly once; the others (and this window's prompt) are withdrawn (sharedQuestion.ts).

import { randomUUID } from 'node:crypto';
import type { PermissionAnswer, PermissionPrompter, PermissionQuestion } from '../acp/hostPorts';
import type { ApprovalAnswer } from './mailbox';
import { askEveryWindow, type EveryWindowDeps } from './sharedQuestion';

export type RemoteApprovalsDeps = EveryWindowDeps<PermissionPrompter>;

export function timeoutMessage(title: string, seconds: number): string {
  return `Nobody answered the approval “${title}” within ${seconds} s, so it was rejected (vigil.approvals.timeoutSeconds). Ask again when the person is back, or choose another way.`;
}

export class RemoteApprovals implements PermissionPrompter {
  constructor(private readonly d: RemoteApprovalsDeps) {}

  ask(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer> {
    const { d } = this;
    const turnId = d.turnOf(question.sessionId);
    if (turnId === undefined || signal.aborted) return d.local.ask(question, signal);
    const { sessionId } = question;
    const requestId = randomUUID();
    const timeoutMs = Math.max(1, d.timeoutMs());
    const at = d.clock.wallNow();
    const stored = (answer: ApprovalAnswer['answer'], reason?: string): ApprovalAnswer => ({ version: 1, answer, by: d.windowId, at: d.clock.wallNow(), reason });
    return askEveryWindow<PermissionAnswer>(
      {
        label: `the approval “${clip(question.title, 200)}”`,
        publish: () =>
          d.mailbox.publishApproval({
            version: 1, sessionId, requestId, turnId, windowId: d.windowId,
            // Clipped to what readers accept: an agent's over-long title must not hide the question from other windows.
            title: clip(question.title, 2_000), kind: clip(question.kind, 40), at, deadlineAt: at + timeoutMs,
          }),
        local: async (localSignal) => {
          const answer = await d.local.ask(question, localSignal);
          return answer === 'cancelled' ? undefined : answer;
        },
        claim: async (answer, reason) => {
          const result = await d.mailbox.claimAnswer(sessionId, requestId, stored(answer, reason));
          return { won: result.won, value: result.value?.answer };
        },
        read: async () => (await d.mailbox.readAnswer(sessionId, requestId))?.answer,
        withdraw: () => d.mailbox.withdrawApproval(sessionId, requestId),
      },
      {
        clock: d.clock, logger: d.logger, timeoutMs, cancelled: 'cancelled', onMailboxChange: d.onMailboxChange,
        timeout: { answer: 'reject', reason: timeoutMessage(question.title, Math.round(timeoutMs / 1000)) },
        onTimedOut: (message) => d.onTimedOut(sessionId, message),
      },
      signal,
    );
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
