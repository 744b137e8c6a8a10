// Connects the session view to the services: starts user and resume turns, aborts, and streams every change
// of the open session to the view. Which session the view shows and how it is opened: sessionOpener.ts; what
// the view's messages do: the handlers of presentation/handlers/ (a prompt, a stop or a resume comes here).

import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../core/common/disposable';
import { errorMessage } from '../core/common/errors';
import type { SettledHooks } from '../core/settings/agentChoiceGate';
import type { SessionMeta } from '../core/store/sessionStore';
import type { SupervisorEvent } from '../core/supervisor/supervisorEvents';
import type { HostEvent, SessionSnapshot, TurnPhase } from '../../shared/sessionView';
import type { StartTurnOptions, TurnEnded } from '../core/ports/turns';
import { emptySnapshot } from '../../shared/sessionView';
import { isTurnLive } from '../../shared/sessionViewReducer';
import { summaries } from '../../shared/turnWords';
import type { PromptMention } from '../../shared/promptContext';
import type { MentionSource } from './mentionSource';
import { promptAttachments, type MentionDeps } from '../presentation/promptMentions';
import { stopTurnElsewhere } from './remoteTurnStop';
import type { SessionPresenter } from '../presentation/sessionPresenter';
import { SessionModels, type ModelWatcher } from '../presentation/sessionModels';
import type { VigilServices } from '../services';
import { adoptAgentTitle, titleFrom, titleIfUntitled, untitled } from '../presentation/agentTitle';
import { SessionOpener, type SessionOpenerDeps } from './sessionOpener';
import { TurnStarter } from '../presentation/turnStarter';
import { turnRedoFor } from './turnRedoPorts';
import type { TurnRedo } from '../presentation/turnRedo';
import type { RemoteTurnFeed } from '../presentation/remoteTurnFeed';

export interface SessionControllerDeps extends SessionOpenerDeps {
  /** What `@` offers in the composer. */
  mentions: MentionSource;
  /** The folder a session's agent works in (its workspace folder), for mentions of files. */
  workFolder(sessionId: string): Promise<string | undefined>;
  post(event: HostEvent): void;
  reveal(): Promise<void>;
  /** A turn failed with remedies (start failure, sign-in needed); `text` is the person's message of a user turn. */
  onTurnFailed?(ended: TurnEnded, text: string | undefined): void;
  /** Resolves once Vigil knows which agent the settings name (configuration.ts); a turn is started only after. */
  agentChoiceSettled?(hooks: SettledHooks): Promise<void>;
  /** The folder a new session belongs to (active editor's folder, else the first); none without folders. */
  folderForNewSession(): string | undefined;
}

export const resumePrompt =
  'Resume: the previous turn ended before it finished (it was aborted or interrupted). Continue the task from where it stopped. ' +
  'Check the current state of files and background tasks before repeating any step.';

export class SessionController extends Disposable {
  /** One model per session (the shown one, and those whose turn runs here), each fed once by the events below. */
  readonly models: SessionModels;
  /** Which session the view shows, opened from the store and kept current (sessionOpener.ts). */
  private readonly opener: SessionOpener;
  /** Starts the person's turns (turnStarter.ts); edits, retries and regenerates go through `redo` (turnRedo.ts). */
  private readonly starter: TurnStarter;
  readonly redo: TurnRedo;
  private attached = false;

  constructor(private readonly d: SessionControllerDeps) {
    super();
    this.models = new SessionModels({ post: (event) => this.d.post(event), isLive: (sessionId) => this.services?.supervisor.getSnapshot(sessionId) !== undefined });
    this.opener = new SessionOpener(d, this.models);
    this.starter = new TurnStarter(d, this.models);
    this.redo = turnRedoFor(this, d, (sessionId, text, mentions, redo) => this.sendRedo(sessionId, text, mentions, redo));
    this._register(toDisposable(() => this.opener.stopFollowing()));
  }

  private services: VigilServices | undefined;

  /** The model of the session the view shows. */
  private get presenter(): SessionPresenter | undefined {
    return this.models.shown;
  }

  /**
   * An editor tab of the session: its model (the view's, another tab's, or read now) told to `watcher` from
   * now on. The returned function ends the watch; the model and its follower go once nothing shows them.
   */
  async watch(sessionId: string, watcher: ModelWatcher): Promise<() => void> {
    const unwatch = await this.opener.hold(sessionId, watcher);
    return () => {
      unwatch();
      this.opener.dropUnshown();
    };
  }

  /** A session's model as its surfaces show it; empty when no surface holds it. */
  snapshotOf(sessionId: string): SessionSnapshot {
    return this.models.get(sessionId)?.snapshot ?? emptySnapshot();
  }

