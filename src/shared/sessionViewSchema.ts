// zod schemas of the session view model, so the webview validates every snapshot and event it is sent.
// Typed against sessionView.ts: a drift between the two is a compile error.

import * as z from 'zod';
import { agentStateSchema } from './agentStateSchema';
import type {
  ApprovalView, ElicitationView, EntryView, HostEvent, NoticeAction, NoticeView, PlanItemView, SessionMetaView, SessionSnapshot,
  TaskView, ToolCallPatch, ToolCallView, ToolContentView, TurnStatusView,
} from './sessionView';
import { noticeActions } from './sessionView';
import { TOOL_KINDS } from './toolKinds';
import { turnChangesSchema } from './turnChangesSchema';
import { approvalPreviewChars, editIdPattern, type ApprovalDetails, type FileEditView } from './fileEdits';

/** Bounds that keep one bad value from freezing the view; generous for real transcripts. */
export const viewLimits = {
  id: 256,
  title: 4_000,
  text: 2_000_000,
  entries: 1_000_000,
  /** A notice's text and a task's command. */
  shortText: 20_000,
  signal: 64,
  wakeupsNote: 1_000,
  /** A tool call's content and locations. */
  toolParts: 1_000,
  notices: 100,
  tasks: 10_000,
} as const;

/**
 * The value sets of the enums the entry guard (sessionViewGuard.ts) checks without zod: one list each,
 * for both.
 */
export const viewValues = {
  toolStatus: ['pending', 'in_progress', 'completed', 'failed', 'cancelled', 'ended'],
  userSource: ['user', 'wakeup', 'resume'],
  noticeKind: ['quiet', 'stall', 'abort', 'interrupted', 'error', 'info'],
  turnPhase: ['idle', 'running', 'quiet', 'stalled', 'aborted', 'interrupted', 'awaitingApproval'],
  taskStatus: ['running', 'exited', 'killed', 'lost'],
} as const;

const id = z.string().min(1).max(viewLimits.id);
const title = z.string().max(viewLimits.title);
const text = z.string().max(viewLimits.text);
const epochMs = z.number().finite().nonnegative();
const json = z.unknown();

const toolKind = z.enum(TOOL_KINDS);
const toolStatus = z.enum(viewValues.toolStatus);

const toolContent: z.ZodType<ToolContentView> = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text }),
  z.strictObject({ type: z.literal('diff'), path: title, oldText: text.nullable().optional(), newText: text }),
  z.strictObject({ type: z.literal('terminal'), terminalId: id }),
]);

const count = z.number().int().nonnegative().max(1e9);
const fileEdit: z.ZodType<FileEditView> = z.strictObject({
  editId: z.string().regex(editIdPattern),
  path: title,
  added: count,
  removed: count,
  created: z.boolean(),
  noDiff: z.enum(['binary', 'tooLarge']).optional(),
});
const fileEdits = z.array(fileEdit).max(10_000);
const approvalDetails: z.ZodType<ApprovalDetails> = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('command'), command: z.string().max(20_000), cwd: title.optional(), background: z.boolean() }),
  z.strictObject({
    type: z.literal('edit'),
    edit: fileEdit,
    preview: z.strictObject({ oldText: z.string().max(approvalPreviewChars), newText: z.string().max(approvalPreviewChars) }).optional(),
    review: z.boolean().optional(),
  }),
]);

const toolCallFields = {
  title,
  kind: toolKind,
  status: toolStatus,
  rawInput: json.optional(),
  rawOutput: json.optional(),
  content: z.array(toolContent).max(viewLimits.toolParts),
  locations: z.array(z.strictObject({ path: title, line: z.number().int().nonnegative().optional() })).max(viewLimits.toolParts).optional(),
  startedAt: epochMs.optional(),
  endedAt: epochMs.optional(),
  edits: fileEdits.optional(),
};

export const toolCallSchema: z.ZodType<ToolCallView> = z.strictObject({ toolCallId: id, ...toolCallFields });
const toolCallPatchSchema: z.ZodType<ToolCallPatch> = z.strictObject(toolCallFields).partial();

const planItem: z.ZodType<PlanItemView> = z.strictObject({
  content: text,
  priority: z.enum(['high', 'medium', 'low']),
  status: z.enum(['pending', 'in_progress', 'completed']),
});

export const noticeSchema: z.ZodType<NoticeView> = z.strictObject({
  id,
  kind: z.enum(viewValues.noticeKind),
  text: z.string().max(viewLimits.shortText),
  detail: z.string().max(viewLimits.shortText).optional(),
  resumable: z.boolean(),
  at: epochMs,
  actions: z.array(z.enum(noticeActions as [NoticeAction, ...NoticeAction[]])).max(noticeActions.length).optional(),
});

const attachmentSummary = z.strictObject({
  kind: z.enum(['file', 'selection', 'problems', 'image']),
  name: title,
  uri: z.string().max(8_192).optional(),
  size: z.number().int().nonnegative().optional(),
});

const redoSchema = z.strictObject({ how: z.enum(['edit', 'retry', 'regenerate']), replaced: z.boolean() });

