// One view model per session, keyed by session id: each session's transcript, supervisor events,
// tasks, approvals and agent state are folded once, into that session's SessionPresenter. The side
// bar's view shows one of them; editor tabs watch others (or the same one): each surface's channel
// only numbers and posts what its session's model produced.

import type { AgentStateView } from '../../shared/agentState';
import type { ApprovalView, ElicitationView, HostEvent, SessionMetaView, SessionSnapshot, TurnPhase } from '../../shared/sessionView';
import type { SessionMeta } from '../core/store/sessionStore';
import type { TranscriptRecord } from '../core/store/transcriptRecords';
import type { SupervisorEvent } from '../core/supervisor/supervisorEvents';
import type { TaskSnapshot } from '../core/tasks/taskTypes';
import { SessionPresenter, type PresenterSeed } from './sessionPresenter';
import { TurnStatusTracker } from './turnStatusTracker';

export interface SessionModelsDeps {
  /** The shown session's changes, on their way to the view. Changes of other sessions stay in their model. */
  post(event: HostEvent): void;
  /**
   * Whether this window runs a turn of the session. Its model is then kept (and kept current: this
   * window writes all its records) while another session is shown, so showing it again folds nothing.
   */
  isLive(sessionId: string): boolean;
  now?: () => number;
}

/** A surface other than the side bar's view that shows one session (an editor tab): told each change of its model. */
export interface ModelWatcher {
  event(event: HostEvent): void;
  /** Its session's model was built again (read from the store again): start over from this. */
  snapshot(snapshot: SessionSnapshot): void;
}

export class SessionModels {
  private readonly models = new Map<string, SessionPresenter>();
  /**
   * The turn state of sessions whose turn runs here while no model holds them (a wakeup in a session not
   * shown): the session list reads it, and the model built when the session is shown takes it over, so
   * every surface says the same state from the same events.
   */
  private readonly unshown = new Map<string, TurnStatusTracker>();
  private shownId: string | undefined;
  /** The surfaces (editor tabs) watching a session's model: it is kept while one does. */
  private readonly watchers = new Map<string, Set<ModelWatcher>>();

  constructor(private readonly d: SessionModelsDeps) {}

  /** The model of the session the view shows. */
  get shown(): SessionPresenter | undefined {
    return this.shownId === undefined ? undefined : this.models.get(this.shownId);
  }

  get(sessionId: string): SessionPresenter | undefined {
    return this.models.get(sessionId);
  }

  /** How many models are held: the shown one and those of turns running here. */
  get size(): number {
    return this.models.size;
  }

  /** Builds the session's model from its durable transcript and live state, and shows it. */
  show(seed: PresenterSeed): SessionPresenter {
    const model = this.build(seed);
    this.shownId = seed.meta.id;
    this.prune();
    return model;
  }

  /** Builds the session's model for a watcher (an editor tab) without showing it in the side bar. */
  hold(seed: PresenterSeed): SessionPresenter {
    return this.build(seed);
  }

  private build(seed: PresenterSeed): SessionPresenter {
    const sessionId = seed.meta.id;
    const model: SessionPresenter = new SessionPresenter(
      seed,
      (event) => {
        if (this.models.get(sessionId) !== model) return;
        if (this.shownId === sessionId) this.d.post(event);
        for (const watcher of this.watchers.get(sessionId) ?? []) watcher.event(event);
      },
      this.d.now,
      this.unshown.get(sessionId),
    );
    this.unshown.delete(sessionId);
    this.models.set(sessionId, model);
    for (const watcher of this.watchers.get(sessionId) ?? []) watcher.snapshot(model.snapshot);
    return model;
  }

  /** A surface follows the session's model (kept while watched); the returned function stops it. */
  watch(sessionId: string, watcher: ModelWatcher): () => void {
    let set = this.watchers.get(sessionId);
    if (!set) this.watchers.set(sessionId, (set = new Set()));
    set.add(watcher);
    return () => {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(sessionId) === set) this.watchers.delete(sessionId);
      this.prune();
    };
  }

  /** The sessions the view or a tab shows. */
  onScreen(): string[] {
    return [...new Set([...(this.shownId !== undefined ? [this.shownId] : []), ...this.watchers.keys()])];
  }

  /** Whether a surface besides the side bar (an editor tab) shows the session. */
  watched(sessionId: string): boolean {
    return this.watchers.has(sessionId);
  }

  /** Shows the model kept for a session whose turn runs here, as it stands (nothing read, nothing folded again). */
  reshow(sessionId: string): SessionPresenter | undefined {
    const model = this.models.get(sessionId);
    if (!model) return undefined;
    this.shownId = sessionId;
    this.prune();
    return model;
  }

  /**
   * Whether showing the session can reuse its model: one is kept current (a turn of this window writes its
   * records, or a tab follows it), and it is not the one on screen.
   */
  kept(sessionId: string): boolean {
    return sessionId !== this.shownId && this.models.has(sessionId) && (this.d.isLive(sessionId) || this.watched(sessionId));
  }

  /** The session's turn state as the view would show it, when a model or a turn of this window knows it. */
  phaseOf(sessionId: string): TurnPhase | undefined {
    return this.models.get(sessionId)?.phase ?? this.unshown.get(sessionId)?.status.phase;
  }

  supervisorEvent(event: SupervisorEvent): void {
    const sessionId = event.type === 'turnEnded' ? event.ended.sessionId : event.sessionId;
    const model = this.models.get(sessionId);
    if (model) model.supervisorEvent(event);
    else if (event.type === 'turnStarted' || this.unshown.has(sessionId)) this.tracker(sessionId).apply(event);
    if (event.type === 'turnEnded') {
      // Ended: the session's stored state speaks for it now.
      this.unshown.delete(sessionId);
      this.prune();
    }
  }

  private tracker(sessionId: string): TurnStatusTracker {
    let tracker = this.unshown.get(sessionId);
    if (!tracker) this.unshown.set(sessionId, (tracker = new TurnStatusTracker(this.d.now)));
    return tracker;
  }

  records(sessionId: string, records: readonly TranscriptRecord[]): void {
    this.models.get(sessionId)?.records(records);
  }

  task(task: TaskSnapshot): void {
    this.models.get(task.sessionId)?.task(task);
  }

  approvalRequested(sessionId: string, approval: ApprovalView): void {
    this.models.get(sessionId)?.approvalRequested(approval);
  }

  approvalResolved(sessionId: string, requestId: string): void {
    this.models.get(sessionId)?.approvalResolved(requestId);
  }

  elicitationRequested(sessionId: string, elicitation: ElicitationView): void {
    this.models.get(sessionId)?.elicitationRequested(elicitation);
  }

  elicitationResolved(sessionId: string, requestId: string): void {
    this.models.get(sessionId)?.elicitationResolved(requestId);
  }

  agentState(sessionId: string, agent: AgentStateView): void {
    this.models.get(sessionId)?.agentState(agent);
  }

  meta(meta: SessionMeta, extra?: Partial<SessionMetaView>): void {
    this.models.get(meta.id)?.meta(meta, extra);
  }

  /** Drops the models of sessions neither shown, watched nor running a turn here: memory stays bounded by what is live. */
  prune(): void {
    for (const sessionId of [...this.models.keys()]) {
      if (sessionId !== this.shownId && !this.watched(sessionId) && !this.d.isLive(sessionId)) this.models.delete(sessionId);
    }
  }
}
