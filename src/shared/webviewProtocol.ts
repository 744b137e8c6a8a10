// The one protocol module of the webview ↔ extension host boundary: every message both ways, each written once
// as its zod schema (the TypeScript types are derived from them), and the parse functions each side runs on
// everything it receives.
// Handshake: the webview posts `ready`; only then does the host post a `snapshot`, then `event`s.
// A long session's snapshot carries only its tail (`omitted` older entries); the webview paints
// it, then asks for the rest with `history`, which the host answers from that same snapshot.

import * as z from 'zod';
import { checkJsonShape, type JsonGuardLimits } from './jsonGuard';
import { contextLimits, imageMimeTypes, maxImageBase64Chars, type MentionItem, type PromptMention } from './promptContext';
import { elicitationLimits } from './elicitationForm';
import type { NoticeAction } from './sessionView';
import { noticeActions } from './sessionView';
import { entrySchema, hostEventSchema, snapshotSchema, viewLimits } from './sessionViewSchema';
import { checkEntries, checkSnapshot } from './sessionViewGuard';
import { editIdPattern } from './fileEdits';
import { turnChangesLimits } from './turnChanges';
import { redoHows, type RedoHow } from './lastExchange';

/** A dropped URI: a path's bound, with room for its scheme, authority and percent-escapes. */
const dropUriChars = contextLimits.pathChars * 2 + 512;

/** Snapshots longer than this are sent as their tail first; the rest follows on request. */
export const snapshotTailEntries = 300;

export const webviewLimits = {
  promptChars: 100_000,
  errorChars: 4_000,
  pathChars: 4_096,
  messageChars: 110_000,
} as const;

const webviewGuard: JsonGuardLimits = { maxDepth: 4, maxNodes: 32, maxChars: webviewLimits.messageChars };
/** A prompt may carry images and embedded text; an answered form may carry many fields. */
const promptGuard: JsonGuardLimits = {
  maxDepth: 5,
  maxNodes: 32 + contextLimits.attachments * 8,
  maxChars: webviewLimits.messageChars + contextLimits.images * (maxImageBase64Chars + 1_000) + contextLimits.attachments * (contextLimits.embeddedChars * 2 + contextLimits.pathChars),
};
const elicitationGuard: JsonGuardLimits = { maxDepth: 5, maxNodes: 32 + elicitationLimits.fields * (elicitationLimits.options + 2), maxChars: 2_000_000 };
const guardFor = (type: unknown): JsonGuardLimits => (type === 'prompt' ? promptGuard : type === 'elicitation' ? elicitationGuard : webviewGuard);
/** Snapshots of long sessions are big; the bounds only stop pathological data. */
const hostGuard: JsonGuardLimits = { maxDepth: 64, maxNodes: 5_000_000, maxChars: 200_000_000 };

const lineNumber = z.number().int().min(1).max(10_000_000);
const mentionPath = z.string().min(1).max(contextLimits.pathChars);
const embedded = z.string().max(contextLimits.embeddedChars);
const mentionItemSchema: z.ZodType<MentionItem> = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('file'), path: mentionPath }),
  z.strictObject({ kind: z.literal('selection'), path: mentionPath, startLine: lineNumber, endLine: lineNumber, text: embedded }),
  z.strictObject({ kind: z.literal('problems'), count: z.number().int().nonnegative().max(1_000_000), text: embedded, path: mentionPath.optional() }),
]);
const mentionSchema: z.ZodType<PromptMention> = z.union([
  mentionItemSchema,
  z.strictObject({
    kind: z.literal('image'),
    name: z.string().min(1).max(contextLimits.nameChars),
    mimeType: z.enum(imageMimeTypes),
    data: z.string().min(1).max(maxImageBase64Chars).regex(/^[A-Za-z0-9+/]+={0,2}$/, 'image data is not base64'),
  }),
]);
const elicitationValue = z.union([
  z.string().max(elicitationLimits.valueChars),
  z.number().finite(),
  z.boolean(),
  z.array(z.string().max(elicitationLimits.valueChars)).max(elicitationLimits.options),
]);

/** Request ids are chosen by the webview and echoed by the host (pong, error). */
const requestId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_.:-]+$/, 'request id has characters outside [A-Za-z0-9_.:-]');
const refId = z.string().min(1).max(256);
const sessionId = refId.optional();
/** A file of a turn's checkpoint, as the turn's entry named it: the host looks it up in the turn's trees, never on disk. */
const turnFilePath = z.string().min(1).max(turnChangesLimits.pathChars);

/**
 * Every message the webview posts, each written once: its type is derived from this schema (`WebviewMessage`).
 * `id`: a request id chosen by the webview and echoed by the host (pong, error, answers).
 */
