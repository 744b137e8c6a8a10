// A fast path in front of the zod entry schema (sessionViewSchema.ts) for the entries a long transcript
// is made of: user and agent messages, thoughts and tool calls (and for the rest of a snapshot). zod takes tens of milliseconds for the
// few hundred entries of a tail snapshot (and far more for its history), which is most of a first
// paint's budget. This guard only ever says "certainly valid"; anything it is not sure of (another kind,
// attachments, edits, a value out of bounds, an unknown key) goes to zod, so what is accepted and every
// error message stay exactly zod's. test/unit/webview/sessionViewGuard.test.ts holds it to that.

import { agentStateSchema } from './agentStateSchema';
import { noticeActions, type EntryView, type SessionSnapshot } from './sessionView';
import { entrySchema, viewLimits, viewValues } from './sessionViewSchema';
import { isToolKind } from './toolKinds';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): boolean => typeof v === 'string' && v.length >= 1 && v.length <= viewLimits.id;
const isText = (v: unknown): boolean => typeof v === 'string' && v.length <= viewLimits.text;
const isTitle = (v: unknown): boolean => typeof v === 'string' && v.length <= viewLimits.title;
const isEpochMs = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isOptionalEpochMs = (v: unknown): boolean => v === undefined || isEpochMs(v);

/** True when every own key of `o` is one of `allowed` (zod's strictObject refuses any other). */
function onlyKeys(o: Obj, allowed: ReadonlySet<string>): boolean {
  for (const key in o) if (!allowed.has(key)) return false;
  return true;
}

const userKeys = new Set(['kind', 'id', 'text', 'at', 'source']);
const agentKeys = new Set(['kind', 'id', 'markdown', 'streaming', 'at']);
const thoughtKeys = new Set(['kind', 'id', 'text', 'streaming', 'at']);
const toolEntryKeys = new Set(['kind', 'id', 'at', 'toolCall']);
const toolCallKeys = new Set(['toolCallId', 'title', 'kind', 'status', 'rawInput', 'rawOutput', 'content', 'locations', 'startedAt', 'endedAt']);
const textContentKeys = new Set(['type', 'text']);
const diffContentKeys = new Set(['type', 'path', 'oldText', 'newText']);
const terminalContentKeys = new Set(['type', 'terminalId']);
const locationKeys = new Set(['path', 'line']);
const userSources: ReadonlySet<unknown> = new Set(viewValues.userSource);
const toolStatuses: ReadonlySet<unknown> = new Set(viewValues.toolStatus);

function isToolContent(c: unknown): boolean {
  if (!isObj(c)) return false;
  switch (c.type) {
    case 'text':
      return onlyKeys(c, textContentKeys) && isText(c.text);
    case 'diff':
      return onlyKeys(c, diffContentKeys) && isTitle(c.path) && (c.oldText === undefined || c.oldText === null || isText(c.oldText)) && isText(c.newText);
    case 'terminal':
      return onlyKeys(c, terminalContentKeys) && isId(c.terminalId);
    default:
      return false;
  }
}

function isLocation(l: unknown): boolean {
  return isObj(l) && onlyKeys(l, locationKeys) && isTitle(l.path) && (l.line === undefined || (Number.isSafeInteger(l.line) && (l.line as number) >= 0));
}

function isEach(list: unknown, max: number, item: (v: unknown) => boolean): boolean {
  if (!Array.isArray(list) || list.length > max) return false;
  for (const v of list) if (!item(v)) return false;
  return true;
}

function isToolCall(t: unknown): boolean {
  return (
    isObj(t) && onlyKeys(t, toolCallKeys) && isId(t.toolCallId) && isTitle(t.title) && isToolKind(t.kind) && toolStatuses.has(t.status) &&
    isEach(t.content, viewLimits.toolParts, isToolContent) && (t.locations === undefined || isEach(t.locations, viewLimits.toolParts, isLocation)) &&
    isOptionalEpochMs(t.startedAt) && isOptionalEpochMs(t.endedAt)
  );
}

/**
 * True only for an entry zod's `entrySchema` certainly accepts as it is (no key stripped, nothing
 * converted). False means "not known here", not "invalid": ask zod.
 */
export function isCommonEntry(e: unknown): e is EntryView {
  if (!isObj(e) || !isId(e.id) || !isEpochMs(e.at)) return false;
  switch (e.kind) {
    case 'user':
      return onlyKeys(e, userKeys) && isText(e.text) && (e.source === undefined || userSources.has(e.source));
    case 'agent':
      return onlyKeys(e, agentKeys) && isText(e.markdown) && typeof e.streaming === 'boolean';
    case 'thought':
      return onlyKeys(e, thoughtKeys) && isText(e.text) && typeof e.streaming === 'boolean';
    case 'toolCall':
      return onlyKeys(e, toolEntryKeys) && isToolCall(e.toolCall);
    default:
      return false;
  }
}

/**
 * A list of entries as zod's `z.array(entrySchema).max(viewLimits.entries)` would parse it, but with the
 * common entries checked by the guard and only the others parsed by zod. Undefined when the list or any
 * entry is invalid: the caller then parses the whole message with zod for the error to report.
 */
