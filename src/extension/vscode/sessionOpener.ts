// Which session the view shows, kept current: opens a session from its durable tail (records appended
// while the tail is read are merged in), shows the kept model of a session whose turn runs here, follows
// the turns other windows run through the store, and remembers the session for the next reload. Editor
// tabs get their session's model the same way (`hold`), each followed while a tab or the view shows it.

import * as vscode from 'vscode';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';
import type { SessionMeta } from '../core/store/sessionStore';
import type { TranscriptRecord } from '../core/store/transcriptRecords';
import type { SessionSnapshot } from '../../shared/sessionView';
import type { ApprovalBroker } from '../presentation/approvalBroker';
import type { ElicitationBroker } from '../presentation/elicitationBroker';
import type { PresenterSeed, SessionPresenter } from '../presentation/sessionPresenter';
import type { ModelWatcher, SessionModels } from '../presentation/sessionModels';
import { RemoteTurnFeed } from '../presentation/remoteTurnFeed';
import type { VigilServices } from '../services';

export interface SessionOpenerDeps {
  services(): Promise<VigilServices>;
  broker: ApprovalBroker;
  /** Agents' forms and links to answer in the view (items 7). */
  elicitations: ElicitationBroker;
  logger: Logger;
  memento: vscode.Memento;
  postSnapshot(snapshot: SessionSnapshot): void;
  /**
   * Something the status bar, context keys or the session tree show has changed. `statusOnly`:
   * only the live counters moved (activity), nothing that needs the sessions listed again.
   */
  changed(statusOnly?: boolean): void;
  /** Extra facts about the session for its header (agent, model). */
  metaExtra(sessionId: string): { agent?: string; model?: string; cwd?: string; wakeups?: string; restricted?: { text: string; detail: string }; builtin?: boolean };
  /** This window's key for the durable "last open session" record (its first folder, '' without one). */
  windowKey(): string;
}

const lastSessionKey = 'vigil.lastSessionId';
const folderNoticeId = 'folder';
const tailRecords = 10_000;

export class SessionOpener {
  /** Records that became durable while a session was being opened (its tail read in flight), per open. */
  private readonly opening = new Map<string, Set<TranscriptRecord[]>>();
  /** Bumped by every open: an open overtaken by a later one (the restore by the person's pick) drops its result. */
  private openSeq = 0;
  /** The sessions on screen (the view's, the tabs'), each followed through the store for turns that other windows run. */
  private readonly remotes = new Map<string, { stop(): void; feed: RemoteTurnFeed }>();
  /** Records of the sessions on screen this window appended (they reach the view directly, not through the follower). */
  private readonly own = new Set<string>();

  constructor(
    private readonly d: SessionOpenerDeps,
    private readonly models: SessionModels,
  ) {}

  /** The model of the session the view shows. */
  private get presenter(): SessionPresenter | undefined {
    return this.models.shown;
  }

  /** Records the store made durable: buffered while their session opens, else fed to its model. */
  appended(sessionId: string, records: readonly TranscriptRecord[]): void {
    const opening = this.opening.get(sessionId);
    if (opening) for (const buffered of opening) buffered.push(...records);
    else this.models.records(sessionId, records);
    if (this.remotes.has(sessionId) || opening) {
      if (this.own.size > 10_000) this.own.clear();
      for (const record of records) this.own.add(recordKey(record));
    }
  }

  /** The follower of another window's turn in the open session, if one runs. */
  get remoteFeed(): RemoteTurnFeed | undefined {
    const id = this.presenter?.sessionId;
    return id === undefined ? undefined : this.remotes.get(id)?.feed;
  }

  /** The follower of a session on screen (the view's or a tab's). */
  remoteFeedOf(sessionId: string): RemoteTurnFeed | undefined {
    return this.remotes.get(sessionId)?.feed;
  }

  stopFollowing(): void {
    for (const remote of this.remotes.values()) remote.stop();
    this.remotes.clear();
  }

