// Cuts secrets out of transcript records before they are written (and so before any view sees them).
// Streamed text (message, thought and user chunks) is redacted as one stream per kind for the whole turn, so a
// secret split across chunks is caught even when a tool call, a thought, a notice or a new message comes between.

import type { Redactor, StreamRedactor } from '../common/redactor';
import type { RecordInput } from './transcriptRecords';

/** ACP updates whose text is a piece of a longer text: the ones of one kind form one stream over the turn. */
const STREAMED = new Set(['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk']);

/** Records that start or end a turn: nothing of the turn before them may still be held. */
const TURN_EDGES = new Set<RecordInput['type']>(['turnStarted', 'userPrompt', 'turnEnded', 'interrupted']);

/**
 * When another record comes between two chunks of a stream, a held tail this short is shown where it stands,
 * and still matched: a chunk ending in `s` (the start of an `sk-…` key) before a tool call is almost always just
 * a word, and moving it after the tool call would garble the message. A longer tail stays held until the stream
 * goes on (or the turn ends), so at most these few characters of a secret's start are ever shown.
 */
export const RELEASED_AT_INTERRUPTION = 3;

type Json = Record<string, unknown>;

interface OpenStream {
  turnId: string | undefined;
  /** The latest chunk's update: a released or flushed tail goes out in its shape (kind, message id). */
  update: Json;
  content: Json;
  text: StreamRedactor;
}

/**
 * One per transcript writer (one per turn). A chunk ending in what may be the start of a secret is written
 * without that tail; the tail goes out with the next chunk of its kind, or as a chunk of its own before the
 * turn's end (a turn always ends with one), so nothing is lost. Only a tail of a few characters is shown
 * early, before another record, so a secret's start is not shown apart from its rest.
 */
export class RecordRedaction {
  private readonly streams = new Map<string, OpenStream>();

  constructor(private readonly redactor: Redactor) {}

  apply(input: RecordInput | readonly RecordInput[]): RecordInput | RecordInput[] {
    // Secrets are never removed: with none now there were none before, so nothing is held either.
    if (this.redactor.isEmpty) return input as RecordInput | RecordInput[];
    const out: RecordInput[] = [];
    if (Array.isArray(input)) for (const record of input as readonly RecordInput[]) this.one(record, out);
    else this.one(input as RecordInput, out);
    return out.length === 1 ? out[0] : out;
  }

  private one(record: RecordInput, out: RecordInput[]): void {
    const streamed = record.type === 'agentUpdate' ? streamedText(record.update) : undefined;
    const kind = streamed ? String((record as { update: Json }).update.sessionUpdate) : undefined;
    if (TURN_EDGES.has(record.type) || this.otherTurn(record.turnId)) this.flushAll(out);
    else this.interrupt(kind, out);
    if (!streamed || record.type !== 'agentUpdate') {
      out.push(this.redactor.redactValue(record));
      return;
    }
    let stream = this.streams.get(kind!);
    if (!stream) {
      stream = { turnId: record.turnId, update: record.update, content: streamed.content, text: this.redactor.stream() };
      this.streams.set(kind!, stream);
    }
    Object.assign(stream, { turnId: record.turnId, update: record.update, content: streamed.content });
    const text = stream.text.push(streamed.text);
    out.push({ ...record, update: this.withText(record.update, streamed.content, text) });
  }

  private otherTurn(turnId: string | undefined): boolean {
    if (turnId === undefined) return false;
    for (const stream of this.streams.values()) if (stream.turnId !== undefined && stream.turnId !== turnId) return true;
    return false;
  }

  /** Another record comes between chunks: streams of other kinds show a short tail, and keep matching it. */
  private interrupt(kind: string | undefined, out: RecordInput[]): void {
    for (const [other, stream] of this.streams) {
      if (other === kind || !stream.text.pending || stream.text.heldLength > RELEASED_AT_INTERRUPTION) continue;
      this.emit(stream, stream.text.release(), out);
    }
  }

  /** The turn ends (or another begins): every held tail goes out, as one more chunk of its kind. */
  private flushAll(out: RecordInput[]): void {
    for (const stream of this.streams.values()) if (stream.text.pending) this.emit(stream, stream.text.flush(), out);
    this.streams.clear();
  }

  private emit(stream: OpenStream, text: string, out: RecordInput[]): void {
    if (!text) return;
    const update = this.withText(stream.update, stream.content, text);
    out.push({ type: 'agentUpdate', ...(stream.turnId !== undefined ? { turnId: stream.turnId } : {}), update });
  }

  /** The update with its text replaced by `text` (redacted already, as part of its stream) and the rest redacted. */
  private withText(update: Json, content: Json, text: string): Json {
    const rest = this.redactor.redactValue({ ...update, content: { ...content, text: '' } });
    return { ...rest, content: { ...(rest.content as Json), text } };
  }
}

function streamedText(update: Json): { content: Json; text: string } | undefined {
  if (typeof update.sessionUpdate !== 'string' || !STREAMED.has(update.sessionUpdate)) return undefined;
  const content = update.content as Json | undefined;
  if (!content || content.type !== 'text' || typeof content.text !== 'string') return undefined;
  return { content, text: content.text };
}
