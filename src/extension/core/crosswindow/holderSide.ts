// What a window does for the turns it holds, so other windows can follow and steer them: keeps the
// turn board current, and acts on abort requests through the normal user-abort path, then acknowledges.

import * as os from 'node:os';
import { errorMessage } from '../common/errors';
import { processStartTime } from '../common/processTree';
import { describeWaitingOn } from '../ports/agentHandle';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { SupervisorEvent, TurnSnapshot } from '../supervisor/supervisorEvents';
import type { Mailbox, TurnBoard } from './mailbox';

export interface HolderSideDeps {
  mailbox: Mailbox;
  windowId: string;
  clock: Clock;
  logger: Logger;
  snapshot(sessionId: string): TurnSnapshot | undefined;
  abort(sessionId: string, reason: string): Promise<boolean>;
  agentPid(sessionId: string): number | undefined;
  /** When `pid` started, as processStartTime says (injected for tests). */
  processStart?(pid: number): string | undefined;
  /** Board writes for mere activity are spaced at least this far apart (ms). */
  boardThrottleMs?: number;
}

export class HolderSide {
  private readonly boards = new Map<string, TurnBoard>();
  private readonly lastWrite = new Map<string, number>();
  private readonly handled = new Set<string>();
  private readonly host = os.hostname();

  constructor(private readonly d: HolderSideDeps) {}

  /** Feed of this window's supervisor events. */
  onEvent(event: SupervisorEvent): void {
    const { d } = this;
    if (event.type === 'turnEnded') {
      const { sessionId, turnId } = event.ended;
      this.boards.delete(sessionId);
      void this.afterTurn(sessionId, turnId);
      return;
    }
    if (event.type === 'busyWaiting' || event.type === 'notice') return;
    const sessionId = event.sessionId;
    const now = d.clock.wallNow();
    let board = this.boards.get(sessionId);
    if (event.type === 'turnStarted') {
      board = {
        version: 1, sessionId, turnId: event.turnId, windowId: d.windowId, pid: process.pid, host: this.host,
        source: event.source, startedAt: event.startedAt, phase: 'running', waitingOn: 'agent', lastActivityAt: now, updatedAt: now,
      };
    }
    if (!board || ('turnId' in event && event.turnId !== board.turnId)) return;
    const before = board.phase;
    switch (event.type) {
      case 'activity':
        board.lastActivityAt = now;
        board.waitingOn = describeWaitingOn(event.waitingOn).slice(0, 500);
        if (board.phase === 'stalled') board.phase = 'running';
        break;
      case 'approvalWaiting':
        board.phase = event.open ? 'awaitingApproval' : 'running';
        board.waitingOn = event.open ? 'your approval' : board.waitingOn;
        board.lastActivityAt = now;
        break;
      case 'stallObserved':
        board.phase = 'stalled';
        break;
      case 'abortCommitted':
      case 'leaseLost':
        board.phase = 'aborting';
        break;
      default:
        break;
    }
    const agentPid = d.agentPid(sessionId) ?? board.agentPid;
    if (agentPid !== undefined && (agentPid !== board.agentPid || board.agentStart === undefined)) {
      // Read once per agent process: a window taking the turn over kills that process, never a later holder of its pid.
      const start = (d.processStart ?? processStartTime)(agentPid);
      if (start === undefined) delete board.agentStart;
      else board.agentStart = start;
    }
    board.agentPid = agentPid;
    board.updatedAt = now;
    this.boards.set(sessionId, board);
    // Phase changes at once; activity at most once per throttle interval (followers also read the transcript).
    const last = this.lastWrite.get(sessionId) ?? Number.NEGATIVE_INFINITY;
    if (event.type === 'activity' && before === board.phase && now - last < (d.boardThrottleMs ?? 1_000)) return;
    this.lastWrite.set(sessionId, now);
    const copy = { ...board };
    d.mailbox.writeBoard(copy).catch((error: unknown) => d.logger.warn(`[crosswindow] writing the turn board of ${sessionId} failed: ${errorMessage(error)}`));
  }

  /** Mailbox check: abort requests for turns this window runs are carried out, then acknowledged. */
  async check(): Promise<void> {
    const { d } = this;
    for (const { sessionId, turnId } of await d.mailbox.listAborts()) {
      const key = `${sessionId}/${turnId}`;
      if (this.handled.has(key) || d.snapshot(sessionId)?.turnId !== turnId) continue;
      const request = await d.mailbox.readAbort(sessionId, turnId);
      if (!request) continue;
      this.handled.add(key);
      d.logger.info(`[crosswindow] window ${request.by} asked to abort turn ${turnId} of session ${sessionId}`);
      let aborted = false;
      try {
        aborted = await d.abort(sessionId, request.reason);
      } catch (error) {
        d.logger.error(`[crosswindow] aborting turn ${turnId} on request failed: ${errorMessage(error)}`);
      }
      await d.mailbox
        .ackAbort(sessionId, turnId, { version: 1, by: d.windowId, at: d.clock.wallNow(), aborted })
        .catch((error: unknown) => d.logger.error(`[crosswindow] acknowledging the abort of ${turnId} failed: ${errorMessage(error)}`));
    }
  }

  private async afterTurn(sessionId: string, turnId: string): Promise<void> {
    const { d } = this;
    try {
      await d.mailbox.clearBoard(sessionId, turnId);
      await d.mailbox.sweepAnswers(sessionId);
      // The requester reads the ack before the turn can end only if it was fast: leave the pair to the requester's sweep.
      if (!(await d.mailbox.readAbort(sessionId, turnId))) this.handled.delete(`${sessionId}/${turnId}`);
    } catch (error) {
      d.logger.warn(`[crosswindow] cleaning up after turn ${turnId} failed: ${errorMessage(error)}`);
    }
  }
}
