// Connects the session view to the services: opens sessions, starts user and resume turns,
// aborts, answers approvals, and streams every change of the open session to the view.

import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../core/common/disposable';
import { errorMessage } from '../core/common/errors';
import type { SettledHooks } from '../core/settings/agentChoiceGate';
import type { Logger } from '../core/ports/logger';
import type { SessionMeta } from '../core/store/sessionStore';
import type { TranscriptRecord } from '../core/store/transcriptRecords';
import type { SupervisorEvent } from '../core/supervisor/supervisorEvents';
import type { ApprovalDecision, HostEvent, NoticeAction, SessionSnapshot, TurnPhase } from '../../shared/sessionView';
import type { TurnEnded } from '../core/ports/turns';
import { emptySnapshot } from '../../shared/sessionView';
import { isTurnLive } from '../../shared/sessionViewReducer';
import { summaries, waitingForSettings } from '../../shared/turnWords';
import type { ApprovalBroker } from '../presentation/approvalBroker';
import type { ElicitationBroker } from '../presentation/elicitationBroker';
import { answerElicitation, elicitationUrl, type ElicitationRoutes } from '../presentation/elicitationAnswers';
import type { ElicitationValue } from '../../shared/elicitationForm';
import type { MentionItem, PromptAttachment, PromptMention } from '../../shared/promptContext';
import type { ElicitationAction } from '../../shared/sessionView';
import type { AcpAgentHandle } from '../core/acp/acpAgentHandle';
import { resolveMentions } from '../core/acp/mentionResolver';
import { refusalFor } from '../core/acp/promptContent';
import type { MentionSource } from './mentionSource';
import type { SessionPresenter } from '../presentation/sessionPresenter';
import { SessionModels } from '../presentation/sessionModels';
import { RemoteTurnFeed } from '../presentation/remoteTurnFeed';
import type { VigilServices } from '../services';
import { adoptAgentTitle } from '../presentation/agentTitle';
import type { SessionViewController } from '../presentation/sessionViewController';

export interface SessionControllerDeps {
  services(): Promise<VigilServices>;
  broker: ApprovalBroker;
  /** Agents' forms and links to answer in the view (items 7). */
  elicitations: ElicitationBroker;
  /** What `@` offers in the composer. */
  mentions: MentionSource;
  /** The folder a session's agent works in (its workspace folder), for mentions of files. */
  workFolder(sessionId: string): Promise<string | undefined>;
  logger: Logger;
  memento: vscode.Memento;
  post(event: HostEvent): void;
  postSnapshot(snapshot: SessionSnapshot): void;
  reveal(): Promise<void>;
  /**
   * Something the status bar, context keys or the session tree show has changed. `statusOnly`:
   * only the live counters moved (activity), nothing that needs the sessions listed again.
   */
  changed(statusOnly?: boolean): void;
  showTaskOutput(taskId: string): Promise<void>;
  /** Opens a recorded edit in the diff editor (editDiffs.ts). */
  openDiff?(editId: string): Promise<void>;
  /** Opens a file a markdown link names, after checking it is inside the workspace. */
  openFile(path: string, line?: number): Promise<void>;
  killTask(taskId: string): Promise<void>;
  /** Extra facts about the session for its header (agent, model). */
  metaExtra(sessionId: string): { agent?: string; model?: string; cwd?: string; wakeups?: string; restricted?: { text: string; detail: string } };
  /** The folder a new session belongs to (active editor's folder, else the first); none without folders. */
  folderForNewSession(): string | undefined;
  /** This window's key for the durable "last open session" record (its first folder, '' without one). */
  windowKey(): string;
  /** A turn failed with remedies (start failure, sign-in needed); `text` is the person's message of a user turn. */
  onTurnFailed?(ended: TurnEnded, text: string | undefined): void;
  /** A remedy button of a notice in the view. */
  onNoticeAction?(action: NoticeAction, sessionId: string | undefined): Promise<void>;
  /** Resolves once Vigil knows which agent the settings name (configuration.ts); a turn is started only after. */
  agentChoiceSettled?(hooks: SettledHooks): Promise<void>;
}

