// Folds host events into a session snapshot. Pure and immutable: the webview renders by identity,
// and the host may reuse it to keep the snapshot it answers `ready` with.

import type { EntryView, HostEvent, NoticeView, SessionSnapshot, ToolCallView, TurnPhase } from './sessionView';

/** Tool call entries are keyed apart from message ids, which come from a different namespace. */
export function toolEntryId(toolCallId: string): string {
  return `tool:${toolCallId}`;
}

/** The notice of a turn that ended failed: one id for the live notice and the transcript's record of it. */
export function endedNoticeId(turnId: string): string {
  return `ended-${turnId}`;
}

export function noticeEntryId(noticeId: string): string {
  return `notice:${noticeId}`;
}

/** Phases in which a turn is live: Stop applies and Send is refused. */
export function isTurnLive(phase: TurnPhase): boolean {
  return phase === 'running' || phase === 'quiet' || phase === 'stalled' || phase === 'awaitingApproval';
}

/** Notices that belong in the transcript history, not only in the pinned banner. */
const historicNotices = new Set<NoticeView['kind']>(['abort', 'interrupted', 'error']);

/** How far back a settled turn looks for entries still marked streaming (they are always near the tail). */
const streamingScanDepth = 500;

/**
 * Arrays made during a `foldHostEvents`: nothing else holds them yet, so the fold extends and patches
 * them in place instead of copying every entry per event (opening a 10,000-record session is then
 * linear, not quadratic). Outside a fold every change copies, as the webview's identity checks need.
 */
let fresh: WeakSet<readonly unknown[]> | undefined;

/** `applyHostEvent` over many events (a session's history at open); the intermediate states are never seen. */
export function foldHostEvents(state: SessionSnapshot, events: Iterable<HostEvent>): SessionSnapshot {
  const outer = fresh;
  fresh = new WeakSet();
  try {
    for (const event of events) state = applyHostEvent(state, event);
    return state;
  } finally {
    fresh = outer;
  }
}

export function applyHostEvent(state: SessionSnapshot, event: HostEvent): SessionSnapshot {
  switch (event.type) {
    case 'entryAppended':
      return { ...state, entries: upsertEntry(state.entries, event.entry) };
    case 'chunkAppended':
      return { ...state, entries: appendChunk(state.entries, event) };
    case 'streamEnded': {
      const i = findEntry(state.entries, event.entryId);
      const entry = state.entries[i];
      if (!entry || (entry.kind !== 'agent' && entry.kind !== 'thought') || !entry.streaming) return state;
      return { ...state, entries: replaceEntry(state.entries, i, { ...entry, streaming: false }) };
    }
    case 'toolCallCreated':
      return {
        ...state,
        entries: upsertEntry(state.entries, { kind: 'toolCall', id: toolEntryId(event.toolCall.toolCallId), at: event.at, toolCall: event.toolCall }),
      };
    case 'toolCallUpdated': {
      const id = toolEntryId(event.toolCallId);
      const i = findEntry(state.entries, id);
      const entry = state.entries[i];
      if (entry?.kind === 'toolCall') {
        return { ...state, entries: replaceEntry(state.entries, i, { ...entry, toolCall: { ...entry.toolCall, ...event.patch } }) };
      }
      // ACP lets an update arrive for a call we never saw (e.g. after a reload); show it rather than drop it.
      const toolCall: ToolCallView = { title: event.toolCallId, kind: 'other', status: 'pending', content: [], ...event.patch, toolCallId: event.toolCallId };
      return { ...state, entries: appendEntry(state.entries, { kind: 'toolCall', id, at: event.patch.startedAt ?? 0, toolCall }) };
    }
    case 'planUpdated':
      return { ...state, entries: upsertEntry(state.entries, { kind: 'plan', id: event.entryId, at: event.at, items: event.items }) };
    case 'turnStatusChanged':
      return applyTurnStatus(state, event);
    case 'noticeWithdrawn':
      return { ...state, notices: state.notices.filter((n) => n.id !== event.noticeId) };
    case 'taskChanged': {
      const i = state.tasks.findIndex((t) => t.id === event.task.id);
      return { ...state, tasks: i < 0 ? [...state.tasks, event.task] : replaceAt(state.tasks, i, event.task) };
    }
    case 'approvalRequested': {
      const rest = state.approvals.filter((a) => a.requestId !== event.approval.requestId);
      return { ...state, approvals: [...rest, event.approval] };
    }
    case 'approvalResolved':
      return { ...state, approvals: state.approvals.filter((a) => a.requestId !== event.requestId) };
    case 'sessionMetaChanged':
      return { ...state, session: event.session };
    case 'agentStateChanged':
      return { ...state, agent: event.agent };
    case 'elicitationRequested': {
      const rest = (state.elicitations ?? []).filter((e) => e.requestId !== event.elicitation.requestId);
      return { ...state, elicitations: [...rest, event.elicitation] };
    }
    case 'elicitationResolved':
      return { ...state, elicitations: (state.elicitations ?? []).filter((e) => e.requestId !== event.requestId) };
    default:
      return assertNever(event);
  }
}