const elicitation: z.ZodType<ElicitationView> = z.discriminatedUnion('mode', [
  z.strictObject({ requestId: id, mode: z.literal('form'), message: title, schema: json, at: epochMs }),
  z.strictObject({ requestId: id, mode: z.literal('url'), message: title, url: z.string().max(2_048), host: z.string().max(300), at: epochMs }),
]);

export const entrySchema: z.ZodType<EntryView> = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('user'), id, text, at: epochMs, source: z.enum(viewValues.userSource).optional(), attachments: z.array(attachmentSummary).max(100).optional(), redo: redoSchema.optional() }),
  z.strictObject({ kind: z.literal('agent'), id, markdown: text, streaming: z.boolean(), at: epochMs }),
  z.strictObject({ kind: z.literal('thought'), id, text, streaming: z.boolean(), at: epochMs }),
  z.strictObject({ kind: z.literal('toolCall'), id, at: epochMs, toolCall: toolCallSchema }),
  z.strictObject({ kind: z.literal('plan'), id, at: epochMs, items: z.array(planItem).max(1_000) }),
  z.strictObject({ kind: z.literal('notice'), id, at: epochMs, notice: noticeSchema }),
  z.strictObject({ kind: z.literal('wakeup'), id, at: epochMs, text, taskIds: z.array(id).max(1_000) }),
  z.strictObject({ kind: z.literal('checkpoint'), id, at: epochMs, turnId: id, restorable: z.boolean(), note: text.optional(), changes: turnChangesSchema.optional() }),
  z.strictObject({ kind: z.literal('edits'), id, at: epochMs, files: fileEdits }),
]);

const turnStatus: z.ZodType<TurnStatusView> = z.strictObject({
  phase: z.enum(viewValues.turnPhase),
  turnId: id.optional(),
  startedAt: epochMs.optional(),
  lastActivityAt: epochMs.optional(),
  silenceSeconds: z.number().finite().nonnegative(),
  waitingOn: title.optional(),
  where: title.optional(),
});

const task: z.ZodType<TaskView> = z.strictObject({
  id,
  command: z.string().max(viewLimits.shortText),
  status: z.enum(viewValues.taskStatus),
  startedAt: epochMs,
  endedAt: epochMs.optional(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().max(viewLimits.signal).nullable().optional(),
});

const approval: z.ZodType<ApprovalView> = z.strictObject({
  requestId: id,
  toolCallId: id.optional(),
  title,
  kind: toolKind.optional(),
  rawInput: json.optional(),
  at: epochMs,
  details: approvalDetails.optional(),
});

const sessionMeta: z.ZodType<SessionMetaView> = z.strictObject({
  id,
  title,
  agent: title.optional(),
  model: title.optional(),
  cwd: title.optional(),
  createdAt: epochMs.optional(),
  wakeups: z.string().max(viewLimits.wakeupsNote).optional(),
  restricted: z.strictObject({ text: z.string().max(viewLimits.wakeupsNote), detail: z.string().max(viewLimits.wakeupsNote) }).optional(),
  builtin: z.boolean().optional(),
});

export const snapshotSchema: z.ZodType<SessionSnapshot> = z.strictObject({
  session: sessionMeta.nullable(),
  entries: z.array(entrySchema).max(viewLimits.entries),
  turn: turnStatus,
  notices: z.array(noticeSchema).max(viewLimits.notices),
  tasks: z.array(task).max(viewLimits.tasks),
  approvals: z.array(approval).max(1_000),
  agent: agentStateSchema.optional(),
  elicitations: z.array(elicitation).max(100).optional(),
});

export const hostEventSchema: z.ZodType<HostEvent> = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('entryAppended'), entry: entrySchema }),
  z.strictObject({ type: z.literal('chunkAppended'), entryId: id, entryKind: z.enum(['agent', 'thought']), text, at: epochMs }),
  z.strictObject({ type: z.literal('streamEnded'), entryId: id }),
  z.strictObject({ type: z.literal('toolCallCreated'), toolCall: toolCallSchema, at: epochMs }),
  z.strictObject({ type: z.literal('toolCallUpdated'), toolCallId: id, patch: toolCallPatchSchema }),
  z.strictObject({ type: z.literal('planUpdated'), entryId: id, items: z.array(planItem).max(1_000), at: epochMs }),
  z.strictObject({ type: z.literal('turnStatusChanged'), turn: turnStatus, notice: noticeSchema.optional() }),
  z.strictObject({ type: z.literal('noticeWithdrawn'), noticeId: id }),
  z.strictObject({ type: z.literal('taskChanged'), task }),
  z.strictObject({ type: z.literal('approvalRequested'), approval }),
  z.strictObject({ type: z.literal('approvalResolved'), requestId: id }),
  z.strictObject({ type: z.literal('sessionMetaChanged'), session: sessionMeta }),
  z.strictObject({ type: z.literal('agentStateChanged'), agent: agentStateSchema }),
  z.strictObject({ type: z.literal('elicitationRequested'), elicitation }),
  z.strictObject({ type: z.literal('elicitationResolved'), requestId: id }),
]);