  /** Whether the view or a tab shows the session (its changes reach a person without opening it). */
  private onScreen(sessionId: string): boolean {
    return sessionId === this.presenter?.sessionId || this.models.watched(sessionId);
  }

  get currentSessionId(): string | undefined {
    return this.presenter?.sessionId;
  }

  get currentSnapshot(): SessionSnapshot | undefined {
    return this.presenter?.snapshot;
  }

  /** A session's turn state as its view shows it (or would), when this window knows it: the list reads the same. */
  phaseOf(sessionId: string): TurnPhase | undefined {
    return this.models.phaseOf(sessionId);
  }

  /** Subscribes to the services once they run; everything the view shows flows from here. */
  attach(services: VigilServices): void {
    if (this.attached) return;
    this.attached = true;
    this.services = services;
    const { supervisor, registry } = services;
    const models = this.models;
    const subscriptions = [
      supervisor.subscribe((event) => this.onSupervisorEvent(event)),
      services.agents.subscribeAgentState((event) => {
        if (event.kind === 'state') models.agentState(event.sessionId, event.state);
        else void this.adoptTitle(services, event.sessionId, event.title);
      }),
      supervisor.sessions.onAppended(({ sessionId, records }) => this.opener.appended(sessionId, records)),
      registry.subscribe((event) => {
        if (event.type !== 'created' && event.type !== 'changed') return;
        models.task(event.task);
        this.d.changed();
      }),
      this.d.broker.subscribe((change) => {
        if (change.type === 'requested') models.approvalRequested(change.sessionId, change.approval);
        else models.approvalResolved(change.sessionId, change.requestId);
        if (change.type === 'requested') void this.d.reveal();
        this.d.changed();
      }),
      this.d.elicitations.subscribe((change) => {
        if (change.type === 'requested') models.elicitationRequested(change.sessionId, change.elicitation);
        else models.elicitationResolved(change.sessionId, change.requestId);
        if (change.type === 'requested') void this.d.reveal();
      }),
    ];
    for (const unsubscribe of subscriptions) this._register(toDisposable(unsubscribe));
  }

  /** Re-renders the headers of the sessions on screen, or of one (its agent's background wakeups became available or not). */
  refreshMeta(sessionId?: string): void {
    const ids = sessionId !== undefined ? [sessionId].filter((id) => this.onScreen(id)) : this.models.onScreen();
    for (const id of ids) {
      void this.d
        .services()
        .then(async (services) => {
          const meta = await services.supervisor.sessions.get(id);
          if (meta) this.models.meta(meta, this.d.metaExtra(id));
        })
        .catch((error: unknown) => this.d.logger.debug(`refreshing the session header failed: ${String(error)}`));
    }
  }

  /** Answers the webview's `ready` (synchronously, so no event slips between snapshot and send). */
  getSnapshot(): SessionSnapshot {
    return this.presenter?.snapshot ?? emptySnapshot();
  }

  /**
   * After a window reload: show the session that was open before, if it still exists (sessionOpener.ts).
   */
  restoreLast(): Promise<void> {
    return this.opener.restoreLast();
  }

  /** `inView: false`: created only (an editor tab shows it), the view keeps what it shows. */
  async newSession(title = untitled, inView = true): Promise<SessionMeta> {
    const services = await this.d.services();
    const folder = this.d.folderForNewSession();
    const meta = await services.supervisor.sessions.create(title, undefined, folder !== undefined ? { folder } : {});
    if (inView) await this.open(meta.id);
    this.d.changed();
    return meta;
  }

  /**
   * Makes `sessionId` the session the view shows, from its durable transcript. `onlyIf`: the open
   * count the caller saw; the open is dropped if another started since (the restore uses 0).
   */
  open(sessionId: string, options: { onlyIf?: number } = {}): Promise<void> {
    return this.opener.open(sessionId, options);
  }

  /** The header's Open…: the session it names in the view, else the person picks one (Vigil: Open Session…). */
  async openOrPick(sessionId: string | undefined): Promise<void> {
    if (sessionId) await this.open(sessionId);
    else await vscode.commands.executeCommand('vigil.openSession');
  }

  /** Refuses, with what to do, a turn this window must not run; the view stays read-only for it. */
  private async checkRunsHere(services: VigilServices, sessionId: string): Promise<void> {
    const meta = await services.supervisor.sessions.get(sessionId);
    if (!meta) throw new Error(`Session ${sessionId} does not exist any more.`);
    const problem = await this.opener.folderProblem(services, meta);
    if (problem) throw new Error(problem);
  }

  /** What `@` mentions and a prompt's attachments are made with (presentation/promptMentions.ts). */
  get mentionDeps(): MentionDeps {
    return this.d;
  }

  /** The turn another window runs in `sessionId`, when this window follows it (its approvals and forms are answered there). */
  remoteFeedOf(sessionId: string): RemoteTurnFeed | undefined {
    return this.opener.remoteFeedOf(sessionId);
  }