const lastSessionKey = 'vigil.lastSessionId';
const folderNoticeId = 'folder';
const settingsNoticeId = 'settings-wait';
const untitled = 'New session';
const tailRecords = 10_000;

export const resumePrompt =
  'Resume: the previous turn ended before it finished (it was aborted or interrupted). Continue the task from where it stopped. ' +
  'Check the current state of files and background tasks before repeating any step.';

export class SessionController extends Disposable implements SessionViewController {
  /** One model per session (the shown one, and those whose turn runs here), each fed once by the events below. */
  private readonly models: SessionModels;
  /** Records that became durable while a session was being opened (its tail read in flight). */
  private opening: { sessionId: string; buffered: TranscriptRecord[] } | undefined;
  /** User turns still waiting for a busy lease, per session: Stop cancels the wait. */
  private readonly waiting = new Map<string, AbortController>();
  private attached = false;
  /** Bumped by every open: an open overtaken by a later one (the restore by the person's pick) drops its result. */
  private openSeq = 0;
  /** The open session followed through the store, for turns that other windows run. */
  private remote: { stop(): void; feed: RemoteTurnFeed } | undefined;
  /** Records of the open session this window appended (they reach the view directly, not through the follower). */
  private readonly own = new Set<string>();

  constructor(private readonly d: SessionControllerDeps) {
    super();
    this.models = new SessionModels({ post: (event) => this.d.post(event), isLive: (sessionId) => this.services?.supervisor.getSnapshot(sessionId) !== undefined });
    this._register(toDisposable(() => this.remote?.stop()));
  }

  private services: VigilServices | undefined;

  /** The model of the session the view shows. */
  private get presenter(): SessionPresenter | undefined {
    return this.models.shown;
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
    this._register(toDisposable(supervisor.subscribe((event) => this.onSupervisorEvent(event))));
    this._register(toDisposable(services.agents.subscribeAgentState((event) => {
      if (event.kind === 'state') {
        this.models.agentState(event.sessionId, event.state);
        return;
      }
      void this.adoptTitle(services, event.sessionId, event.title);
    })));
    this._register(
      toDisposable(
        supervisor.sessions.onAppended(({ sessionId, records }) => {
          if (sessionId === this.opening?.sessionId) this.opening.buffered.push(...records);
          else this.models.records(sessionId, records);
          if (sessionId === this.presenter?.sessionId || sessionId === this.opening?.sessionId) {
            if (this.own.size > 10_000) this.own.clear();
            for (const record of records) this.own.add(recordKey(record));
          }
        }),
      ),
    );
    this._register(
      toDisposable(
        registry.subscribe((event) => {
          if (event.type === 'created' || event.type === 'changed') {
            this.models.task(event.task);
            this.d.changed();
          }
        }),
      ),
    );
    this._register(
      toDisposable(
        this.d.broker.subscribe((change) => {
          if (change.type === 'requested') this.models.approvalRequested(change.sessionId, change.approval);
          else this.models.approvalResolved(change.sessionId, change.requestId);
          if (change.type === 'requested') void this.d.reveal();
          this.d.changed();
        }),
      ),
    );
    this._register(
      toDisposable(
        this.d.elicitations.subscribe((change) => {
          if (change.type === 'requested') this.models.elicitationRequested(change.sessionId, change.elicitation);
          else this.models.elicitationResolved(change.sessionId, change.requestId);
          if (change.type === 'requested') void this.d.reveal();
        }),
      ),
    );
  }

  /** Re-renders the open session's header (its agent's background wakeups became available or not). */
  refreshMeta(sessionId?: string): void {
    const id = this.presenter?.sessionId;
    if (!id || (sessionId !== undefined && sessionId !== id)) return;
    void this.d
      .services()
      .then(async (services) => {
        const meta = await services.supervisor.sessions.get(id);
        if (meta && this.presenter?.sessionId === id) this.presenter.meta(meta, this.d.metaExtra(id));
      })
      .catch((error: unknown) => this.d.logger.debug(`refreshing the session header failed: ${String(error)}`));
  }

