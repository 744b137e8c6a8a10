// Shows a turn that another window runs in this window's view: folds what the session follower read
// from the store (transcript records, the holder's board, published approvals and elicitations) into the presenter.

import type { FollowUpdate, RemoteTurnView } from '../core/crosswindow/sessionFollower';
import type { TurnEndReason } from '../core/ports/turns';
import type { TranscriptRecord } from '../core/store/transcriptRecords';
import { toolKindOf } from '../../shared/toolKinds';
import { checkElicitationUrl, clip, elicitationLimits } from '../../shared/elicitationForm';
import type { ElicitationView } from '../../shared/sessionView';
import type { ElicitationRequest } from '../core/crosswindow/elicitationMail';
import { summaries } from '../../shared/turnWords';
import type { SessionPresenter } from './sessionPresenter';

export const ELSEWHERE = 'another window';
/** Follower passes (changes or polls) to wait for an end record before calling the turn interrupted. */
const ENDING_PASSES = 5;

export class RemoteTurnFeed {
  private remote: RemoteTurnView | undefined;
  private readonly approvals = new Set<string>();
  private readonly elicitations = new Map<string, ElicitationView>();
  private readonly ends = new Map<string, { reason: TurnEndReason; message?: string }>();
  /** A turn whose lease is gone but whose end record was not read yet (it is written just before the release). */
  private ending: { turn: RemoteTurnView; passes: number } | undefined;

  constructor(
    private readonly presenter: SessionPresenter,
    /** The transcript was rewritten underneath: reopen the session from its tail. */
    private readonly reopen: () => void,
    /** Records this window appended itself (e.g. a takeover's end): the view already has them. */
    private readonly isOwn: (record: TranscriptRecord) => boolean = () => false,
  ) {}

  /** The turn another window runs now, as last read. */
  get current(): RemoteTurnView | undefined {
    return this.remote;
  }

  /** Whether a request shown in the view belongs to another window (answered through the store). */
  isRemoteApproval(requestId: string): boolean {
    return this.approvals.has(requestId);
  }

  /** An agent's form or link of another window shown in the view (answered through the store). */
  remoteElicitation(requestId: string): ElicitationView | undefined {
    return this.elicitations.get(requestId);
  }

  apply(update: FollowUpdate): void {
    if (update.reset) return this.reopen();
    const { presenter } = this;
    const sessionId = presenter.sessionId;
    for (const record of update.records) {
      if (record.type === 'turnEnded' && record.turnId) this.ends.set(record.turnId, { reason: record.reason, message: record.message });
      if (record.type === 'interrupted' && record.turnId) this.ends.set(record.turnId, { reason: 'interrupted', message: record.reason });
    }
    const fresh = update.records.filter((r) => !this.isOwn(r));
    if (fresh.length > 0) presenter.records(fresh);
    const prev = this.remote;
    const next = update.remote;
    this.remote = next;
    if (prev && prev.turnId !== next?.turnId) this.ending = { turn: prev, passes: 0 };
    // While a takeover holds the lease, the taken turn's end is being written: no pass counts yet.
    if (this.ending && !update.recovering) this.settleEnding(next !== undefined);
    if (next) {
      if (prev?.turnId !== next.turnId) {
        presenter.supervisorEvent({ type: 'turnStarted', sessionId, turnId: next.turnId, source: next.source, startedAt: next.startedAt });
      }
      const wasWaiting = prev?.turnId === next.turnId && prev.phase === 'awaitingApproval';
      if (next.phase === 'awaitingApproval' && !wasWaiting) presenter.supervisorEvent({ type: 'approvalWaiting', sessionId, turnId: next.turnId, open: true });
      if (next.phase !== 'awaitingApproval' && wasWaiting) presenter.supervisorEvent({ type: 'approvalWaiting', sessionId, turnId: next.turnId, open: false });
      presenter.elsewhere(ELSEWHERE, next.waitingOn);
    }
    const open = new Set(update.approvals.map((a) => a.requestId));
    for (const requestId of [...this.approvals]) {
      if (open.has(requestId)) continue;
      this.approvals.delete(requestId);
      presenter.approvalResolved(requestId);
    }
    for (const request of update.approvals) {
      if (this.approvals.has(request.requestId)) continue;
      this.approvals.add(request.requestId);
      presenter.approvalRequested({ requestId: request.requestId, title: request.title, kind: toolKindOf(request.kind), at: request.at });
    }
    this.applyElicitations(update.elicitations);
  }

  /** The other window's open elicitations come and go with the store: the first answer anywhere closes them here. */
  private applyElicitations(requests: readonly ElicitationRequest[]): void {
    const open = new Set(requests.map((e) => e.requestId));
    for (const requestId of [...this.elicitations.keys()]) {
      if (open.has(requestId)) continue;
      this.elicitations.delete(requestId);
      this.presenter.elicitationResolved(requestId);
    }
    for (const request of requests) {
      if (this.elicitations.has(request.requestId)) continue;
      const view = viewOf(request);
      if (!view) continue;
      this.elicitations.set(request.requestId, view);
      this.presenter.elicitationRequested(view);
    }
  }

  /** Ends the last remote turn once its end record is read; after a few passes without one, as interrupted. */
  private settleEnding(force: boolean): void {
    const ending = this.ending!;
    ending.passes += 1;
    if (!this.ends.has(ending.turn.turnId) && !force && ending.passes < ENDING_PASSES) return;
    this.ending = undefined;
    this.ended(ending.turn);
  }

  private ended(turn: RemoteTurnView): void {
    const end = this.ends.get(turn.turnId) ?? { reason: 'interrupted' as const, message: summaries.stoppedNoEnd };
    this.presenter.supervisorEvent({
      type: 'turnEnded',
      ended: { sessionId: this.presenter.sessionId, turnId: turn.turnId, source: turn.source, reason: end.reason, message: end.message },
    });
    this.presenter.elsewhere(undefined);
  }
}

/** What the view shows of a published elicitation; a link is checked again (it is opened from this window). */
function viewOf(e: ElicitationRequest): ElicitationView | undefined {
  const { requestId, message, at } = e;
  if (e.mode === 'form') {
    if (e.schema !== undefined) return { requestId, mode: 'form', message, schema: e.schema, at };
    const note = 'This form is too large to show in another window: answer it in the window that runs the turn, or cancel it here.';
    return { requestId, mode: 'form', message: `${clip(message, elicitationLimits.messageChars - note.length - 2)}\n\n${note}`, schema: null, at };
  }
  const url = checkElicitationUrl(e.url);
  return url.ok ? { requestId, mode: 'url', message, url: url.url, host: url.host, at } : undefined;
}
