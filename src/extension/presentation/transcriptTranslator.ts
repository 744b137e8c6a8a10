// Turns durable transcript records (user prompts, ACP updates, notices, turn boundaries) into
// the session view's host events. One translator per open session: it remembers which message
// is still streaming so consecutive chunks extend one entry.

import type { TranscriptRecord } from '../core/store/transcriptRecords';
import { ENDED_WITHOUT_RESULT, ToolCallTracker } from '../core/supervisor/toolCalls';
import { checkpointEntry } from './checkpointEntry';
import { TurnEdits } from './turnEdits';
import type { EntryView, HostEvent, PlanItemView, ToolCallPatch, ToolCallView, ToolContentView, ToolStatusView } from '../../shared/sessionView';
import { endedNoticeId, noticeEntryId } from '../../shared/sessionViewReducer';
import { isToolKind, toolKindOf } from '../../shared/toolKinds';
import { STOPPED_MEANS } from '../../shared/turnWords';

/** What an agent may say (ACP's statuses); `cancelled`/`ended` of a turn's end come from Vigil's own records. */
const toolStatuses = new Set<ToolStatusView>(['pending', 'in_progress', 'completed', 'failed', 'cancelled']);
/** Task ids in the text of a wakeup recorded before its record carried them (`taskIds`). */
const wakeupTaskId = /Background task (\S+?) (?:completed|matched)/g;

type Json = Record<string, unknown>;

export class TranscriptTranslator {
  private seq = 0;
  private streaming: { id: string; kind: 'agent' | 'thought'; messageId?: string; last: string; fences: number } | undefined;
  private turnId: string | undefined;
  /** Tool calls of the current turn that have no final status yet. */
  private readonly openTools = new ToolCallTracker();
  /** The files written for the agent in the current turn. */
  private readonly edits = new TurnEdits();

  translate(record: TranscriptRecord): HostEvent[] {
    const at = record.at;
    switch (record.type) {
      case 'userPrompt':
        return [...this.endStream(), { type: 'entryAppended', entry: this.promptEntry(record, at) }];
      case 'agentUpdate':
        this.openTools.observe(record.update);
        if (TurnEdits.isEditRecord(record.update)) return this.edits.observe(record.update);
        return this.fromUpdate(record.update, at);
      case 'notice':
        return [...this.endStream(), this.noticeEntry(record.level === 'error' ? 'error' : 'info', record.text, at)];
      case 'turnStarted':
        this.turnId = record.turnId;
        return [...this.endStream(), ...this.endOpenTools(at), ...this.endEdits(at)];
      case 'turnEnded': {
        const ended = [...this.endStream(), ...this.endOpenTools(at), ...this.endEdits(at)];
        // Why a turn failed stays in the transcript: a reloaded window shows what the live one showed.
        if (record.reason === 'failed' && record.message) {
          const id = endedNoticeId(record.turnId ?? String(at));
          ended.push({ type: 'entryAppended', entry: { kind: 'notice', id: noticeEntryId(id), at, notice: { id, kind: 'error', text: record.message, resumable: false, at } } });
        }
        return ended;
      }
      case 'interrupted':
        return [...this.endStream(), ...this.endOpenTools(at), ...this.endEdits(at), this.noticeEntry('interrupted', record.reason, at, STOPPED_MEANS, record.turnId)];
      case 'checkpoint': {
        const entry = checkpointEntry(record, this.nextId('checkpoint', at), this.edits.hasFiles);
        if (entry?.kind === 'checkpoint' && entry.changes) this.edits.forgetFiles();
        return entry ? [...this.endStream(), { type: 'entryAppended', entry }] : [];
      }
      case 'syntheticToolResult':
        this.openTools.close(record.toolCallId);
        // `ended` keeps what the call showed so far (its output, its diff); the card's status says the rest.
        if (record.status === ENDED_WITHOUT_RESULT.status) return [{ type: 'toolCallUpdated', toolCallId: record.toolCallId, patch: { status: 'ended', endedAt: at } }];
        return [{ type: 'toolCallUpdated', toolCallId: record.toolCallId, patch: { status: record.status, content: [{ type: 'text', text: record.text }], endedAt: at } }];
      default: {
        const never: never = record;
        return never;
      }
    }
  }

