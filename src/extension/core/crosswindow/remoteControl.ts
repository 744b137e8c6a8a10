// Steering a turn that another window runs: answer its approvals and elicitations, ask it to abort, and — when it does
// not acknowledge within a short bound (its window froze or its host hangs) — take the turn over under
// a new lease epoch, end it as interrupted (resumable), and kill its agent if it runs on this host.

import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { errorMessage } from '../common/errors';
import { killProcessTree, processStartTime } from '../common/processTree';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { LeaseHolder } from '../lease/leaseRecord';
import type { TurnLeaseStore } from '../lease/turnLease';
import type { SessionStore } from '../store/sessionStore';
import { markInterrupted } from '../supervisor/reclaim';
import { summaries } from '../../../shared/turnWords';
import type { Mailbox } from './mailbox';
import type { ElicitationAnswer } from '../acp/elicitationHost';

export type AnswerResult = { kind: 'won' } | { kind: 'lost'; answer?: string } | { kind: 'gone' };
export type RemoteAbortResult =
  | { kind: 'none' }
  | { kind: 'acknowledged'; aborted: boolean }
  | { kind: 'takenOver'; killedAgent: boolean }
  /** The turn ended (or changed hands) while we waited; nothing left to abort. */
  | { kind: 'changed' };

export interface RemoteControlDeps {
  mailbox: Mailbox;
  lease: TurnLeaseStore;
  sessions: SessionStore;
  windowId: string;
  clock: Clock;
  logger: Logger;
  /** How long the holder has to acknowledge an abort before the turn is taken over (default 3 s). */
  ackBoundMs?: number;
  onMailboxChange(check: () => Promise<void>): () => void;
  /** Kills a process tree on this host (injected for tests). */
  killTree?(pid: number): Promise<void>;
  /** When `pid` started, as processStartTime says (injected for tests). */
  processStart?(pid: number): string | undefined;
}

export const DEFAULT_ACK_BOUND_MS = 3_000;

export function takeoverReason(): string {
  return summaries.stoppedNoAnswer;
}

export class RemoteControl {
  private readonly host = os.hostname();

  constructor(private readonly d: RemoteControlDeps) {}

  /** The live holder if it is another window, else undefined. */
  async remoteHolder(sessionId: string): Promise<LeaseHolder | undefined> {
    const holder = await this.d.lease.liveHolder(sessionId);
    if (!holder || holder.windowId === this.d.windowId || holder.turnId.startsWith('recovery-')) return undefined;
    return holder;
  }

  /** Whether a takeover or reclaim holds the session now: it writes the end of the turn it took before it lets go. */
  async recovering(sessionId: string): Promise<boolean> {
    return (await this.d.lease.liveHolder(sessionId))?.turnId.startsWith('recovery-') ?? false;
  }

  /** First answer wins, exactly once, whichever window gives it. */
  async answer(sessionId: string, requestId: string, answer: 'allowOnce' | 'allowAlways' | 'reject'): Promise<AnswerResult> {
    const { d } = this;
    if (!(await d.mailbox.listApprovals(sessionId)).some((r) => r.requestId === requestId)) return { kind: 'gone' };
    const result = await d.mailbox.claimAnswer(sessionId, requestId, { version: 1, answer, by: d.windowId, at: d.clock.wallNow() });
    return result.won ? { kind: 'won' } : { kind: 'lost', answer: result.value?.answer };
  }

  /** An agent's elicitation: first answer wins, as for approvals. The caller checked a form's values against it. */
  async answerElicitation(sessionId: string, requestId: string, answer: ElicitationAnswer): Promise<AnswerResult> {
    const { d } = this;
    if (!(await d.mailbox.listElicitations(sessionId)).some((r) => r.requestId === requestId)) return { kind: 'gone' };
    const result = await d.mailbox.claimElicitationAnswer(sessionId, requestId, { version: 1, ...answer, by: d.windowId, at: d.clock.wallNow() });
    return result.won ? { kind: 'won' } : { kind: 'lost', answer: result.value?.action };
  }

  /**
   * Asks the holder to abort; waits for its acknowledgement up to the bound, then takes over.
   * The person asked for the turn to stop: a holder that cannot hear it must not keep the session.
   */
  async abort(sessionId: string, reason = 'Aborted from another window'): Promise<RemoteAbortResult> {
    const { d } = this;
    const holder = await this.remoteHolder(sessionId);
    if (!holder) return { kind: 'none' };
    const turnId = holder.turnId;
    await d.mailbox.requestAbort(sessionId, turnId, { version: 1, by: d.windowId, at: d.clock.wallNow(), reason });
    const ack = await this.waitForAck(sessionId, turnId, d.ackBoundMs ?? DEFAULT_ACK_BOUND_MS);
    if (ack) {
      await d.mailbox.clearAbort(sessionId, turnId).catch(() => undefined);
      return { kind: 'acknowledged', aborted: ack.aborted };
    }
    return this.takeOver(sessionId, turnId);
  }