  /** Answers the webview's `ready` (synchronously, so no event slips between snapshot and send). */
  getSnapshot(): SessionSnapshot {
    return this.presenter?.snapshot ?? emptySnapshot();
  }

  /**
   * After a window reload: show the session that was open before, if it still exists. The window's
   * memento says which; when it is empty (code-server keeps it in the browser: a new browser or
   * profile), the last session opened by a window of this folder, from the store.
   */
  async restoreLast(): Promise<void> {
    // Any open the person started (even one still loading) wins over the restore.
    if (this.presenter || this.openSeq > 0) return;
    const services = await this.d.services();
    const remembered = this.d.memento.get<unknown>(lastSessionKey);
    let last = typeof remembered === 'string' ? remembered : undefined;
    if (last === undefined || !(await this.exists(services, last))) last = await services.lastOpen.get(this.d.windowKey());
    // Opened by the person meanwhile: theirs wins.
    if (last === undefined || this.openSeq > 0) return;
    if (!(await this.exists(services, last))) {
      this.d.logger.info(`the session open before the reload (${last}) no longer exists`);
      return;
    }
    await this.open(last, { onlyIf: 0 }).catch((error: unknown) => this.d.logger.warn(`reopening session ${last} failed: ${errorMessage(error)}`));
  }

  private async exists(services: VigilServices, sessionId: string): Promise<boolean> {
    try {
      return (await services.supervisor.sessions.get(sessionId)) !== undefined;
    } catch (error) {
      this.d.logger.warn(`session ${sessionId} cannot be read: ${errorMessage(error)}`);
      return false;
    }
  }

  async newSession(title = untitled): Promise<SessionMeta> {
    const services = await this.d.services();
    const folder = this.d.folderForNewSession();
    const meta = await services.supervisor.sessions.create(title, undefined, folder !== undefined ? { folder } : {});
    await this.open(meta.id);
    this.d.changed();
    return meta;
  }

  /**
   * Makes `sessionId` the session the view shows, from its durable transcript. `onlyIf`: the open
   * count the caller saw; the open is dropped if another started since (the restore uses 0).
   */
  async open(sessionId: string, options: { onlyIf?: number } = {}): Promise<void> {
    const seq = ++this.openSeq;
    if (options.onlyIf !== undefined && options.onlyIf !== seq - 1) return;
    const services = await this.d.services();
    const { supervisor, registry } = services;
    const meta = await supervisor.sessions.get(sessionId);
    if (!meta) throw new Error(`Session ${sessionId} does not exist any more.`);
    const problem = await this.folderProblem(services, meta);
    if (seq !== this.openSeq) return;
    // Its turn runs here: the model kept for it is current, so it is shown as it stands.
    if (this.models.kept(sessionId)) return this.showKept(services, meta, problem);
    const opening = { sessionId, buffered: [] as TranscriptRecord[] };
    this.opening = opening;
    // Taken before the tail read: the follower reads on from here and drops what the tail already had.
    const followFrom = await services.crossWindow.transcriptSize(sessionId);
    let tail: Awaited<ReturnType<typeof supervisor.sessions.readTail>>;
    try {
      tail = await supervisor.sessions.readTail(sessionId, tailRecords);
    } finally {
      if (this.opening === opening) this.opening = undefined;
    }
    // A later open (the person's click while this one read the transcript) wins.
    if (seq !== this.openSeq) return;
    const records = [...tail.records, ...unseen(tail.records, opening.buffered)];
    if (tail.corrupt.length > 0) {
      void vscode.window.showWarningMessage(
        tail.corrupt.length === 1
          ? vscode.l10n.t('Vigil: 1 damaged line in the transcript of "{0}" was set aside (kept next to it as .quarantine); the rest of the session is intact.', meta.title)
          : vscode.l10n.t('Vigil: {0} damaged lines in the transcript of "{1}" were set aside (kept next to it as .quarantine); the rest of the session is intact.', tail.corrupt.length, meta.title),
      );
    }
    const presenter = this.models.show(
      {
        meta,
        metaExtra: this.d.metaExtra(sessionId),
        records,
        live: supervisor.getSnapshot(sessionId),
        tasks: registry.list({ sessionId }),
        approvals: this.d.broker.openFor(sessionId),
        agent: services.agents.agentStateOf(sessionId),
        elicitations: this.d.elicitations.openFor(sessionId),
      },
    );
    this.followRemote(services, presenter, followFrom, records);
    this.d.postSnapshot(presenter.snapshot);
    await this.shown(services, presenter, problem);
  }

