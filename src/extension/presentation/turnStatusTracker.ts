// Follows one session's supervisor events and says what the view's turn status and pinned
// notices are: running, quiet, stalled, waiting for approval, aborted, interrupted, idle.

import { describeWaitingOn } from '../core/ports/agentHandle';
import type { SupervisorEvent, TurnSnapshot } from '../core/supervisor/supervisorEvents';
import type { SessionMeta } from '../core/store/sessionStore';
import type { HostEvent, NoticeView, TurnStatusView } from '../../shared/sessionView';

export class TurnStatusTracker {
  private current: TurnStatusView = { phase: 'idle', silenceSeconds: 0 };
  private seq = 0;
  /** The turn whose committed abort already pinned a resumable notice. */
  private abortNoticeTurn: string | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  get status(): TurnStatusView {
    return this.current;
  }

  /** The status when a session is opened: a live turn, or the session's resumable state. */
  initial(meta: SessionMeta, live: TurnSnapshot | undefined): { turn: TurnStatusView; notice?: NoticeView } {
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
      const fallback = meta.state === 'aborted' ? 'The last turn was aborted. Resume to continue.' : 'The last turn was interrupted when its window closed. Resume to continue.';
      return { turn: this.current, notice: this.notice(meta.state === 'aborted' ? 'abort' : 'interrupted', meta.stateReason ?? fallback, true) };
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
        return this.set({ ...this.current, phase: 'quiet', silenceSeconds: seconds, waitingOn }, this.notice('quiet', `Silent for ${seconds} s (waiting on: ${waitingOn}).`, false));
      }
      case 'stallObserved':
        return this.set(
          { ...this.current, phase: 'stalled', silenceSeconds: event.seconds, waitingOn: describeWaitingOn(event.waitingOn) },
          this.notice('stall', event.message, false),
        );
      case 'abortCommitted':
        this.abortNoticeTurn = event.turnId;
        return this.set({ ...this.current, phase: 'aborted' }, this.notice('abort', event.message, true));
      case 'escalated':
      case 'leaseLost':
        return this.set(this.current, this.notice('error', event.message, false));
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
          return this.set({ phase: 'interrupted', silenceSeconds: 0 }, this.notice('interrupted', message ?? 'The turn was interrupted. Resume to continue.', true));
        }
        return this.set({ phase: 'idle', silenceSeconds: 0 }, reason === 'failed' && message ? this.notice('error', message, false, event.ended.remedies) : undefined);
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

  private notice(kind: NoticeView['kind'], text: string, resumable: boolean, actions?: NoticeView['actions']): NoticeView {
    this.seq += 1;
    const at = this.now();
    return { id: `${kind}-${at}-${this.seq}`, kind, text, resumable, at, ...(actions?.length ? { actions } : {}) };
  }
}