export function checkEntries(list: unknown): EntryView[] | undefined {
  if (!Array.isArray(list) || list.length > viewLimits.entries) return undefined;
  let parsed: EntryView[] | undefined;
  for (let i = 0; i < list.length; i++) {
    if (isCommonEntry(list[i])) continue;
    const result = entrySchema.safeParse(list[i]);
    if (!result.success) return undefined;
    (parsed ??= list.slice())[i] = result.data;
  }
  return parsed ?? (list as EntryView[]);
}

const isOptionalTitle = (v: unknown): boolean => v === undefined || isTitle(v);
const isShortString = (v: unknown, max: number): boolean => typeof v === 'string' && v.length <= max;
const snapshotKeys = new Set(['session', 'entries', 'turn', 'notices', 'tasks', 'approvals', 'agent', 'elicitations']);
const sessionKeys = new Set(['id', 'title', 'agent', 'model', 'cwd', 'createdAt', 'wakeups', 'restricted', 'builtin']);
const restrictedKeys = new Set(['text', 'detail']);
const turnKeys = new Set(['phase', 'turnId', 'startedAt', 'lastActivityAt', 'silenceSeconds', 'waitingOn', 'where']);
const noticeKeys = new Set(['id', 'kind', 'text', 'detail', 'resumable', 'at', 'actions']);
const taskKeys = new Set(['id', 'command', 'status', 'startedAt', 'endedAt', 'exitCode', 'signal']);
const turnPhases: ReadonlySet<unknown> = new Set(viewValues.turnPhase);
const noticeKinds: ReadonlySet<unknown> = new Set(viewValues.noticeKind);
const noticeActionSet: ReadonlySet<unknown> = new Set(noticeActions);
const taskStatuses: ReadonlySet<unknown> = new Set(viewValues.taskStatus);

function isSessionMeta(m: unknown): boolean {
  return (
    isObj(m) && onlyKeys(m, sessionKeys) && isId(m.id) && isTitle(m.title) && isOptionalTitle(m.agent) && isOptionalTitle(m.model) &&
    isOptionalTitle(m.cwd) && isOptionalEpochMs(m.createdAt) && (m.wakeups === undefined || isShortString(m.wakeups, viewLimits.wakeupsNote)) &&
    (m.restricted === undefined || (isObj(m.restricted) && onlyKeys(m.restricted, restrictedKeys) && isShortString(m.restricted.text, viewLimits.wakeupsNote) && isShortString(m.restricted.detail, viewLimits.wakeupsNote))) &&
    (m.builtin === undefined || typeof m.builtin === 'boolean')
  );
}

function isTurn(t: unknown): boolean {
  return (
    isObj(t) && onlyKeys(t, turnKeys) && turnPhases.has(t.phase) && (t.turnId === undefined || isId(t.turnId)) && isOptionalEpochMs(t.startedAt) &&
    isOptionalEpochMs(t.lastActivityAt) && isEpochMs(t.silenceSeconds) && isOptionalTitle(t.waitingOn) && isOptionalTitle(t.where)
  );
}

function isNotice(n: unknown): boolean {
  return (
    isObj(n) && onlyKeys(n, noticeKeys) && isId(n.id) && noticeKinds.has(n.kind) && isShortString(n.text, viewLimits.shortText) &&
    (n.detail === undefined || isShortString(n.detail, viewLimits.shortText)) && typeof n.resumable === 'boolean' &&
    isEpochMs(n.at) && (n.actions === undefined || isEach(n.actions, noticeActions.length, (a) => noticeActionSet.has(a)))
  );
}

function isTask(t: unknown): boolean {
  return (
    isObj(t) && onlyKeys(t, taskKeys) && isId(t.id) && isShortString(t.command, viewLimits.shortText) && taskStatuses.has(t.status) && isEpochMs(t.startedAt) &&
    isOptionalEpochMs(t.endedAt) && (t.exitCode === undefined || t.exitCode === null || Number.isSafeInteger(t.exitCode)) &&
    (t.signal === undefined || t.signal === null || isShortString(t.signal, viewLimits.signal))
  );
}

const isNone = (list: unknown): boolean => Array.isArray(list) && list.length === 0;

/**
 * A snapshot as zod's `snapshotSchema` would parse it, checked by the guard where it is common (entries,
 * session, turn, notices, tasks, no open approval or elicitation) and by zod where it is not (the
 * agent's state). Undefined when anything is invalid or not known here: parse it with zod.
 */
export function checkSnapshot(s: unknown): SessionSnapshot | undefined {
  if (!isObj(s) || !onlyKeys(s, snapshotKeys)) return undefined;
  if (!(s.session === null || isSessionMeta(s.session)) || !isTurn(s.turn) || !isEach(s.notices, viewLimits.notices, isNotice) || !isEach(s.tasks, viewLimits.tasks, isTask)) return undefined;
  if (!isNone(s.approvals) || !(s.elicitations === undefined || isNone(s.elicitations))) return undefined;
  const agent = s.agent === undefined ? undefined : agentStateSchema.safeParse(s.agent);
  if (agent && !agent.success) return undefined;
  const entries = checkEntries(s.entries);
  if (!entries) return undefined;
  const snapshot = { ...s, entries } as unknown as SessionSnapshot;
  if (agent) snapshot.agent = agent.data;
  return snapshot;
}