  /** Shows the kept model of a session whose turn runs in this window, with its header read again. */
  private async showKept(services: VigilServices, meta: SessionMeta, problem: string | undefined): Promise<void> {
    this.models.meta(meta, this.d.metaExtra(meta.id));
    const presenter = this.models.reshow(meta.id)!;
    this.d.postSnapshot(presenter.snapshot);
    // From here on its records reach it directly (`own`); the follower starts at the end of what is stored.
    const followFrom = await services.crossWindow.transcriptSize(meta.id);
    if (this.presenter !== presenter) return;
    this.followRemote(services, presenter, followFrom, []);
    await this.shown(services, presenter, problem);
  }

  private async shown(services: VigilServices, presenter: SessionPresenter, problem: string | undefined): Promise<void> {
    if (problem) presenter.note({ id: folderNoticeId, kind: 'info', text: problem, resumable: false, at: Date.now() });
    this.d.changed();
    await this.d.memento.update(lastSessionKey, presenter.sessionId);
    await services.lastOpen.set(this.d.windowKey(), presenter.sessionId);
  }

  /** Why this window must not run the session (another folder's, or a folder record that is damaged or gone). */
  private async folderProblem(services: VigilServices, meta: SessionMeta): Promise<string | undefined> {
    try {
      return await services.folders.problemFor(meta);
    } catch (error) {
      return `Vigil could not check this session's folder: ${errorMessage(error)}`;
    }
  }

  /** Refuses, with what to do, a turn this window must not run; the view stays read-only for it. */
  private async checkRunsHere(services: VigilServices, sessionId: string): Promise<void> {
    const meta = await services.supervisor.sessions.get(sessionId);
    if (!meta) throw new Error(`Session ${sessionId} does not exist any more.`);
    const problem = await this.folderProblem(services, meta);
    if (problem) throw new Error(problem);
  }

  async onPrompt(intent: { sessionId?: string; text: string; mentions?: PromptMention[] }): Promise<void> {
    const text = intent.text.trim();
    const mentions = intent.mentions ?? [];
    if (!text && mentions.length === 0) return;
    const titleText = text || mentions.map((m) => (m.kind === 'file' ? m.path : m.kind)).join(', ');
    let sessionId = intent.sessionId ?? this.presenter?.sessionId;
    const services = await this.d.services();
    if (!sessionId) sessionId = (await this.newSession(titleFrom(titleText))).id;
    else await this.checkRunsHere(services, sessionId);
    // Checked before the prompt is stored: a refused attachment loses nothing (the draft comes back).
    const attachments = mentions.length > 0 ? await this.attachments(services, sessionId, mentions) : undefined;
    await this.nameIfUntitled(services, sessionId, titleText);
    if (sessionId !== this.presenter?.sessionId) await this.open(sessionId);
    await this.start(services, sessionId, text, 'user', attachments);
  }

  /** The mentions as checked attachments, refused (with why) when the session's agent cannot take them. */
  private async attachments(services: VigilServices, sessionId: string, mentions: PromptMention[]): Promise<PromptAttachment[]> {
    const root = await this.d.workFolder(sessionId);
    if (root === undefined && mentions.some((m) => m.kind === 'file')) throw new Error('Open the session\'s folder to mention its files.');
    const attachments = await resolveMentions(root ?? '/', mentions);
    if (attachments.some((a) => a.kind === 'image')) {
      const handle = (await services.agents.get(sessionId)) as Partial<AcpAgentHandle>;
      const caps = handle.promptCapabilities ? await handle.promptCapabilities() : undefined;
      const refusal = refusalFor(attachments, caps, this.d.metaExtra(sessionId).agent ?? 'This agent');
      if (refusal) throw new Error(refusal);
    }
    return attachments;
  }

