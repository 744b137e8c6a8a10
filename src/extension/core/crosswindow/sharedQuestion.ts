// A question put to every window of a session (an approval, an agent's form or link): this window's own prompt,
// an answer another window stored, and the timeout all go through one atomic claim in the store, so the first
// answer wins exactly once; the rest are withdrawn, and a late answer loses to whatever won.

import { errorMessage } from '../common/errors';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { Mailbox } from './mailbox';

/** What the holder of a question asked in every window needs (remoteApprovals.ts, remoteElicitations.ts); `Local` is this window's own prompt. */
export interface EveryWindowDeps<Local> {
  mailbox: Mailbox;
  windowId: string;
  clock: Clock;
  logger: Logger;
  /** This window's own prompt (the session view, a notification). */
  local: Local;
  /** The turn this window runs for the session; a question outside a turn is only asked locally. */
  turnOf(sessionId: string): string | undefined;
  /** `vigil.approvals.timeoutSeconds`, in ms, read when the question opens. */
  timeoutMs(): number;
  /** Tells the person and the transcript why a question was answered without them. */
  onTimedOut(sessionId: string, message: string): void;
  /** Registers a check to run whenever the mailbox changes; returns its removal. */
  onMailboxChange(check: () => Promise<void>): () => void;
}

/** The store's side of one question (the mailbox files of its kind). */
export interface SharedQuestion<A> {
  /** How the log names it. */
  label: string;
  /** Puts the question in the store for other windows. */
  publish(): Promise<void>;
  /** This window's own prompt: its answer, or undefined when it closed unanswered. */
  local(signal: AbortSignal): Promise<A | undefined>;
  /** The one claim: whether `answer` won, and the answer that holds (undefined: the stored one cannot be read). */
  claim(answer: A, reason?: string): Promise<{ won: boolean; value: A | undefined }>;
  /** The stored answer, if one is there and readable. */
  read(): Promise<A | undefined>;
  withdraw(): Promise<void>;
}

export interface SharedQuestionRules<A> {
  clock: Clock;
  logger: Logger;
  timeoutMs: number;
  /** What the timeout answers, and why (for the person and the transcript, said by `onTimedOut` when it won). */
  timeout: { answer: A; reason: string };
  onTimedOut(reason: string): void;
  /** What a withdrawn question is answered in the store: a later answer elsewhere loses to it. */
  cancelled: A;
  onMailboxChange(check: () => Promise<void>): () => void;
}

/** Settles with the first answer from any window or the timeout; `signal` (the turn's) withdraws it as `cancelled`. */
export async function askEveryWindow<A>(q: SharedQuestion<A>, r: SharedQuestionRules<A>, signal: AbortSignal): Promise<A> {
  try {
    await q.publish();
  } catch (error) {
    // Other windows will not see it, but this window's prompt still works: never lose the question.
    r.logger.error(`[crosswindow] could not publish ${q.label} for other windows: ${errorMessage(error)}`);
  }
  const localPrompt = new AbortController();
  const onTurnAbort = () => localPrompt.abort();
  signal.addEventListener('abort', onTurnAbort, { once: true });
  let finish!: (answer: A) => void;
  const settled = new Promise<A>((resolve) => (finish = resolve));
  const claim = async (answer: A, reason?: string) => {
    const result = await q.claim(answer, reason);
    if (result.won && reason) r.onTimedOut(reason);
    if (result.value !== undefined) return finish(result.value);
    // Another answer won but cannot be read (a damaged file): nothing may wait on it forever.
    r.logger.error(`[crosswindow] the stored answer to ${q.label} cannot be read; it is withdrawn`);
    finish(r.cancelled);
  };
  const claimOrKeep = (answer: A, reason?: string) =>
    claim(answer, reason).catch((error: unknown) => {
      // The store refused the claim: this window's own answer still counts, the question must not hang.
      r.logger.error(`[crosswindow] storing the answer to ${q.label} failed: ${errorMessage(error)}`);
      finish(answer);
    });
  signal.addEventListener('abort', () => finish(r.cancelled), { once: true });
  q.local(localPrompt.signal).then(
    (answer) => {
      if (answer !== undefined) void claimOrKeep(answer);
    },
    (error: unknown) => r.logger.error(`[crosswindow] the local prompt of ${q.label} failed: ${errorMessage(error)}`),
  );
  const stopWatching = r.onMailboxChange(async () => {
    const answer = await q.read();
    if (answer !== undefined) finish(answer);
  });
  const timer = r.clock.setTimer(r.timeoutMs, () => void claimOrKeep(r.timeout.answer, r.timeout.reason));
  if (signal.aborted) finish(r.cancelled);
  let outcome = r.cancelled;
  try {
    outcome = await settled;
    return outcome;
  } finally {
    timer.cancel();
    stopWatching();
    signal.removeEventListener('abort', onTurnAbort);
    localPrompt.abort();
    // A withdrawn question is answered `cancelled` in the store, so a late answer elsewhere loses and is told so.
    if (outcome === r.cancelled) await q.claim(r.cancelled).catch(() => undefined);
    await q.withdraw().catch((error: unknown) => r.logger.warn(`[crosswindow] withdrawing ${q.label} failed: ${errorMessage(error)}`));
  }
}