function applyTurnStatus(state: SessionSnapshot, event: Extract<HostEvent, { type: 'turnStatusChanged' }>): SessionSnapshot {
  const { turn, notice } = event;
  const newTurn = turn.phase === 'running' && turn.turnId !== undefined && turn.turnId !== state.turn.turnId;
  const settled = !isTurnLive(turn.phase);
  const resumable = turn.phase === 'aborted' || turn.phase === 'interrupted';
  // Lifecycle: the quiet indicator lives only until the next status; the stall banner stays until the
  // abort it led to is shown (whose notice says how long the turn was silent: two banners saying it left a
  // short side bar no room for the transcript); abort/interrupted stay while the session is resumable; a
  // new turn starts with a clean banner area.
  let notices = newTurn
    ? []
    : state.notices.filter((n) => {
        if (n.kind === 'quiet') return false;
        if (n.kind === 'stall') return resumable;
        if (n.kind === 'abort' || n.kind === 'interrupted') return resumable;
        return true;
      });
  let entries = state.entries;
  if (notice) {
    // One pinned notice per kind: a repeated "busy in another window" or error replaces the last.
    const supersedes = (n: NoticeView) => n.kind === notice.kind || (n.kind === 'stall' && (notice.kind === 'abort' || notice.kind === 'interrupted'));
    notices = [...notices.filter((n) => n.id !== notice.id && !supersedes(n)), notice];
    if (historicNotices.has(notice.kind)) {
      entries = upsertEntry(entries, { kind: 'notice', id: noticeEntryId(notice.id), at: notice.at, notice });
    }
  }
  if (settled) entries = endStreaming(entries);
  // Open permission requests are answered `cancelled` by the supervisor when a turn settles.
  const approvals = settled ? [] : state.approvals;
  // Elicitations are not cleared here: each one leaves when the host answers it (an abort answers `cancel`).
  return { ...state, turn, notices, entries, approvals };
}

function appendChunk(entries: EntryView[], event: Extract<HostEvent, { type: 'chunkAppended' }>): EntryView[] {
  const i = findEntry(entries, event.entryId);
  const entry = entries[i];
  if (entry?.kind === 'agent' && event.entryKind === 'agent') return replaceEntry(entries, i, { ...entry, markdown: entry.markdown + event.text, streaming: true });
  if (entry?.kind === 'thought' && event.entryKind === 'thought') return replaceEntry(entries, i, { ...entry, text: entry.text + event.text, streaming: true });
  // A first chunk opens its entry; a chunk for an entry of another kind starts a fresh one.
  const id = entry ? `${event.entryId}:${event.entryKind}` : event.entryId;
  const created: EntryView =
    event.entryKind === 'agent'
      ? { kind: 'agent', id, markdown: event.text, streaming: true, at: event.at }
      : { kind: 'thought', id, text: event.text, streaming: true, at: event.at };
  return appendEntry(entries, created);
}

function endStreaming(entries: EntryView[]): EntryView[] {
  let out = entries;
  const stop = Math.max(0, entries.length - streamingScanDepth);
  for (let i = entries.length - 1; i >= stop; i--) {
    const e = entries[i];
    if ((e.kind === 'agent' || e.kind === 'thought') && e.streaming) {
      if (out === entries && !fresh?.has(entries)) {
        out = entries.slice();
        fresh?.add(out);
      }
      out[i] = { ...e, streaming: false };
    }
  }
  return out === entries ? entries : derive(entries, out);
}

function upsertEntry(entries: EntryView[], entry: EntryView): EntryView[] {
  const i = findEntry(entries, entry.id);
  return i < 0 ? appendEntry(entries, entry) : replaceEntry(entries, i, entry);
}

function appendEntry(entries: EntryView[], entry: EntryView): EntryView[] {
  if (fresh?.has(entries)) {
    indexOf(entries).set(entry.id, entries.length);
    entries.push(entry);
    return entries;
  }
  // concat allocates the exact size once; slice+push or spread regrow a copy (10× slower at 10k).
  const out = derive(entries, entries.concat([entry]));
  fresh?.add(out);
  return out;
}

function replaceEntry(entries: EntryView[], index: number, entry: EntryView): EntryView[] {
  return derive(entries, replaceAt(entries, index, entry));
}

/**
 * Id → position, shared by every entries array derived from the same one. The reducer only appends
 * or replaces in place, so a position never changes; a hit is still verified, and a stale hit (two
 * states branched from one) falls back to a scan. Keeps lookups O(1) on 10,000-entry sessions.
 */
const positions = new WeakMap<readonly EntryView[], Map<string, number>>();

function indexOf(entries: readonly EntryView[]): Map<string, number> {
  let index = positions.get(entries);
  if (!index) {
    index = new Map();
    for (let i = 0; i < entries.length; i++) index.set(entries[i].id, i);
    positions.set(entries, index);
  }
  return index;
}

/** Registers a derived array with the index of its source (positions unchanged, ids added). */
function derive(source: readonly EntryView[], derived: EntryView[]): EntryView[] {
  const index = indexOf(source);
  for (let i = source.length; i < derived.length; i++) index.set(derived[i].id, i);
  positions.set(derived, index);
  return derived;
}

export function findEntry(entries: readonly EntryView[], id: string): number {
  const i = indexOf(entries).get(id);
  if (i === undefined) return -1;
  if (entries[i]?.id === id) return i;
  for (let k = entries.length - 1; k >= 0; k--) {
    if (entries[k].id === id) return k;
  }
  return -1;
}

function replaceAt<T>(items: readonly T[], index: number, item: T): T[] {
  if (fresh?.has(items)) {
    (items as T[])[index] = item;
    return items as T[];
  }
  const out = items.slice();
  out[index] = item;
  fresh?.add(out);
  return out;
}

function assertNever(value: never): never {
  throw new Error(`unhandled host event: ${JSON.stringify(value)}`);
}