  /**
   * The one place where a turn's end folds its unfinished tool calls: still pending or running when the turn
   * ended (also a normal end_turn, also in transcripts written before the end recorded them) means no result.
   */
  private endOpenTools(at: number): HostEvent[] {
    const ids = this.openTools.openIds();
    for (const id of ids) this.openTools.close(id);
    return ids.map((toolCallId) => ({ type: 'toolCallUpdated', toolCallId, patch: { status: ENDED_WITHOUT_RESULT.status, endedAt: at } }));
  }

  /** The turn's list of changed files (a turn that died without its end record gets it when the next one starts). */
  private endEdits(at: number): HostEvent[] {
    return this.edits.end(() => this.nextId('edits', at), at);
  }

  private nextId(prefix: string, at: number): string {
    this.seq += 1;
    return `${prefix}-${at}-${this.seq}`;
  }

  private promptEntry(record: Extract<TranscriptRecord, { type: 'userPrompt' }>, at: number): EntryView {
    const { text, source, attachments } = record;
    if (source === 'wakeup') {
      const taskIds = record.taskIds ?? [...text.matchAll(wakeupTaskId)].map((m) => m[1]);
      return { kind: 'wakeup', id: this.nextId('wakeup', at), at, text, taskIds };
    }
    const redo = record.redo ? { redo: { how: record.redo.how, replaced: record.redo.replaced } } : {};
    return { kind: 'user', id: this.nextId('user', at), text, at, source, ...(attachments?.length ? { attachments } : {}), ...redo };
  }

  /** `endsTurn`: the notice of that turn's end, one entry with the live notice of the same end (endedNoticeId). */
  private noticeEntry(kind: 'info' | 'error' | 'interrupted', text: string, at: number, detail?: string, endsTurn?: string): HostEvent {
    const noticeId = endsTurn ? endedNoticeId(endsTurn) : this.nextId('notice', at);
    const id = endsTurn ? noticeEntryId(noticeId) : noticeId;
    return { type: 'entryAppended', entry: { kind: 'notice', id, at, notice: { id: noticeId, kind, text, ...(detail ? { detail } : {}), resumable: false, at } } };
  }

  private endStream(): HostEvent[] {
    if (!this.streaming) return [];
    const { id } = this.streaming;
    this.streaming = undefined;
    return [{ type: 'streamEnded', entryId: id }];
  }

  private chunk(kind: 'agent' | 'thought', update: Json, at: number): HostEvent[] {
    const content = update.content as Json | undefined;
    const text = content?.type === 'text' && typeof content.text === 'string' ? content.text : '';
    if (!text) return [];
    const events: HostEvent[] = [];
    // ACP's messageId: a chunk of another message starts an entry of its own (an agent's notice, then its answer).
    const messageId = typeof update.messageId === 'string' && update.messageId !== '' ? update.messageId : undefined;
    const otherMessage = messageId !== undefined && this.streaming?.messageId !== undefined && this.streaming.messageId !== messageId;
    if (this.streaming?.kind !== kind || otherMessage || (messageId === undefined && this.streaming.fences % 2 === 0 && wholeMessageBefore(this.streaming.last, text))) {
      events.push(...this.endStream());
      this.streaming = { id: this.nextId(kind, at), kind, last: '', fences: 0 };
    }
    if (messageId !== undefined) this.streaming!.messageId = messageId;
    this.streaming!.last = text;
    this.streaming!.fences += text.split('```').length - 1;
    events.push({ type: 'chunkAppended', entryId: this.streaming!.id, entryKind: kind, text, at });
    return events;
  }

