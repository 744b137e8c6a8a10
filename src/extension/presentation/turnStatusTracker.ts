// Follows one session's supervisor events and says what the view's turn status and pinned
// notices are (the phases of shared/sessionView.ts, in the words of shared/turnWords.ts).

import { describeWaitingOn } from '../core/ports/agentHandle';
import type { SupervisorEvent, TurnSnapshot } from '../core/supervisor/supervisorEvents';
import type { SessionMeta } from '../core/store/sessionStore';
import type { HostEvent, NoticeView, TurnStatusView } from '../../shared/sessionView';
import { endedNoticeId, isTurnLive } from '../../shared/sessionViewReducer';
import { noProgressFor, STOPPED_MEANS, summaries } from '../../shared/turnWords';

export class TurnStatusTracker {
  private current: TurnStatusView = { phase: 'idle', silenceSeconds: 0 };
  private seq = 0;
  /** The turn whose committed abort already pinned a resumable notice. */
  private abortNoticeTurn: string | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  get status(): TurnStatusView {
    return this.current;
  }

  /**
   * The status when a session is opened: a live turn, or the session's resumable state. A tracker that has
   * followed this very turn from its start keeps what it knows (quiet, waiting for approval), which the
   * supervisor's snapshot cannot say.
   */
  initial(meta: SessionMeta, live: TurnSnapshot | undefined): { turn: TurnStatusView; notice?: NoticeView } {
    if (live && this.current.turnId === live.turnId && isTurnLive(this.current.phase)) return { turn: this.current };
    if (live) {
      const at = this.now();
      this.current = {
        phase: live.phase === 'running' ? 'running' : 'stalled',
        turnId: live.turnId,
        startedAt: live.startedAt,
        lastActivityAt: at - live.silenceMs,
        silenceSeconds: Math.floor(live.silenceMs / 1000),
        waitingOn: describeWaitingOn(live.waitingOn),
      };
      return { turn: this.current };
    }
    if (meta.state === 'aborted' || meta.state === 'interrupted') {
      this.current = { phase: meta.state, silenceSeconds: 0 };
      return { turn: this.current, notice: this.notice(meta.state === 'aborted' ? 'abort' : 'interrupted', meta.stateReason ?? summaries.stopped, true, STOPPED_MEANS) };
    }
    this.current = { phase: 'idle', silenceSeconds: 0 };
    return { turn: this.current };
  }

  /** Translates one supervisor event of this session; undefined when the view need not change. */
  apply(event: SupervisorEvent): HostEvent | undefined {
    const at = this.now();
    switch (event.type) {
      case 'turnStarted':
        return this.set({ phase: 'running', turnId: event.turnId, startedAt: event.startedAt, lastActivityAt: at, silenceSeconds: 0, waitingOn: 'agent' });
      case 'activity': {
        // Activity ends a quiet spell; after a committed abort nothing reopens the turn.
        const phase = this.current.phase === 'quiet' || this.current.phase === 'stalled' ? 'running' : this.current.phase;
        if (phase === 'aborted' || phase === 'idle' || phase === 'interrupted') return undefined;
        return this.set({ ...this.current, phase, lastActivityAt: at, silenceSeconds: 0, waitingOn: describeWaitingOn(event.waitingOn) });
      }
      case 'quiet': {
        const seconds = Math.floor(event.silentMs / 1000);
        const waitingOn = describeWaitingOn(event.waitingOn);
        const detail = `${noProgressFor(seconds, waitingOn)} Vigil stops the turn after ${Math.round(event.boundMs / 1000)} s without progress; Stop (Escape) stops it now.`;
        return this.set({ ...this.current, phase: 'quiet', silenceSeconds: seconds, waitingOn }, this.notice('quiet', summaries.quiet(seconds), false, detail));
      }
      case 'stallObserved':
        return this.set(
          { ...this.current, phase: 'stalled', silenceSeconds: event.seconds, waitingOn: describeWaitingOn(event.waitingOn) },
          this.notice('stall', event.message, false, event.detail),
        );
      case 'abortCommitted':
        this.abortNoticeTurn = event.turnId;
        return this.set({ ...this.current, phase: 'aborted' }, this.notice('abort', event.message, true, event.detail));
      case 'escalated':
        return this.set(this.current, this.notice('error', event.message, false, event.detail));
      case 'leaseLost':
        // The stop it causes says so (abortCommitted, cause leaseLost); a notice of its own would say it twice.
        return undefined;
      case 'approvalWaiting':
        if (this.current.phase === 'aborted') return undefined;
        return this.set({ ...this.current, phase: event.open ? 'awaitingApproval' : 'running', waitingOn: event.open ? 'your approval' : this.current.waitingOn, lastActivityAt: at });
      case 'busyWaiting':
        return this.set(this.current, this.notice('info', event.message, false));
      case 'notice':
        return this.set(this.current, this.notice(event.level === 'error' ? 'error' : 'info', event.message, false));
      case 'turnEnded': {
        const { reason, message } = event.ended;
        if (reason === 'aborted') {
          // The abort notice already stands (abortCommitted); keep the session resumable.
          return this.set({ phase: 'aborted', silenceSeconds: 0 });
        }
        if (reason === 'interrupted') {
          // A watchdog abort ends as interrupted: its abort notice (with Resume) already says why; a second one would repeat it.
          if (this.abortNoticeTurn === event.ended.turnId) return this.set({ phase: 'interrupted', silenceSeconds: 0 });
          // The turn's id, as the transcript's `interrupted` record has it: one entry for the one end, not two.
          return this.set({ phase: 'interrupted', silenceSeconds: 0 }, { ...this.notice('interrupted', message ?? summaries.stopped, true, STOPPED_MEANS), id: endedNoticeId(event.ended.turnId) });
        }
        // Its id is the turn's: the transcript's record of the same end (endedNoticeId) is then one entry, not two.
        return this.set({ phase: 'idle', silenceSeconds: 0 }, reason === 'failed' && message ? { ...this.notice('error', message, false, undefined, event.ended.remedies), id: endedNoticeId(event.ended.turnId) } : undefined);
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  }

  private set(turn: TurnStatusView, notice?: NoticeView): HostEvent {
    this.current = turn;
    return { type: 'turnStatusChanged', turn, ...(notice ? { notice } : {}) };
  }

  private notice(kind: NoticeView['kind'], text: string, resumable: boolean, detail?: string, actions?: NoticeView['actions']): NoticeView {
    this.seq += 1;
    const at = this.now();
    return { id: `${kind}-${at}-${this.seq}`, kind, text, ...(detail ? { detail } : {}), resumable, at, ...(actions?.length ? { actions } : {}) };
  }
}
