// One window's part in the many-windows protocol: watches the shared mailbox, runs the holder side for
// its own turns, steers others' turns, publishes where it shows what, and tracks approvals (and agents' forms) nobody sees.

import { Disposable, toDisposable } from '../common/disposable';
import { errorMessage } from '../common/errors';
import { EventHub, type Unsubscribe } from '../common/events';
import type { PermissionPrompter } from '../acp/hostPorts';
import type { ElicitationPrompter } from '../acp/elicitationHost';
import type { Clock, TimerHandle } from '../ports/clock';
import type { Logger } from '../ports/logger';
import { sessionDir, transcriptFile } from '../store/storePaths';
import type { TranscriptRecord } from '../store/transcriptRecords';
import type { TurnSupervisor } from '../supervisor/turnSupervisor';
import { DirWatch } from './dirWatch';
import { HolderSide } from './holderSide';
import { Mailbox, type ApprovalRequest, type TurnBoard } from './mailbox';
import { Presence } from './presence';
import { RemoteApprovals } from './remoteApprovals';
import { RemoteElicitations } from './remoteElicitations';
import type { ElicitationRequest } from './elicitationMail';
import { clip } from '../../../shared/elicitationForm';
import { RemoteControl } from './remoteControl';
import { SessionFollower, type FollowUpdate } from './sessionFollower';
import { fileSize } from './transcriptFollower';

export interface CrossWindowOptions {
  storageRoot: string;
  windowId: string;
  clock: Clock;
  logger: Logger;
  supervisor: TurnSupervisor;
  agentPid(sessionId: string): number | undefined;
  approvalTimeoutMs(): number;
  /** The session this window's view shows a person right now (visible and alive), if any. */
  showing(): string | undefined;
  /** Fallback poll of the mailbox (ms); default 2 s. */
  pollMs?: number;
  ackBoundMs?: number;
  presenceIntervalMs?: number;
  killTree?(pid: number): Promise<void>;
  /** When a process started (processStartTime; injected for tests). */
  processStart?(pid: number): string | undefined;
}

/** An approval waiting somewhere, and whether any window shows its session to a person. */
export interface WaitingApproval {
  request: ApprovalRequest;
  shown: boolean;
}

export class CrossWindow extends Disposable {
  readonly mailbox: Mailbox;
  readonly control: RemoteControl;
  readonly holder: HolderSide;
  readonly presence: Presence;
  private readonly checks = new Set<() => Promise<void>>();
  private watch: DirWatch | undefined;
  private readonly waitingChanged = new EventHub<WaitingApproval[]>();
  private waitingNow: WaitingApproval[] = [];
  private elsewhereNow = new Map<string, TurnBoard>();
  private presenceTimer: TimerHandle | undefined;

  constructor(private readonly o: CrossWindowOptions) {
    super();
    this.mailbox = new Mailbox(o.storageRoot);
    const onMailboxChange = (check: () => Promise<void>) => this.onMailboxChange(check);
    this.control = new RemoteControl({
      mailbox: this.mailbox, lease: o.supervisor.lease, sessions: o.supervisor.sessions, windowId: o.windowId,
      clock: o.clock, logger: o.logger, ackBoundMs: o.ackBoundMs, onMailboxChange, killTree: o.killTree, processStart: o.processStart,
    });
    this.holder = new HolderSide({
      mailbox: this.mailbox, windowId: o.windowId, clock: o.clock, logger: o.logger,
      snapshot: (id) => o.supervisor.getSnapshot(id),
      abort: (id, reason) => o.supervisor.abort(id, reason),
      agentPid: o.agentPid,
      processStart: o.processStart,
    });
    this.presence = new Presence(this.mailbox.dir, o.windowId, o.clock, o.presenceIntervalMs);
    this._register(toDisposable(o.supervisor.subscribe((event) => this.holder.onEvent(event))));
    this.checks.add(() => this.holder.check());
    this.checks.add(() => this.scanWaiting());
    this.checks.add(() => this.scanElsewhere());
    this._register(toDisposable(() => this.watch?.dispose()));
    this._register(toDisposable(() => this.presenceTimer?.cancel()));
    this._register(toDisposable(() => void this.presence.remove()));
    this.tickPresence();
  }

  /** Creates the mailbox folder, then watches it (once). */
  async start(): Promise<void> {
    await this.mailbox.ensure();
    if (this.watch || this.isDisposed) return;
    this.watch = new DirWatch({
      dirs: [this.mailbox.dir],
      clock: this.o.clock,
      pollMs: this.o.pollMs ?? 2_000,
      onChange: () => this.runChecks(),
      onError: (error) => this.o.logger.warn(`[crosswindow] mailbox check failed: ${errorMessage(error)}`),
    });
    await this.watch.kick();
  }

  /** Wraps this window's prompter: its questions are published, and answerable from every window. */
  prompter(local: PermissionPrompter): PermissionPrompter {
    const { o } = this;
    return new RemoteApprovals({
      mailbox: this.mailbox, windowId: o.windowId, clock: o.clock, logger: o.logger, local,
      turnOf: (id) => o.supervisor.getSnapshot(id)?.turnId,
      timeoutMs: o.approvalTimeoutMs,
      onTimedOut: (id, message) => o.supervisor.recordNotice(id, 'warning', message),
      onMailboxChange: (check) => this.onMailboxChange(check),
    });
  }