  private fromUpdate(update: Json, at: number): HostEvent[] {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        return this.chunk('agent', update, at);
      case 'agent_thought_chunk':
        return this.chunk('thought', update, at);
      case 'tool_call':
        return [...this.endStream(), { type: 'toolCallCreated', toolCall: toolCallView(update, at), at }];
      case 'tool_call_update':
        if (typeof update.toolCallId !== 'string') return [];
        return [{ type: 'toolCallUpdated', toolCallId: update.toolCallId, patch: toolCallPatch(update, at) }];
      case 'plan':
        return [...this.endStream(), { type: 'planUpdated', entryId: `plan-${this.turnId ?? 'none'}`, items: planItems(update.entries), at }];
      default:
        // user_message_chunk (replays), available commands, modes: nothing to show.
        return [];
    }
  }
}

/**
 * Without ACP's messageId, an agent's notice and its answer arrive as chunks of one message (Codex's
 * "Model metadata … not found." then the answer) and would read as one sentence run into the next. A chunk
 * that is a whole sentence or more, followed straight by a capital with no space between, is taken as
 * another message: a model's own stream puts its spaces and newlines inside its chunks, so it does not
 * write "issues.The". Never inside a code fence, where `Foo.` + `Bar` is code.
 */
function wholeMessageBefore(previous: string, next: string): boolean {
  return previous.length >= 40 && /[.!?]["')\]]?$/.test(previous) && /^[A-Z]/.test(next);
}

function toolCallView(update: Json, at: number): ToolCallView {
  return {
    toolCallId: String(update.toolCallId ?? `unknown-${at}`),
    title: typeof update.title === 'string' ? update.title : 'tool call',
    kind: toolKindOf(update.kind),
    status: toolStatuses.has(update.status as ToolStatusView) ? (update.status as ToolStatusView) : 'pending',
    rawInput: update.rawInput,
    rawOutput: update.rawOutput,
    content: toolContent(update.content),
    locations: locations(update.locations),
    startedAt: at,
  };
}

function toolCallPatch(update: Json, at: number): ToolCallPatch {
  const patch: ToolCallPatch = {};
  if (typeof update.title === 'string') patch.title = update.title;
  if (isToolKind(update.kind)) patch.kind = update.kind;
  if (toolStatuses.has(update.status as ToolStatusView)) {
    patch.status = update.status as ToolStatusView;
    if (patch.status === 'completed' || patch.status === 'failed') patch.endedAt = at;
  }
  if (update.rawInput !== undefined) patch.rawInput = update.rawInput;
  if (update.rawOutput !== undefined) patch.rawOutput = update.rawOutput;
  if (Array.isArray(update.content)) patch.content = toolContent(update.content);
  if (Array.isArray(update.locations)) patch.locations = locations(update.locations);
  return patch;
}

function toolContent(raw: unknown): ToolContentView[] {
  if (!Array.isArray(raw)) return [];
  const out: ToolContentView[] = [];
  for (const item of raw as Json[]) {
    if (item?.type === 'content') {
      const inner = item.content as Json | undefined;
      if (inner?.type === 'text' && typeof inner.text === 'string') out.push({ type: 'text', text: inner.text });
    } else if (item?.type === 'diff' && typeof item.path === 'string' && typeof item.newText === 'string') {
      out.push({ type: 'diff', path: item.path, oldText: typeof item.oldText === 'string' ? item.oldText : null, newText: item.newText });
    } else if (item?.type === 'terminal' && typeof item.terminalId === 'string') {
      out.push({ type: 'terminal', terminalId: item.terminalId });
    }
  }
  return out;
}

function locations(raw: unknown): { path: string; line?: number }[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return (raw as Json[])
    .filter((l) => typeof l?.path === 'string')
    .map((l) => ({ path: l.path as string, ...(typeof l.line === 'number' ? { line: l.line } : {}) }));
}

function planItems(raw: unknown): PlanItemView[] {
  if (!Array.isArray(raw)) return [];
  return (raw as Json[]).map((e) => ({
    content: String(e?.content ?? ''),
    priority: e?.priority === 'high' || e?.priority === 'low' ? e.priority : 'medium',
    status: e?.status === 'in_progress' || e?.status === 'completed' ? e.status : 'pending',
  }));
}