export const webviewMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready'), id: requestId }),
  /** `mentions`: files, the selection, the Problems list and images picked in the composer. */
  z.strictObject({
    type: z.literal('prompt'), id: requestId, sessionId, text: z.string().max(webviewLimits.promptChars),
    mentions: z.array(mentionSchema).max(contextLimits.attachments).optional(),
  }).refine((m) => m.text.trim() !== '' || (m.mentions?.length ?? 0) > 0, 'a prompt needs text or an attachment'),
  /** `@` typed in the composer: the host answers with `mentions` (files matching `query`, and the selection and Problems). */
  z.strictObject({ type: z.literal('mentionQuery'), id: requestId, sessionId, query: z.string().max(contextLimits.queryChars) }),
  /** Files dropped on the composer (from the Explorer: their URIs, as the drag named them); the host checks each and answers with `addMentions`. */
  z.strictObject({ type: z.literal('dropUris'), id: requestId, sessionId, uris: z.array(z.string().min(1).max(dropUriChars)).min(1).max(contextLimits.attachments) }),
  /** The composer's Problems button: the host answers with `addMentions`, the Problems of the active editor's file. */
  z.strictObject({ type: z.literal('activeProblems'), id: requestId, sessionId }),
  /** The person's answer to an elicitation; `content` only with `accept` of a form. */
  z.strictObject({
    type: z.literal('elicitation'), id: requestId, sessionId, requestId: refId, action: z.enum(['accept', 'decline', 'cancel']),
    content: z.record(z.string().max(elicitationLimits.nameChars), elicitationValue).optional(),
  }),
  /** Opens the URL of a URL elicitation the host holds (the view never names the URL itself). */
  z.strictObject({ type: z.literal('openElicitationUrl'), id: requestId, requestId: refId }),
  z.strictObject({ type: z.literal('stop'), id: requestId, sessionId }),
  z.strictObject({ type: z.literal('resume'), id: requestId, sessionId }),
  z.strictObject({
    type: z.literal('approval'), id: requestId, sessionId, requestId: refId,
    decision: z.enum(['allowOnce', 'allowAlways', 'reject']),
  }),
  z.strictObject({ type: z.literal('showTaskOutput'), id: requestId, taskId: refId }),
  z.strictObject({ type: z.literal('killTask'), id: requestId, taskId: refId }),
  z.strictObject({ type: z.literal('openSession'), id: requestId, sessionId }),
  /** A workspace-file link in model markdown was clicked; the host opens it only inside the workspace. */
  z.strictObject({ type: z.literal('openFile'), id: requestId, path: z.string().min(1).max(webviewLimits.pathChars), line: z.number().int().min(1).max(10_000_000).optional() }),
  /** Opens an edit the host recorded (by its id, never a path) in VS Code's diff editor. */
  z.strictObject({ type: z.literal('openDiff'), id: requestId, editId: z.string().regex(editIdPattern, 'edit id has characters outside [A-Za-z0-9-] or is longer than 64') }),
  /** A button of a notice (Open Log, Open Settings, Sign in…). */
  z.strictObject({ type: z.literal('noticeAction'), id: requestId, sessionId, action: z.enum(noticeActions as [NoticeAction, ...NoticeAction[]]) }),
  /** A header control of the agent's options: pick a value of `configId`, or (without it) see all options. */
  z.strictObject({ type: z.literal('agentOption'), id: requestId, sessionId, configId: z.string().min(1).max(256).optional() }),
  /** "Restore to before this turn" (`path`: only that file of the turn): the host previews the changes and asks before writing. */
  z.strictObject({ type: z.literal('restoreCheckpoint'), id: requestId, sessionId, turnId: refId, path: turnFilePath.optional() }),
  /**
   * A turn's changes from its checkpoint in VS Code's diff editor: one file (`path`, checked by the host against the
   * turn's trees), or all of them in one multi-file review.
   */
  z.strictObject({ type: z.literal('openTurnChanges'), id: requestId, sessionId, turnId: refId, path: turnFilePath.optional() }),
  z.strictObject({ type: z.literal('ping'), id: requestId }),
  /** Copy on a user or agent message: the host puts that entry's Markdown on the clipboard (never text the view sends). */
  z.strictObject({ type: z.literal('copyEntry'), id: requestId, sessionId, entryId: refId }),
  /**
   * Edit (with the new `text`), Retry or Regenerate of the last exchange (lastExchange.ts): `entryId` names the person's
   * last message (the last answer for `regenerate`); the host checks both against its own model and refuses a stale one.
   */
  z.strictObject({
    type: z.literal('redo'), id: requestId, sessionId, entryId: refId, how: z.enum(redoHows as [RedoHow, ...RedoHow[]]),
    text: z.string().max(webviewLimits.promptChars).optional(),
  }).refine((m) => (m.how === 'edit') === (m.text !== undefined), 'an edit carries its new text, and only an edit does')
    .refine((m) => m.text === undefined || m.text.trim() !== '', 'an edited message needs text'),
  /** Asks for the entries a tail snapshot omitted; `snapshotSeq` names that snapshot. */
  z.strictObject({ type: z.literal('history'), id: requestId, snapshotSeq: z.number().int().nonnegative() }),
  /** The webview reports a host message it dropped, so the host can log it. */
  z.strictObject({ type: z.literal('error'), id: requestId, message: z.string().max(webviewLimits.errorChars) }),
]);