  /** Wraps this window's form for agents' elicitations: published, answerable from every window, declined after the timeout. */
  elicitationPrompter(local: ElicitationPrompter): ElicitationPrompter {
    const { o } = this;
    return new RemoteElicitations({
      mailbox: this.mailbox, windowId: o.windowId, clock: o.clock, logger: o.logger, local,
      turnOf: (id) => o.supervisor.getSnapshot(id)?.turnId,
      timeoutMs: o.approvalTimeoutMs,
      onTimedOut: (id, message) => o.supervisor.recordNotice(id, 'warning', message),
      onMailboxChange: (check) => this.onMailboxChange(check),
    });
  }

  /** Runs `check` on every mailbox change (and poll) until the returned function is called. */
  onMailboxChange(check: () => Promise<void>): () => void {
    this.checks.add(check);
    return () => this.checks.delete(check);
  }

  /** Runs every check now (tests, and after this window wrote to the mailbox itself). */
  kick(): Promise<void> {
    return this.watch ? this.watch.kick() : this.runChecks();
  }

  /** Approvals waiting in any window, and whether a person can see each (for every window's status bar). */
  get waiting(): readonly WaitingApproval[] {
    return this.waitingNow;
  }

  /** Fires when the approvals waiting anywhere, or the turns other windows run, change. */
  onWaitingChanged(listener: (waiting: WaitingApproval[]) => void): Unsubscribe {
    return this.waitingChanged.subscribe(listener);
  }

  /** The turn another window runs in `sessionId` (by its board, confirmed by the live lease), as last scanned. */
  elsewhere(sessionId: string): TurnBoard | undefined {
    return this.elsewhereNow.get(sessionId);
  }

  /**
   * Follows a session this window shows: `onUpdate` gets new transcript records, the remote turn and
   * its approvals on every change of the session's folder or of the mailbox, and at least every `pollMs`.
   */
  follow(sessionId: string, offset: number, tail: readonly TranscriptRecord[], onUpdate: (update: FollowUpdate) => void, pollMs = 1_000): () => void {
    const { o } = this;
    const follower = new SessionFollower(sessionId, transcriptFile(o.storageRoot, sessionId), offset, tail, {
      mailbox: this.mailbox,
      control: this.control,
      isLocalTurn: () => o.supervisor.getSnapshot(sessionId) !== undefined,
      now: () => o.clock.wallNow(),
    });
    let stopped = false;
    const check = async () => {
      if (stopped) return;
      const update = await follower.read();
      if (!stopped) onUpdate(update);
    };
    const watch = new DirWatch({
      dirs: [sessionDir(o.storageRoot, sessionId)],
      clock: o.clock,
      pollMs,
      onChange: check,
      onError: (error) => o.logger.warn(`[crosswindow] following session ${sessionId} failed: ${errorMessage(error)}`),
    });
    const unhook = this.onMailboxChange(() => watch.kick());
    void watch.kick();
    return () => {
      stopped = true;
      unhook();
      watch.dispose();
    };
  }

  transcriptSize(sessionId: string): Promise<number> {
    return fileSize(transcriptFile(this.o.storageRoot, sessionId));
  }

  private async runChecks(): Promise<void> {
    for (const check of [...this.checks]) {
      try {
        await check();
      } catch (error) {
        this.o.logger.warn(`[crosswindow] ${errorMessage(error)}`);
      }
    }
  }

  private async scanWaiting(): Promise<void> {
    // An agent's form or link waits on the person as an approval does: the status bar counts it too.
    const requests = [...(await this.mailbox.listApprovals()), ...(await this.mailbox.listElicitations()).map(asApproval)];
    const next: WaitingApproval[] = [];
    for (const request of requests) next.push({ request, shown: await this.presence.isShown(request.sessionId) });
    const key = (w: WaitingApproval[]) => w.map((x) => `${x.request.requestId}:${x.shown}`).join(',');
    if (key(next) === key(this.waitingNow)) return;
    this.waitingNow = next;
    this.waitingChanged.emit(next, (error) => this.o.logger.error(`[crosswindow] listener failed: ${errorMessage(error)}`));
  }

  private async scanElsewhere(): Promise<void> {
    const next = new Map<string, TurnBoard>();
    for (const board of await this.mailbox.listBoards()) {
      if (board.windowId === this.o.windowId) continue;
      const holder = await this.o.supervisor.lease.liveHolder(board.sessionId).catch(() => undefined);
      if (holder?.turnId === board.turnId) next.set(board.sessionId, board);
    }
    const key = (m: Map<string, TurnBoard>) => [...m.values()].map((b) => `${b.sessionId}:${b.turnId}:${b.phase}`).sort().join(',');
    const changed = key(next) !== key(this.elsewhereNow);
    this.elsewhereNow = next;
    if (changed) this.waitingChanged.emit(this.waitingNow, (error) => this.o.logger.error(`[crosswindow] listener failed: ${errorMessage(error)}`));
  }

  private tickPresence(): void {
    if (this.isDisposed) return;
    this.presence
      .publish(this.o.showing())
      .catch((error: unknown) => this.o.logger.warn(`[crosswindow] publishing presence failed: ${errorMessage(error)}`))
      .finally(() => void this.scanWaiting().catch(() => undefined));
    this.presenceTimer = this.o.clock.setTimer(this.presence.intervalMs, () => this.tickPresence());
  }
}

/** An elicitation as the waiting list names it (as the turn's own wait names it, elicitationHost.ts). */
function asApproval(e: ElicitationRequest): ApprovalRequest {
  const title = `${e.mode === 'url' ? `open ${e.host}` : 'answer a form'}: ${clip(e.message, 120)}`;
  return { version: 1, sessionId: e.sessionId, requestId: e.requestId, turnId: e.turnId, windowId: e.windowId, title, kind: 'other', at: e.at, deadlineAt: e.deadlineAt };
}