  async onMentionQuery(intent: { sessionId?: string; query: string }): Promise<{ items: MentionItem[]; images?: boolean; note?: string }> {
    const services = await this.d.services();
    const sessionId = intent.sessionId ?? this.presenter?.sessionId;
    const root = sessionId ? await this.d.workFolder(sessionId) : this.d.folderForNewSession();
    const found = await this.d.mentions.query(root, intent.query);
    const handle = sessionId ? ((await services.agents.get(sessionId).catch(() => undefined)) as Partial<AcpAgentHandle> | undefined) : undefined;
    const caps = handle?.knownPromptCapabilities;
    return { ...found, ...(caps ? { images: caps.image === true } : {}) };
  }

  async onElicitation(intent: { sessionId?: string; requestId: string; action: ElicitationAction; content?: Record<string, ElicitationValue> }): Promise<void> {
    const went = await answerElicitation(this.elicitationRoutes, intent.sessionId ?? this.presenter?.sessionId, intent.requestId, intent.action, intent.content);
    if (went === 'remote') this.presenter?.elicitationResolved(intent.requestId);
    if (went === 'gone') void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: that request of the agent was already answered or cancelled.'));
  }

  async onOpenElicitationUrl(intent: { requestId: string }): Promise<void> {
    const url = elicitationUrl(this.elicitationRoutes, intent.requestId);
    if (!url) throw new Error('That link request was already answered or cancelled.');
    // The URL was checked (http/https, no credentials) when the agent sent it; the person clicked to open it.
    const opened = await vscode.env.openExternal(vscode.Uri.parse(url, true));
    if (!opened) throw new Error(`The link to ${new URL(url).host} could not be opened.`);
  }

  /** This window's forms, and those of another window's turn shown in the view. */
  private get elicitationRoutes(): ElicitationRoutes {
    return {
      local: this.d.elicitations,
      remote: (requestId) => this.remote?.feed.remoteElicitation(requestId),
      claim: async (sessionId, requestId, answer) => (await this.d.services()).crossWindow.control.answerElicitation(sessionId, requestId, answer),
    };
  }

  async onResume(intent: { sessionId?: string } = {}): Promise<void> {
    const sessionId = intent.sessionId ?? this.presenter?.sessionId;
    if (!sessionId) return;
    const services = await this.d.services();
    if (sessionId !== this.presenter?.sessionId) await this.open(sessionId);
    await this.checkRunsHere(services, sessionId);
    // Resuming is the person's way of saying the provider is fixed: parked wakeups may flow again.
    services.supervisor.unpause(sessionId);
    await this.start(services, sessionId, resumePrompt, 'resume');
  }

  async onStop(intent: { sessionId?: string } = {}): Promise<void> {
    const sessionId = intent.sessionId ?? this.presenter?.sessionId;
    if (!sessionId) return;
    this.waiting.get(sessionId)?.abort();
    const services = await this.d.services();
    if (await services.supervisor.abort(sessionId, summaries.stoppedByYou)) return;
    await this.abortElsewhere(services, sessionId);
  }

  async onApproval(intent: { sessionId?: string; requestId: string; decision: ApprovalDecision }): Promise<void> {
    if (this.d.broker.answer(intent.requestId, intent.decision)) return;
    const sessionId = intent.sessionId ?? this.presenter?.sessionId;
    if (sessionId && this.remote?.feed.isRemoteApproval(intent.requestId)) {
      const services = await this.d.services();
      const result = await services.crossWindow.control.answer(sessionId, intent.requestId, intent.decision);
      if (result.kind === 'won') {
        this.presenter?.approvalResolved(intent.requestId);
        return;
      }
    }
    void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: that approval request was already answered or cancelled.'));
  }

  /** The turn another window runs in the open session, if any (status bar, tree). */
  get remoteTurn(): { turnId: string; startedAt: number; phase: string; waitingOn: string } | undefined {
    return this.remote?.feed.current;
  }