export type WebviewMessage = z.infer<typeof webviewMessageSchema>;
/** One message of the webview's, by its type (what the host's handler of that type is given). */
export type WebviewMessageOf<K extends WebviewMessage['type']> = Extract<WebviewMessage, { type: K }>;

/** Every message the host posts, each written once: its type is derived from this schema (`HostMessage`). */
export const hostMessageSchema = z.discriminatedUnion('type', [
  /** `seq` numbers snapshot and events in order; a gap tells the webview to ask again with `ready`. */
  z.strictObject({
    type: z.literal('snapshot'), seq: z.number().int().nonnegative(), snapshot: snapshotSchema,
    omitted: z.number().int().nonnegative().max(viewLimits.entries).optional(),
  }),
  /** The entries before a tail snapshot's first one, as they were when it was sent. */
  z.strictObject({
    type: z.literal('history'), requestId, snapshotSeq: z.number().int().nonnegative(),
    entries: z.array(entrySchema).max(viewLimits.entries),
  }),
  z.strictObject({ type: z.literal('event'), seq: z.number().int().nonnegative(), event: hostEventSchema }),
  /** The answer to `mentionQuery`; `images`: whether the session's agent takes images (unknown until it started). */
  z.strictObject({ type: z.literal('mentions'), requestId, items: z.array(mentionItemSchema).max(contextLimits.mentionResults + 2), images: z.boolean().optional(), note: z.string().max(1_000).optional() }),
  /** Chips for the composer, checked by the host (Add File/Selection to Vigil, a drop, the Problems button); `note`: what was refused and why. */
  z.strictObject({ type: z.literal('addMentions'), requestId: requestId.optional(), items: z.array(mentionItemSchema).max(contextLimits.attachments), note: z.string().max(4_000).optional() }),
  /** Puts the keyboard focus in the composer's input (Vigil: Focus Chat Input). */
  z.strictObject({ type: z.literal('focusInput') }),
  z.strictObject({ type: z.literal('pong'), id: requestId }),
  z.strictObject({ type: z.literal('error'), requestId: requestId.optional(), message: z.string().max(20_000) }),
]);

export type HostMessage = z.infer<typeof hostMessageSchema>;

export type ParseResult<T> = { ok: true; message: T } | { ok: false; reason: string };

/** Validates a message from the webview. Never throws; the reason is safe to log. */
export function parseWebviewMessage(raw: unknown): ParseResult<WebviewMessage> {
  return parseWith(webviewMessageSchema, guardFor((raw as { type?: unknown } | null)?.type), raw);
}

/** Validates a message from the extension host. Never throws. */
export function parseHostMessage(raw: unknown): ParseResult<HostMessage> {
  return parseWith(hostMessageSchema, hostGuard, raw, parseEntryCarrier);
}

function parseWith<T>(schema: z.ZodType<T>, guard: JsonGuardLimits, raw: unknown, fast?: (raw: Record<string, unknown>) => T | undefined): ParseResult<T> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, reason: 'message is not an object' };
  const shape = checkJsonShape(raw, guard);
  if (shape) return { ok: false, reason: `${describe(raw)}: ${shape}` };
  const quick = fast?.(raw as Record<string, unknown>);
  if (quick) return { ok: true, message: quick };
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, message: result.data };
  return { ok: false, reason: `${describe(raw)}: ${formatIssues(result.error)}` };
}

/**
 * Snapshots and history are mostly entries: those go through the entry guard (sessionViewGuard.ts), the
 * rest of the message through zod. Undefined when anything is invalid: zod then parses the whole
 * message and reports what is wrong, exactly as without this shortcut.
 */
function parseEntryCarrier(raw: Record<string, unknown>): HostMessage | undefined {
  if (raw.type === 'snapshot') {
    const { type: _type, seq, snapshot, omitted, ...more } = raw;
    if (Object.keys(more).length > 0 || !isCount(seq) || !(omitted === undefined || (isCount(omitted) && omitted <= viewLimits.entries))) return undefined;
    const checked = checkSnapshot(snapshot);
    return checked ? { type: 'snapshot', seq, snapshot: checked, ...(omitted !== undefined ? { omitted } : {}) } : undefined;
  }
  if (raw.type !== 'history') return undefined;
  const entries = checkEntries(raw.entries);
  if (!entries) return undefined;
  const rest = hostMessageSchema.safeParse({ ...raw, entries: [] });
  return rest.success && rest.data.type === 'history' ? { ...rest.data, entries } : undefined;
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function describe(raw: object): string {
  const type = (raw as { type?: unknown }).type;
  return typeof type === 'string' ? `message "${type.slice(0, 40)}"` : 'message without a type';
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}
