// Cuts secrets out of transcript records before they are written (and so before any view sees them).
// Streamed text (message and thought chunks) is redacted as one stream, so a secret split across chunks is caught.

import type { Redactor, StreamRedactor } from '../common/redactor';
import type { RecordInput } from './transcriptRecords';

/** ACP updates whose text is a piece of a longer text: consecutive ones of one kind form one stream. */
const STREAMED = new Set(['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk']);

type Json = Record<string, unknown>;

interface OpenStream {
  key: string;
  turnId: string | undefined;
  update: Json;
  content: Json;
  text: StreamRedactor;
}

/**
 * One per transcript writer (one per turn). A chunk ending in what may be the start of a secret is
 * written without that tail; the tail goes out with the next chunk, or as a chunk of its own just
 * before the next record of any other kind (a turn always ends with one), so nothing is lost or reordered.
 */
export class RecordRedaction {
  private open: OpenStream | undefined;

  constructor(private readonly redactor: Redactor) {}

  apply(input: RecordInput | readonly RecordInput[]): RecordInput | RecordInput[] {
    if (this.redactor.isEmpty && !this.open) return input as RecordInput | RecordInput[];
    const out: RecordInput[] = [];
    if (Array.isArray(input)) for (const record of input as readonly RecordInput[]) this.one(record, out);
    else this.one(input as RecordInput, out);
    return out.length === 1 ? out[0] : out;
  }

  private one(record: RecordInput, out: RecordInput[]): void {
    const streamed = record.type === 'agentUpdate' ? streamedText(record.update) : undefined;
    if (record.type !== 'agentUpdate' || !streamed) {
      this.close(out);
      out.push(this.redactor.redactValue(record));
      return;
    }
    const key = `${String(record.update.sessionUpdate)}\u0000${String(record.update.messageId ?? '')}`;
    if (this.open && this.open.key !== key) this.close(out);
    this.open ??= { key, turnId: record.turnId, update: record.update, content: streamed.content, text: this.redactor.stream() };
    const text = this.open.text.push(streamed.text);
    out.push({ ...record, update: this.redactor.redactValue({ ...record.update, content: { ...streamed.content, text } }) });
  }

  /** Ends the open stream, writing its held tail (if any) as one more chunk of the same kind. */
  private close(out: RecordInput[]): void {
    const open = this.open;
    this.open = undefined;
    if (!open?.text.pending) return;
    const update = this.redactor.redactValue({ ...open.update, content: { ...open.content, text: open.text.flush() } });
    out.push({ type: 'agentUpdate', ...(open.turnId !== undefined ? { turnId: open.turnId } : {}), update });
  }
}

function streamedText(update: Json): { content: Json; text: string } | undefined {
  if (typeof update.sessionUpdate !== 'string' || !STREAMED.has(update.sessionUpdate)) return undefined;
  const content = update.content as Json | undefined;
  if (!content || content.type !== 'text' || typeof content.text !== 'string') return undefined;
  return { content, text: content.text };
}