  /**
   * Stop for a turn another window runs: that window is asked through the store; if it does not
   * acknowledge within the bound (frozen, or its host hangs), this window takes the turn over.
   */
  private async abortElsewhere(services: VigilServices, sessionId: string): Promise<void> {
    if (!(await services.crossWindow.control.remoteHolder(sessionId))) return;
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Vigil: asking the window that runs this turn to stop…') },
      () => services.crossWindow.control.abort(sessionId, summaries.stoppedFromAnotherWindow),
    );
    this.d.logger.info(`remote abort of session ${sessionId}: ${JSON.stringify(result)}`);
    if (result.kind === 'takenOver') {
      void vscode.window.showWarningMessage(
        result.killedAgent
          ? vscode.l10n.t('Vigil: the window running this turn did not answer, so this window stopped the turn and its agent. Resume to continue.')
          : vscode.l10n.t('Vigil: the window running this turn did not answer, so this window stopped the turn. Resume to continue.'),
      );
    }
    await services.crossWindow.kick();
  }

  private followRemote(services: VigilServices, presenter: SessionPresenter, offset: number, tail: readonly TranscriptRecord[]): void {
    this.remote?.stop();
    const feed = new RemoteTurnFeed(
      presenter,
      () => void this.open(presenter.sessionId).catch((error: unknown) => this.d.logger.warn(`reopening ${presenter.sessionId} failed: ${errorMessage(error)}`)),
      (record) => this.own.delete(recordKey(record)),
    );
    const stop = services.crossWindow.follow(presenter.sessionId, offset, tail, (update) => {
      if (this.presenter !== presenter) return;
      const phase = presenter.phase;
      const where = presenter.snapshot.turn.where;
      feed.apply(update);
      if (presenter.phase !== phase || presenter.snapshot.turn.where !== where) this.d.changed();
    });
    this.remote = { stop, feed };
  }

  onShowTaskOutput(intent: { taskId: string }): Promise<void> {
    return this.d.showTaskOutput(intent.taskId);
  }

  onOpenFile(intent: { path: string; line?: number }): Promise<void> {
    return this.d.openFile(intent.path, intent.line);
  }

  async onOpenDiff(intent: { editId: string }): Promise<void> {
    await this.d.openDiff?.(intent.editId);
  }

  onKillTask(intent: { taskId: string }): Promise<void> {
    return this.d.killTask(intent.taskId);
  }

  async onNoticeAction(intent: { sessionId?: string; action: NoticeAction }): Promise<void> {
    await this.d.onNoticeAction?.(intent.action, intent.sessionId ?? this.presenter?.sessionId);
  }

  async onOpenSession(intent: { sessionId?: string }): Promise<void> {
    if (intent.sessionId) await this.open(intent.sessionId);
    else await vscode.commands.executeCommand('vigil.openSession');
  }

  /** Whether the open session has a live turn (Abort applies). */
  get turnLive(): boolean {
    return this.presenter ? isTurnLive(this.presenter.phase) : false;
  }

  private async start(services: VigilServices, sessionId: string, text: string, source: 'user' | 'resume', attachments?: PromptAttachment[]): Promise<void> {
    const abort = new AbortController();
    this.waiting.set(sessionId, abort);
    try {
      await this.agentChoice(sessionId, abort.signal);
      const result = await services.supervisor.startTurn(sessionId, text, { source, signal: abort.signal, ...(attachments?.length ? { attachments } : {}) });
      if (result.kind === 'started') void result.ended.then((ended) => this.failed(ended, source === 'user' ? text : undefined));
      if (result.kind === 'failed') throw new Error(result.reason);
      if (result.kind === 'busy') throw new Error('This session already has a turn running. Stop it first, or wait for it to finish.');
      if (result.kind === 'paused') throw new Error('Wakeups of this session are paused after a provider failure; fix the key or model, then Resume.');
    } finally {
      if (this.waiting.get(sessionId) === abort) this.waiting.delete(sessionId);
      this.d.changed();
    }
  }

  /** Holds the message while Vigil cannot know which agent the person chose, and says so in the view. */
  private async agentChoice(sessionId: string, signal: AbortSignal): Promise<void> {
    const presenter = () => (this.presenter?.sessionId === sessionId ? this.presenter : undefined);
    const waiting = () => presenter()?.note({ id: settingsNoticeId, kind: 'info', text: waitingForSettings.text, detail: waitingForSettings.detail, resumable: false, at: Date.now() });
    try {
      await this.d.agentChoiceSettled?.({ signal, waiting });
    } finally {
      // Sent, stopped or given back with the reason beside the draft: the notice no longer holds.
      presenter()?.withdraw(settingsNoticeId);
    }
  }

  private async nameIfUntitled(services: VigilServices, sessionId: string, text: string): Promise<void> {
    const title = sessionId === this.presenter?.sessionId ? this.presenter.snapshot.session?.title : (await services.supervisor.sessions.get(sessionId))?.title;
    if (title !== untitled) return;
    const renamed = await services.supervisor.sessions.rename(sessionId, titleFrom(text), 'auto');
    this.models.meta(renamed, this.d.metaExtra(sessionId));
  }

  /** A failed turn with remedies is reported beyond the view (a notification with the same buttons). */
  private failed(ended: TurnEnded, text: string | undefined): void {
    if (ended.reason !== 'failed' || !ended.remedies?.length) return;
    try {
      this.d.onTurnFailed?.(ended, text);
    } catch (error) {
      this.d.logger.error(`reporting the failed turn ${ended.turnId}: ${errorMessage(error)}`);
    }
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

  /** A header control of the agent's options: the pickers live with the commands (agentOptionPicks.ts). */
  async onAgentOption(intent: { sessionId?: string; configId?: string }): Promise<void> {
    await vscode.commands.executeCommand('vigil.agentOptions', { sessionId: intent.sessionId ?? this.presenter?.sessionId, configId: intent.configId });
  }

  /** A turn's "Restore to before this turn": the preview and questions live with the command (checkpointCommands.ts). */
  async onRestoreCheckpoint(intent: { sessionId?: string; turnId: string; path?: string }): Promise<void> {
    await vscode.commands.executeCommand('vigil.restoreCheckpoint', { ...intent, sessionId: intent.sessionId ?? this.presenter?.sessionId });
  }

  /** A turn's changes in the diff editor: the work lives with the command (turnChangesReview.ts). */
  async onOpenTurnChanges(intent: { sessionId?: string; turnId: string; path?: string }): Promise<void> {
    await vscode.commands.executeCommand('vigil.reviewTurnChanges', { ...intent, sessionId: intent.sessionId ?? this.presenter?.sessionId });
  }

  private onSupervisorEvent(event: SupervisorEvent): void {
    // Turns this window's person started are reported from `start` (which knows their text); wakeups here.
    if (event.type === 'turnEnded' && event.ended.source === 'wakeup') this.failed(event.ended, undefined);
    const phaseBefore = this.presenter?.phase;
    this.models.supervisorEvent(event);
    // Activity arrives several times a second while a turn streams: unless it ends a quiet spell
    // (a phase change), it moves counters only, and nothing needs the sessions listed again.
    this.d.changed(event.type === 'activity' && this.presenter?.phase === phaseBefore);
  }
}

/** Same record, same key, whichever side built it (the store's parse orders the top-level keys its own way). */
function recordKey(record: TranscriptRecord): string {
  return JSON.stringify(Object.fromEntries(Object.entries(record).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))));
}

/** The buffered records that the tail read did not already include (it may have caught some). */
function unseen(tail: readonly TranscriptRecord[], buffered: readonly TranscriptRecord[]): TranscriptRecord[] {
  const key = (r: TranscriptRecord) => JSON.stringify(r);
  for (let overlap = Math.min(tail.length, buffered.length); overlap > 0; overlap -= 1) {
    let same = true;
    for (let i = 0; i < overlap && same; i += 1) same = key(tail[tail.length - overlap + i]) === key(buffered[i]);
    if (same) return buffered.slice(overlap);
  }
  return [...buffered];
}

export function titleFrom(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || untitled;
}
