// One open session as the view sees it: folds transcript records, supervisor events, tasks and
// approvals into a snapshot, and hands each change on as a host event.

import { applyHostEvent, foldHostEvents } from '../../shared/sessionViewReducer';
import type { AgentStateView } from '../../shared/agentState';
import { emptySnapshot, type ApprovalView, type ElicitationView, type HostEvent, type NoticeView, type SessionMetaView, type SessionSnapshot, type TaskView } from '../../shared/sessionView';
import type { SessionMeta } from '../core/store/sessionStore';
import type { TranscriptRecord } from '../core/store/transcriptRecords';
import type { SupervisorEvent, TurnSnapshot } from '../core/supervisor/supervisorEvents';
import type { TaskSnapshot } from '../core/tasks/taskTypes';
import { TranscriptTranslator } from './transcriptTranslator';
import { TurnStatusTracker } from './turnStatusTracker';

export function metaView(meta: SessionMeta, extra: Partial<SessionMetaView> = {}): SessionMetaView {
  return { id: meta.id, title: meta.title, createdAt: meta.createdAt, ...extra };
}

export function taskView(task: TaskSnapshot): TaskView {
  return {
    id: task.id,
    command: task.command,
    status: task.status,
    startedAt: task.startedAt,
    ...(task.endedAt !== null ? { endedAt: task.endedAt } : {}),
    exitCode: task.exitCode,
    signal: task.signal,
  };
}

export interface PresenterSeed {
  meta: SessionMeta;
  metaExtra?: Partial<SessionMetaView>;
  records: readonly TranscriptRecord[];
  live: TurnSnapshot | undefined;
  tasks: readonly TaskSnapshot[];
  approvals: readonly ApprovalView[];
  /** What the session's agent said about itself so far in this window (options, commands, usage). */
  agent?: AgentStateView;
  elicitations?: readonly ElicitationView[];
}

export class SessionPresenter {
  private readonly translator = new TranscriptTranslator();
  private readonly tracker: TurnStatusTracker;
  private state: SessionSnapshot;

  /** `tracker`: the one that followed the session's turn while no model showed it (SessionModels), if any. */
  constructor(
    seed: PresenterSeed,
    private readonly post: (event: HostEvent) => void,
    now: () => number = Date.now,
    tracker?: TurnStatusTracker,
  ) {
    this.tracker = tracker ?? new TurnStatusTracker(now);
    let state: SessionSnapshot = { ...emptySnapshot(), session: metaView(seed.meta, seed.metaExtra) };
    state = foldHostEvents(state, this.history(seed.records));
    const { turn, notice } = this.tracker.initial(seed.meta, seed.live);
    state = applyHostEvent(state, { type: 'turnStatusChanged', turn, ...(notice ? { notice } : {}) });
    for (const task of seed.tasks) state = applyHostEvent(state, { type: 'taskChanged', task: taskView(task) });
    for (const approval of seed.approvals) state = applyHostEvent(state, { type: 'approvalRequested', approval });
    if (seed.agent) state = applyHostEvent(state, { type: 'agentStateChanged', agent: seed.agent });
    for (const elicitation of seed.elicitations ?? []) state = applyHostEvent(state, { type: 'elicitationRequested', elicitation });
    this.state = state;
  }

  private history(records: readonly TranscriptRecord[]): HostEvent[] {
    const events: HostEvent[] = [];
    for (const record of records) for (const event of this.translator.translate(record)) events.push(event);
    return events;
  }

  get sessionId(): string {
    return this.state.session!.id;
  }

  get snapshot(): SessionSnapshot {
    return this.state;
  }

  get phase(): SessionSnapshot['turn']['phase'] {
    return this.state.turn.phase;
  }

  records(records: readonly TranscriptRecord[]): void {
    for (const record of records) for (const event of this.translator.translate(record)) this.emit(event);
  }

  supervisorEvent(event: SupervisorEvent): void {
    const hostEvent = this.tracker.apply(event);
    if (hostEvent) this.emit(hostEvent);
  }

  task(task: TaskSnapshot): void {
    this.emit({ type: 'taskChanged', task: taskView(task) });
  }

  approvalRequested(approval: ApprovalView): void {
    this.emit({ type: 'approvalRequested', approval });
  }

  approvalResolved(requestId: string): void {
    this.emit({ type: 'approvalResolved', requestId });
  }

  elicitationRequested(elicitation: ElicitationView): void {
    this.emit({ type: 'elicitationRequested', elicitation });
  }

  elicitationResolved(requestId: string): void {
    this.emit({ type: 'elicitationResolved', requestId });
  }

  /** Marks the shown turn as run by another window (or not any more): the status says where it runs. */
  elsewhere(where: string | undefined, waitingOn?: string): void {
    const current = this.state.turn;
    if (current.where === where && (waitingOn === undefined || current.waitingOn === waitingOn)) return;
    const { where: _old, ...turn } = current;
    this.emit({ type: 'turnStatusChanged', turn: where ? { ...turn, where, ...(waitingOn !== undefined ? { waitingOn } : {}) } : turn });
  }

  meta(meta: SessionMeta, extra: Partial<SessionMetaView> = {}): void {
    this.emit({ type: 'sessionMetaChanged', session: metaView(meta, extra) });
  }

  /** The agent's options, commands or usage changed. */
  agentState(agent: AgentStateView): void {
    this.emit({ type: 'agentStateChanged', agent });
  }

  /** A pinned notice that is not about a turn (e.g. "this session belongs to another folder"). */
  note(notice: NoticeView): void {
    this.emit({ type: 'turnStatusChanged', turn: this.state.turn, notice });
  }

  /** Takes a pinned notice of `note` away. */
  withdraw(noticeId: string): void {
    if (this.state.notices.some((n) => n.id === noticeId)) this.emit({ type: 'noticeWithdrawn', noticeId });
  }

  private emit(event: HostEvent): void {
    this.state = applyHostEvent(this.state, event);
    this.post(event);
  }
}