  /** Sends the person's message (a new session when none is named or shown): the composer's, or a sign-in's retry. */
  async prompt(intent: { sessionId?: string; text: string; mentions?: PromptMention[] }): Promise<void> {
    const text = intent.text.trim();
    const mentions = intent.mentions ?? [];
    if (!text && mentions.length === 0) return;
    const titleText = text || mentions.map((m) => (m.kind === 'file' ? m.path : m.kind)).join(', ');
    let sessionId = intent.sessionId ?? this.presenter?.sessionId;
    const services = await this.d.services();
    if (!sessionId) sessionId = (await this.newSession(titleFrom(titleText))).id;
    else await this.checkRunsHere(services, sessionId);
    // Checked before the prompt is stored: a refused attachment loses nothing (the draft comes back).
    const attachments = mentions.length > 0 ? await promptAttachments(this.d, services, sessionId, mentions) : undefined;
    await this.nameIfUntitled(services, sessionId, titleText);
    if (!this.onScreen(sessionId)) await this.open(sessionId);
    this.redo.memory.remember(sessionId, text, mentions);
    await this.starter.start(services, sessionId, text, 'user', { attachments });
  }

  /** Resume (the view's button, the palette): a turn that continues what an aborted or interrupted one left. */
  async resume(sessionId = this.presenter?.sessionId): Promise<void> {
    if (!sessionId) return;
    const services = await this.d.services();
    if (!this.onScreen(sessionId)) await this.open(sessionId);
    await this.checkRunsHere(services, sessionId);
    // Resuming is the person's way of saying the provider is fixed: parked wakeups may flow again.
    services.supervisor.unpause(sessionId);
    await this.starter.start(services, sessionId, resumePrompt, 'resume');
  }

  /** Stop or Escape in the view, Abort Turn in the palette: the person's abort of the running turn. */
  async stop(sessionId = this.presenter?.sessionId): Promise<void> {
    if (!sessionId) return;
    this.starter.cancelWait(sessionId);
    const services = await this.d.services();
    if (await services.supervisor.abort(sessionId, summaries.stoppedByYou)) return;
    await stopTurnElsewhere(services, sessionId, this.d.logger);
  }

  /** The turn another window runs in the open session, if any (status bar, tree). */
  get remoteTurn(): { turnId: string; startedAt: number; phase: string; waitingOn: string } | undefined {
    return this.opener.remoteFeed?.current;
  }

  /** Whether the open session has a live turn (Abort applies). */
  get turnLive(): boolean {
    return this.presenter ? isTurnLive(this.presenter.phase) : false;
  }

  private async nameIfUntitled(services: VigilServices, sessionId: string, text: string): Promise<void> {
    const renamed = await titleIfUntitled(services.supervisor.sessions, sessionId, text, this.models.get(sessionId)?.snapshot.session?.title);
    if (!renamed) return;
    this.models.meta(renamed, this.d.metaExtra(sessionId));
    this.d.changed();
  }

  /** The agent named the session: adopted unless the person named it (agentTitle.ts). */
  private async adoptTitle(services: VigilServices, sessionId: string, title: string): Promise<void> {
    try {
      const renamed = await adoptAgentTitle(services.supervisor.sessions, sessionId, title);
      if (!renamed) return;
      this.models.meta(renamed, this.d.metaExtra(sessionId));
      this.d.changed();
    } catch (error) {
      this.d.logger.warn(`the agent's title for session ${sessionId} was not stored: ${errorMessage(error)}`);
    }
  }

  /** An edit, retry or regenerate `redo` checked: sent like a message, its record naming the exchange it replaces. */
  private async sendRedo(sessionId: string, text: string, mentions: PromptMention[], redo: StartTurnOptions['redo']): Promise<void> {
    const services = await this.d.services();
    await this.checkRunsHere(services, sessionId);
    const attachments = mentions.length > 0 ? await promptAttachments(this.d, services, sessionId, mentions) : undefined;
    this.redo.memory.remember(sessionId, text, mentions);
    await this.starter.start(services, sessionId, text, 'user', { attachments, redo });
  }

  private onSupervisorEvent(event: SupervisorEvent): void {
    // Turns this window's person started are reported from `start` (which knows their text); wakeups here.
    if (event.type === 'turnEnded' && event.ended.source === 'wakeup') this.starter.failed(event.ended, undefined);
    const phaseBefore = this.presenter?.phase;
    this.models.supervisorEvent(event);
    // Activity arrives several times a second while a turn streams: unless it ends a quiet spell
    // (a phase change), it moves counters only, and nothing needs the sessions listed again.
    this.d.changed(event.type === 'activity' && this.presenter?.phase === phaseBefore);
  }
}