  /** Stops following the sessions no surface shows any more (the view moved on, a tab closed). */
  dropUnshown(): void {
    for (const [sessionId, remote] of [...this.remotes]) {
      if (sessionId === this.presenter?.sessionId || this.models.watched(sessionId)) continue;
      remote.stop();
      this.remotes.delete(sessionId);
    }
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

  /**
   * Makes `sessionId` the session the view shows, from its durable transcript. `onlyIf`: the open
   * count the caller saw; the open is dropped if another started since (the restore uses 0).
   */
  async open(sessionId: string, options: { onlyIf?: number } = {}): Promise<void> {
    const seq = ++this.openSeq;
    if (options.onlyIf !== undefined && options.onlyIf !== seq - 1) return;
    const services = await this.d.services();
    const meta = await services.supervisor.sessions.get(sessionId);
    if (!meta) throw new Error(`Session ${sessionId} does not exist any more.`);
    const problem = await this.folderProblem(services, meta);
    if (seq !== this.openSeq) return;
    // Its turn runs here: the model kept for it is current, so it is shown as it stands.
    if (this.models.kept(sessionId)) return this.showKept(services, meta, problem);
    const read = await this.readSession(services, meta);
    // A later open (the person's click while this one read the transcript) wins.
    if (seq !== this.openSeq) return;
    const presenter = this.models.show(this.seed(services, meta, read.records));
    this.followRemote(services, presenter, read.followFrom, read.records);
    this.d.postSnapshot(presenter.snapshot);
    this.dropUnshown();
    await this.shown(services, presenter, problem);
  }

  /**
   * The session's model for an editor tab, watched by `watcher` from now on: the one kept for it (shown in the
   * view, another tab's, or its turn running here), else read from the store as `open` does, without changing
   * what the view shows. Returns the end of the watch.
   */
  async hold(sessionId: string, watcher: ModelWatcher): Promise<() => void> {
    const services = await this.d.services();
    const meta = await services.supervisor.sessions.get(sessionId);
    if (!meta) throw new Error(`Session ${sessionId} does not exist any more.`);
    // Watched in the same step as it is found or built: nothing can prune it in between.
    const watch = (model: SessionPresenter) => {
      const unwatch = this.models.watch(sessionId, watcher);
      watcher.snapshot(model.snapshot);
      return unwatch;
    };
    const kept = this.models.get(sessionId);
    if (kept) {
      const unwatch = watch(kept);
      if (!this.remotes.has(sessionId)) {
        const followFrom = await services.crossWindow.transcriptSize(sessionId);
        if (this.models.get(sessionId) === kept && !this.remotes.has(sessionId)) this.followRemote(services, kept, followFrom, []);
      }
      return unwatch;
    }
    const problem = await this.folderProblem(services, meta);
    const read = await this.readSession(services, meta);
    // Built by another open meanwhile (the view's, or a second click): that one is current.
    const meanwhile = this.models.get(sessionId);
    if (meanwhile) return watch(meanwhile);
    const presenter = this.models.hold(this.seed(services, meta, read.records));
    const unwatch = watch(presenter);
    this.followRemote(services, presenter, read.followFrom, read.records);
    if (problem) presenter.note({ id: folderNoticeId, kind: 'info', text: problem, resumable: false, at: Date.now() });
    return unwatch;
  }

  /** The session's durable tail with what became durable while it was read, and where a follower reads on from. */
  private async readSession(services: VigilServices, meta: SessionMeta): Promise<{ records: TranscriptRecord[]; followFrom: number }> {
    const sessionId = meta.id;
    const buffered: TranscriptRecord[] = [];
    let opening = this.opening.get(sessionId);
    if (!opening) this.opening.set(sessionId, (opening = new Set()));
    opening.add(buffered);
    // Taken before the tail read: the follower reads on from here and drops what the tail already had.
    const followFrom = await services.crossWindow.transcriptSize(sessionId);
    let tail: Awaited<ReturnType<VigilServices['supervisor']['sessions']['readTail']>>;
    try {
      tail = await services.supervisor.sessions.readTail(sessionId, tailRecords);
    } finally {
      opening.delete(buffered);
      if (opening.size === 0 && this.opening.get(sessionId) === opening) this.opening.delete(sessionId);
    }
    if (tail.corrupt.length > 0) {
      void vscode.window.showWarningMessage(
        tail.corrupt.length === 1
          ? vscode.l10n.t('Vigil: 1 damaged line in the transcript of "{0}" was set aside (kept next to it as .quarantine); the rest of the session is intact.', meta.title)
          : vscode.l10n.t('Vigil: {0} damaged lines in the transcript of "{1}" were set aside (kept next to it as .quarantine); the rest of the session is intact.', tail.corrupt.length, meta.title),
      );
    }
    return { records: [...tail.records, ...unseen(tail.records, buffered)], followFrom };
  }

  private seed(services: VigilServices, meta: SessionMeta, records: TranscriptRecord[]): PresenterSeed {
    const sessionId = meta.id;
    return {
      meta,
      metaExtra: this.d.metaExtra(sessionId),
      records,
      live: services.supervisor.getSnapshot(sessionId),
      tasks: services.registry.list({ sessionId }),
      approvals: this.d.broker.openFor(sessionId),
      agent: services.agents.agentStateOf(sessionId),
      elicitations: this.d.elicitations.openFor(sessionId),
    };
  }

  /** Shows the kept model of a session whose turn runs in this window, with its header read again. */
  private async showKept(services: VigilServices, meta: SessionMeta, problem: string | undefined): Promise<void> {
    this.models.meta(meta, this.d.metaExtra(meta.id));
    const presenter = this.models.reshow(meta.id)!;
    this.d.postSnapshot(presenter.snapshot);
    this.dropUnshown();
    // A tab's session is followed already; else from here on its records reach it directly (`own`), and the
    // follower starts at the end of what is stored.
    if (!this.remotes.has(meta.id)) {
      const followFrom = await services.crossWindow.transcriptSize(meta.id);
      if (this.presenter !== presenter) return;
      this.followRemote(services, presenter, followFrom, []);
    }
    await this.shown(services, presenter, problem);
  }

  private async shown(services: VigilServices, presenter: SessionPresenter, problem: string | undefined): Promise<void> {
    if (problem) presenter.note({ id: folderNoticeId, kind: 'info', text: problem, resumable: false, at: Date.now() });
    this.d.changed();
    await this.d.memento.update(lastSessionKey, presenter.sessionId);
    await services.lastOpen.set(this.d.windowKey(), presenter.sessionId);
  }

  /** Why this window must not run the session (another folder's, or a folder record that is damaged or gone). */
  async folderProblem(services: VigilServices, meta: SessionMeta): Promise<string | undefined> {
    try {
      return await services.folders.problemFor(meta);
    } catch (error) {
      return `Vigil could not check this session's folder: ${errorMessage(error)}`;
    }
  }

  private followRemote(services: VigilServices, presenter: SessionPresenter, offset: number, tail: readonly TranscriptRecord[]): void {
    const sessionId = presenter.sessionId;
    this.remotes.get(sessionId)?.stop();
    const feed = new RemoteTurnFeed(
      presenter,
      () => void this.reread(sessionId).catch((error: unknown) => this.d.logger.warn(`reopening ${sessionId} failed: ${errorMessage(error)}`)),
      (record) => this.own.delete(recordKey(record)),
    );
    const stop = services.crossWindow.follow(sessionId, offset, tail, (update) => {
      if (this.models.get(sessionId) !== presenter) return;
      const phase = presenter.phase;
      const where = presenter.snapshot.turn.where;
      feed.apply(update);
      if (presenter.phase !== phase || presenter.snapshot.turn.where !== where) this.d.changed();
      if (update.records.some(mayRename)) void this.followMeta(services, presenter);
    });
    this.remotes.set(sessionId, { stop, feed });
  }

  /** The window running the turn may have renamed the session (the agent's title): the header follows the store. */
  private async followMeta(services: VigilServices, presenter: SessionPresenter): Promise<void> {
    const meta = await services.supervisor.sessions.get(presenter.sessionId).catch(() => undefined);
    if (!meta || this.models.get(meta.id) !== presenter || meta.title === presenter.snapshot.session?.title) return;
    this.models.meta(meta, this.d.metaExtra(meta.id));
    this.d.changed();
  }

  /** The transcript was rewritten underneath: the view opens the session again, a tab's model is read again. */
  private async reread(sessionId: string): Promise<void> {
    if (sessionId === this.presenter?.sessionId) return this.open(sessionId);
    if (!this.models.watched(sessionId)) return;
    const services = await this.d.services();
    const meta = await services.supervisor.sessions.get(sessionId);
    if (!meta) return;
    const read = await this.readSession(services, meta);
    if (!this.models.watched(sessionId) || sessionId === this.presenter?.sessionId) return;
    const presenter = this.models.hold(this.seed(services, meta, read.records));
    this.followRemote(services, presenter, read.followFrom, read.records);
  }
}

/** Records that come with a new title in the store (the first prompt's, the agent's, at the latest the turn's end): the header reads it again only then. */
function mayRename(record: TranscriptRecord): boolean {
  return record.type === 'userPrompt' || record.type === 'turnEnded' || (record.type === 'agentUpdate' && (record.update as { sessionUpdate?: unknown }).sessionUpdate === 'session_info_update');
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
