// The holder's side of an approval: the question is published to the store so any window can answer;
// every answer — this window's prompt, another window, or the timeout — goes through one atomic claim,
// so the first wins exactly once; the others (and this window's prompt) are withdrawn.

import { randomUUID } from 'node:crypto';
import { errorMessage } from '../common/errors';
import type { PermissionAnswer, PermissionPrompter, PermissionQuestion } from '../acp/hostPorts';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { ApprovalAnswer, Mailbox } from './mailbox';

export interface RemoteApprovalsDeps {
  mailbox: Mailbox;
  windowId: string;
  clock: Clock;
  logger: Logger;
  /** This window's own prompt (the session view, a notification). */
  local: PermissionPrompter;
  /** The turn this window runs for the session; approvals outside a turn are only asked locally. */
  turnOf(sessionId: string): string | undefined;
  /** `vigil.approvals.timeoutSeconds`, in ms, read when the question opens. */
  timeoutMs(): number;
  /** Tells the person and the transcript why a question was answered without them. */
  onTimedOut(sessionId: string, message: string): void;
  /** Registers a check to run whenever the mailbox changes; returns its removal. */
  onMailboxChange(check: () => Promise<void>): () => void;
}

export function timeoutMessage(title: string, seconds: number): string {
  return `Nobody answered the approval “${title}” within ${seconds} s, so it was rejected (vigil.approvals.timeoutSeconds). Ask again when the person is back, or choose another way.`;
}

export class RemoteApprovals implements PermissionPrompter {
  constructor(private readonly d: RemoteApprovalsDeps) {}

  async ask(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer> {
    const { d } = this;
    const turnId = d.turnOf(question.sessionId);
    if (turnId === undefined || signal.aborted) return d.local.ask(question, signal);
    const requestId = randomUUID();
    const timeoutMs = Math.max(1, d.timeoutMs());
    const at = d.clock.wallNow();
    try {
      await d.mailbox.publishApproval({
        version: 1, sessionId: question.sessionId, requestId, turnId, windowId: d.windowId,
        // Clipped to what readers accept: an agent's over-long title must not hide the question from other windows.
        title: clip(question.title, 2_000), kind: clip(question.kind, 40), at, deadlineAt: at + timeoutMs,
      });
    } catch (error) {
      // Other windows will not see it, but this window's prompt still works: never lose the question.
      d.logger.error(`[approvals] could not publish “${question.title}” for other windows: ${errorMessage(error)}`);
    }
    const localPrompt = new AbortController();
    const onTurnAbort = () => localPrompt.abort();
    signal.addEventListener('abort', onTurnAbort, { once: true });
    let finish!: (answer: PermissionAnswer) => void;
    const settled = new Promise<PermissionAnswer>((resolve) => (finish = resolve));
    const take = (answer: ApprovalAnswer | undefined) => {
      if (answer) finish(answer.answer);
    };
    const claim = async (answer: ApprovalAnswer['answer'], reason?: string) => {
      if (answer === 'cancelled') return;
      const result = await d.mailbox.claimAnswer(question.sessionId, requestId, { version: 1, answer, by: d.windowId, at: d.clock.wallNow(), reason });
      if (result.won && reason) d.onTimedOut(question.sessionId, reason);
      take(result.value);
    };
    const claimOrLocal = (answer: ApprovalAnswer['answer'], reason?: string) =>
      claim(answer, reason).catch((error: unknown) => {
        // The store refused the claim: this window's own answer still counts, the question must not hang.
        d.logger.error(`[approvals] storing the answer to “${question.title}” failed: ${errorMessage(error)}`);
        finish(answer);
      });
    signal.addEventListener('abort', () => finish('cancelled'), { once: true });
    d.local.ask(question, localPrompt.signal).then(
      (answer) => {
        if (answer !== 'cancelled') void claimOrLocal(answer);
      },
      (error: unknown) => d.logger.error(`[approvals] the local prompt failed: ${errorMessage(error)}`),
    );
    const stopWatching = d.onMailboxChange(async () => take(await d.mailbox.readAnswer(question.sessionId, requestId)));
    const timer = d.clock.setTimer(timeoutMs, () => void claimOrLocal('reject', timeoutMessage(question.title, Math.round(timeoutMs / 1000))));
    if (signal.aborted) finish('cancelled');
    let outcome: PermissionAnswer = 'cancelled';
    try {
      outcome = await settled;
      return outcome;
    } finally {
      timer.cancel();
      stopWatching();
      signal.removeEventListener('abort', onTurnAbort);
      localPrompt.abort();
      // A withdrawn question is answered `cancelled` in the store, so a late answer elsewhere loses and is told so.
      if (outcome === 'cancelled') {
        await d.mailbox
          .claimAnswer(question.sessionId, requestId, { version: 1, answer: 'cancelled', by: d.windowId, at: d.clock.wallNow() })
          .catch(() => undefined);
      }
      await d.mailbox.withdrawApproval(question.sessionId, requestId).catch((error: unknown) => d.logger.warn(`[approvals] withdrawing ${requestId} failed: ${errorMessage(error)}`));
    }
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
