// Follows one session whose turn may run in another window: the transcript tail it appends, the
// turn board it keeps, and the approvals and elicitations it published — read from the store on every change.

import type { TranscriptRecord } from '../store/transcriptRecords';
import type { ApprovalRequest, Mailbox, TurnBoard } from './mailbox';
import type { ElicitationRequest } from './elicitationMail';
import type { RemoteControl } from './remoteControl';
import { TranscriptFollower } from './transcriptFollower';

export interface RemoteTurnView {
  turnId: string;
  windowId: string;
  source: TurnBoard['source'];
  startedAt: number;
  phase: TurnBoard['phase'];
  waitingOn: string;
  lastActivityAt: number;
}

export interface FollowUpdate {
  records: TranscriptRecord[];
  /** The transcript was rewritten: reopen the session from its tail. */
  reset: boolean;
  /** The turn another window runs now, if any. */
  remote: RemoteTurnView | undefined;
  approvals: ApprovalRequest[];
  /** The agent's forms and links it waits on, answerable here. */
  elicitations: ElicitationRequest[];
  /** A takeover or reclaim holds the lease: the end record of the turn it took is still to come. */
  recovering?: boolean;
}

export interface SessionFollowerDeps {
  mailbox: Mailbox;
  control: RemoteControl;
  /** True while this window runs a turn of the session (its own records reach the view directly). */
  isLocalTurn(): boolean;
  now(): number;
}

export class SessionFollower {
  private readonly transcript: TranscriptFollower;

  constructor(
    readonly sessionId: string,
    transcriptFile: string,
    offset: number,
    tail: readonly TranscriptRecord[],
    private readonly d: SessionFollowerDeps,
  ) {
    this.transcript = new TranscriptFollower(transcriptFile, offset, tail);
  }

  async read(): Promise<FollowUpdate> {
    const { d, sessionId } = this;
    // The lease first: a released lease means the end of that turn is already in the transcript.
    const holder = await d.control.remoteHolder(sessionId);
    let records: TranscriptRecord[] = [];
    let reset = false;
    if (d.isLocalTurn()) await this.transcript.skipToEnd();
    else ({ records, reset } = await this.transcript.read());
    if (!holder) return { records, reset, remote: undefined, approvals: [], elicitations: [], recovering: await d.control.recovering(sessionId) };
    const board = await d.mailbox.readBoard(sessionId);
    const own = board?.turnId === holder.turnId ? board : undefined;
    const approvals = (await d.mailbox.listApprovals(sessionId)).filter((a) => a.turnId === holder.turnId);
    const elicitations = (await d.mailbox.listElicitations(sessionId)).filter((e) => e.turnId === holder.turnId);
    const asked = approvals.length + elicitations.length > 0;
    const remote: RemoteTurnView = {
      turnId: holder.turnId,
      windowId: holder.windowId,
      source: own?.source ?? 'user',
      startedAt: own?.startedAt ?? d.now(),
      phase: asked ? 'awaitingApproval' : (own?.phase ?? 'running'),
      waitingOn: asked ? 'your approval' : (own?.waitingOn ?? 'agent'),
      lastActivityAt: own?.lastActivityAt ?? d.now(),
    };
    return { records, reset, remote, approvals, elicitations };
  }
}
