// Which supervisor events deserve a VS Code notification: those a person would want to hear of while
// looking elsewhere (another window, another session), each at most once, each behind its own setting,
// in the same terms as the status bar and the view (shared/turnWords.ts).

import { describeWaitingOn } from '../core/ports/agentHandle';
import type { SupervisorEvent } from '../core/supervisor/supervisorEvents';
import type { AttentionSettings } from '../core/settings/settingsValidation';
import { STOPPING, stateWord, summaries } from '../../shared/turnWords';


export type AttentionKind = keyof AttentionSettings;

export interface AttentionContext {
  /** `vscode.window.state.focused`. */
  windowFocused: boolean;
  /** The session view is visible and shows this session. */
  sessionShowing(sessionId: string): boolean;
  /**
   * The approval prompter asks in a notification of its own when the session is not showing (acpHostPorts.ts):
   * then one more would say the same thing twice.
   */
  approvalPrompterNotifies(sessionId: string): boolean;
}

export interface Attention {
  kind: AttentionKind;
  sessionId: string;
  severity: 'info' | 'warning' | 'error';
  /** Without the session's title, which the caller adds: `text(title)`. */
  text(title: string | undefined): string;
}

const MAX_REMEMBERED = 500;

/** One per turn and kind (a stall observed twice in one turn is one notification); approvals once per wait. */
export class AttentionPolicy {
  private readonly seen = new Set<string>();

  decide(event: SupervisorEvent, settings: AttentionSettings, ctx: AttentionContext): Attention | undefined {
    const attention = classify(event);
    if (!attention || !settings[attention.kind]) return undefined;
    if (ctx.windowFocused && ctx.sessionShowing(attention.sessionId)) return undefined;
    if (attention.kind === 'approvalNeeded' && ctx.approvalPrompterNotifies(attention.sessionId)) return undefined;
    if (attention.once) {
      if (this.seen.has(attention.once)) return undefined;
      if (this.seen.size >= MAX_REMEMBERED) this.seen.clear();
      this.seen.add(attention.once);
    }
    return attention;
  }
}

const named = (title: string | undefined) => (title ? ` in “${title}”` : '');
const titled = (title: string | undefined) => `Vigil${title ? ` (“${title}”)` : ''}`;
/** A summary as a sentence: stored reasons of older versions end with their own full stop. */
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

function classify(event: SupervisorEvent): (Attention & { once?: string }) | undefined {
  switch (event.type) {
    case 'turnEnded': {
      const { sessionId, turnId, reason, message, remedies } = event.ended;
      if (reason === 'completed') return { kind: 'turnFinished', sessionId, severity: 'info', once: `end:${turnId}`, text: (t) => `Vigil: the agent finished its turn${named(t)}.` };
      // A failure with remedies already has its own notification with those buttons (sessionController `failed`).
      if (reason === 'failed' && !remedies?.length) {
        return { kind: 'turnFinished', sessionId, severity: 'error', once: `end:${turnId}`, text: (t) => `Vigil: the turn${named(t)} failed: ${message ?? 'the agent reported an error'}` };
      }
      if (reason === 'interrupted') {
        return { kind: 'stalled', sessionId, severity: 'warning', once: `end:${turnId}`, text: (t) => `${titled(t)}: ${sentence(message ?? summaries.stopped)}` };
      }
      // Cancelled or aborted by the person: they know.
      return undefined;
    }
    case 'stallObserved':
      return {
        kind: 'stalled', sessionId: event.sessionId, severity: 'warning', once: `stall:${event.turnId}`,
        text: (t) => `${titled(t)}: ${event.message} (waiting on: ${describeWaitingOn(event.waitingOn)}). ${STOPPING}.`,
      };
    case 'approvalWaiting':
      return event.open ? { kind: 'approvalNeeded', sessionId: event.sessionId, severity: 'info', text: (t) => `Vigil: the agent${named(t)} ${stateWord('awaitingApproval')}.` } : undefined;
    case 'turnStarted':
      return event.source === 'wakeup'
        ? { kind: 'wakeup', sessionId: event.sessionId, severity: 'info', once: `wake:${event.turnId}`, text: (t) => `Vigil: a background task woke the agent${named(t)}.` }
        : undefined;
    default:
      return undefined;
  }
}
