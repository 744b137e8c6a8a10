// Which exchange of a session may be edited, retried or regenerated: the person's last message and what
// followed it, read from the session's view model. The webview shows its buttons from this, and the host
// asks it again of its own model before acting, so a stale or forged request is refused with the reason.

import type { EntryView, SessionSnapshot } from './sessionView';
import { isTurnLive } from './sessionViewReducer';

/** Edit the last message and send it again; retry a failed or stopped turn; ask the built-in agent again. */
export type RedoHow = 'edit' | 'retry' | 'regenerate';
export const redoHows: readonly RedoHow[] = ['edit', 'retry', 'regenerate'];

/** How a turn that followed the person's message ended, as the transcript shows it. */
export type ExchangeEnd = 'answered' | 'failed' | 'stopped' | 'interrupted' | 'none';

export interface LastExchange {
  /** The person's last message (never a wakeup's or a resume's). */
  user: Extract<EntryView, { kind: 'user' }>;
  /** The last answer of the agent after it, if any. */
  answerId?: string;
  end: ExchangeEnd;
  /** The turn's checkpoint, when it changed files that restoring puts back. */
  restorable?: { turnId: string; files: number };
  can: Record<RedoHow, boolean>;
}

/**
 * The last exchange, or why there is none to redo. A wakeup or a resume after the person's message makes it no
 * longer the last exchange: editing it would rewrite turns the person did not start.
 */
export function lastExchange(snapshot: SessionSnapshot): { ok: true; exchange: LastExchange } | { ok: false; reason: string } {
  if (!snapshot.session) return { ok: false, reason: 'No session is open.' };
  const entries = snapshot.entries;
  let userAt = -1;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.kind === 'wakeup' || (e.kind === 'user' && e.source !== undefined && e.source !== 'user')) {
      return { ok: false, reason: 'A background wakeup or a resume came after your last message: send a new message instead.' };
    }
    if (e.kind === 'user') {
      userAt = i;
      break;
    }
  }
  if (userAt < 0) return { ok: false, reason: 'This session has no message of yours to edit or retry.' };
  const user = entries[userAt] as LastExchange['user'];
  const after = entries.slice(userAt + 1);
  const end = endOf(after, snapshot.turn.phase);
  const answer = [...after].reverse().find((e) => e.kind === 'agent');
  const checkpoint = [...after].reverse().find((e): e is Extract<EntryView, { kind: 'checkpoint' }> => e.kind === 'checkpoint');
  const files = checkpoint?.changes?.count ?? 0;
  const idle = !isTurnLive(snapshot.turn.phase) && snapshot.turn.where === undefined;
  return {
    ok: true,
    exchange: {
      user,
      ...(answer ? { answerId: answer.id } : {}),
      end,
      ...(checkpoint?.restorable && files > 0 ? { restorable: { turnId: checkpoint.turnId, files } } : {}),
      can: {
        edit: idle,
        retry: idle && (end === 'failed' || end === 'stopped' || end === 'interrupted'),
        regenerate: idle && end === 'answered' && answer !== undefined && snapshot.session.builtin === true,
      },
    },
  };
}

function endOf(after: readonly EntryView[], phase: SessionSnapshot['turn']['phase']): ExchangeEnd {
  if (phase === 'aborted') return 'stopped';
  if (phase === 'interrupted') return 'interrupted';
  for (let i = after.length - 1; i >= 0; i--) {
    const e = after[i];
    if (e.kind !== 'notice') continue;
    if (e.notice.kind === 'error') return 'failed';
    if (e.notice.kind === 'abort') return 'stopped';
    if (e.notice.kind === 'interrupted') return 'interrupted';
  }
  return after.some((e) => e.kind === 'agent' || e.kind === 'toolCall') ? 'answered' : 'none';
}

/** Why `how` may not be done to `entryId` now (the host's check of a request), or undefined when it may. */
export function redoRefusal(snapshot: SessionSnapshot, sessionId: string | undefined, how: RedoHow, entryId: string): string | undefined {
  if (sessionId !== snapshot.session?.id) return 'That message belongs to a session that is no longer shown; open it and try again.';
  if (isTurnLive(snapshot.turn.phase) || snapshot.turn.where !== undefined) return 'A turn of this session is running: stop it, or wait for it to end, then try again.';
  const found = lastExchange(snapshot);
  if (!found.ok) return found.reason;
  const { exchange } = found;
  const target = how === 'regenerate' ? exchange.answerId : exchange.user.id;
  if (entryId !== target) return how === 'regenerate' ? 'Only the last answer can be regenerated.' : 'Only your last message can be edited or retried.';
  if (exchange.can[how]) return undefined;
  if (how === 'retry') return 'Only a turn that failed, was stopped or was interrupted can be retried; edit the message to send it again.';
  if (how === 'regenerate') return 'Regenerate is for the built-in agent’s last answer; another agent keeps its own history, so edit and send the message again.';
  return 'This message cannot be edited now.';
}

/**
 * The entries of exchanges that a later edit, retry or regenerate replaced in the agent's history: shown dimmed,
 * never deleted. An exchange runs from a message of the person's to the next one.
 */
export function replacedEntries(entries: readonly EntryView[]): Set<string> {
  const replaced = new Set<string>();
  let start = -1;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e.kind !== 'user' && e.kind !== 'wakeup') continue;
    if (e.kind === 'user' && e.redo?.replaced && start >= 0) for (let j = start; j < i; j++) replaced.add(entries[j].id);
    start = i;
  }
  return replaced;
}