  /** Takes the turn `turnId` over (only while it still holds the lease) and ends it as interrupted. */
  async takeOver(sessionId: string, turnId: string): Promise<RemoteAbortResult> {
    const { d } = this;
    const board = await d.mailbox.readBoard(sessionId);
    const got = await d.lease.seize(sessionId, turnId, d.lease.holderFor(d.windowId, `recovery-${randomUUID()}`));
    if (got.kind !== 'acquired') {
      await d.mailbox.clearAbort(sessionId, turnId).catch(() => undefined);
      return { kind: 'changed' };
    }
    let killedAgent = false;
    try {
      const previous = got.reclaimed!.previous;
      // From here the old holder's writes are refused (STALE_EPOCH): only this window writes the end.
      await markInterrupted(d.sessions, sessionId, previous, takeoverReason(), d.lease.guard(got.token), d.logger);
      await this.withdrawQuestions(sessionId, turnId);
      await d.mailbox.clearBoard(sessionId, turnId);
      await d.mailbox.sweepAnswers(sessionId);
      if (board?.turnId === turnId && board.host === this.host && board.agentPid !== undefined && board.agentPid !== process.pid && this.stillTheAgent(board)) {
        d.logger.warn(`[crosswindow] killing the agent process tree ${board.agentPid} of the taken-over turn ${turnId}`);
        await (d.killTree ?? killProcessTree)(board.agentPid).then(
          () => (killedAgent = true),
          (error: unknown) => d.logger.error(`[crosswindow] killing agent ${board.agentPid} failed: ${errorMessage(error)}`),
        );
      }
    } finally {
      await d.lease.release(got.token).catch((error: unknown) => d.logger.warn(`[crosswindow] releasing the takeover lease failed: ${errorMessage(error)}`));
      await d.mailbox.clearAbort(sessionId, turnId).catch(() => undefined);
    }
    return { kind: 'takenOver', killedAgent };
  }

  /**
   * Whether the board's agent pid still names the process the holder recorded: a holder that died long ago may have
   * left a pid the system has since given to another program of the person's, which must not be killed. A board
   * without a start (an older window, or a system where it is unknown) is trusted as before.
   */
  private stillTheAgent(board: { agentPid?: number; agentStart?: string }): boolean {
    if (board.agentStart === undefined || board.agentPid === undefined) return true;
    const now = (this.d.processStart ?? processStartTime)(board.agentPid);
    if (now === board.agentStart) return true;
    this.d.logger.info(`[crosswindow] the agent ${board.agentPid} of the taken-over turn has already ended${now === undefined ? '' : ' (its pid now names another process, left alone)'}`);
    return false;
  }

  /**
   * Withdraws the questions (approvals, elicitations) published for `turnId`, only those of `windowId` when
   * given: each is answered `cancelled` in the store first, so a late answer from any window loses and is told so.
   */
  async withdrawQuestions(sessionId: string, turnId: string, windowId?: string): Promise<void> {
    const { d } = this;
    const ours = (q: { turnId: string; windowId: string }) => q.turnId === turnId && (windowId === undefined || q.windowId === windowId);
    for (const request of (await d.mailbox.listApprovals(sessionId)).filter(ours)) {
      await d.mailbox.claimAnswer(sessionId, request.requestId, { version: 1, answer: 'cancelled', by: d.windowId, at: d.clock.wallNow() }).catch(() => undefined);
      await d.mailbox.withdrawApproval(sessionId, request.requestId);
    }
    for (const request of (await d.mailbox.listElicitations(sessionId)).filter(ours)) {
      await d.mailbox.claimElicitationAnswer(sessionId, request.requestId, { version: 1, action: 'cancel', by: d.windowId, at: d.clock.wallNow() }).catch(() => undefined);
      await d.mailbox.withdrawElicitation(sessionId, request.requestId);
    }
  }

  /** Resolves with the ack, or undefined once `boundMs` passed on the clock without one. */
  private waitForAck(sessionId: string, turnId: string, boundMs: number): Promise<{ aborted: boolean } | undefined> {
    const { d } = this;
    return new Promise((resolve) => {
      let done = false;
      const finish = (value: { aborted: boolean } | undefined) => {
        if (done) return;
        done = true;
        timer.cancel();
        stop();
        resolve(value);
      };
      const check = async () => {
        const ack = await d.mailbox.readAck(sessionId, turnId);
        if (ack) finish({ aborted: ack.aborted });
        // A turn that ended by itself meanwhile needs no takeover: report it as acknowledged.
        else if ((await d.lease.read(sessionId))?.holder?.turnId !== turnId) finish({ aborted: false });
      };
      const timer = d.clock.setTimer(boundMs, () => {
        // One last look: an ack that landed just now still counts.
        void d.mailbox.readAck(sessionId, turnId).then((ack) => finish(ack ? { aborted: ack.aborted } : undefined), () => finish(undefined));
      });
      const stop = d.onMailboxChange(check);
      void check().catch(() => undefined);
    });
  }
}
