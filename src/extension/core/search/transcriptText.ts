// The text a person can search in a transcript: their own prompts and the agent's messages (its streamed chunks
// joined, so a phrase split between two chunks is found), read from the start of the file in fixed chunks up to a
// byte cap. Lines too long to hold a message are scanned past without being kept; a line is parsed only when its
// bytes name a message record, so tool outputs (most of a transcript's bytes) cost a byte search, not a JSON parse.

import { singleSpaced } from '../../../shared/textSearch';
import { MAX_LINE_BYTES } from '../store/recordBound';

/** The part of a file handle the reader needs (node's `fs.promises` FileHandle fits); tests wrap it. */
export interface ReadHandle {
  stat(): Promise<{ size: number; mtimeMs: number; isFile(): boolean }>;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

export type OpenForRead = (file: string) => Promise<ReadHandle>;

export interface TextReadLimits {
  /** Bytes read from the start of the file at most; the rest is left unread and the result says so. */
  maxBytes: number;
  /** Characters of text kept at most. */
  maxChars: number;
  /** A longer line is not parsed. */
  maxLineBytes?: number;
  chunkBytes?: number;
}

export interface TranscriptText {
  /**
   * Each message with its whitespace and invisible characters as single spaces, the messages joined by NUL:
   * a query holds neither, so a hit never spans two messages and a line break matches a space.
   */
  text: string;
  /** The file as it was read: a later search reads it again only when these changed. */
  size: number;
  mtimeMs: number;
  /** Not all of the file's messages are in `text`: it is longer than `maxBytes`, or its text than `maxChars`. */
  cut: boolean;
}

export const MESSAGE_SEPARATOR = '\u0000';

const USER_PROMPT = Buffer.from('"userPrompt"');
const AGENT_CHUNK = Buffer.from('"agent_message_chunk"');
const TYPE_KEY = Buffer.from('"type":"');
const UPDATE_KEY = Buffer.from('"sessionUpdate":"');
/** Where Vigil's records name what they are: `type` first, an update's `sessionUpdate` right after the turn id. */
const HEAD_BYTES = 512;

function startsWith(bytes: Buffer, prefix: string): boolean {
  return bytes.length >= prefix.length && bytes.toString('latin1', 0, prefix.length) === prefix;
}

/**
 * Whether `line` may hold a message, without parsing it. A JSON string's own quotes are escaped, so an unescaped
 * `"type":"` or `"sessionUpdate":"` is a key. Vigil writes both near the start of a record: what they name there
 * decides; a line that names nothing there (written some other way) is searched whole for the two names.
 */
export function mayHoldMessage(line: Buffer): boolean {
  const head = line.subarray(0, HEAD_BYTES);
  const update = head.indexOf(UPDATE_KEY);
  if (update !== -1) {
    const value = head.subarray(update + UPDATE_KEY.length);
    if (value.includes(0x22)) return startsWith(value, 'agent_message_chunk"');
  } else {
    const type = head.indexOf(TYPE_KEY);
    const value = type === -1 ? undefined : head.subarray(type + TYPE_KEY.length);
    if (value && startsWith(value, 'userPrompt"')) return true;
    if (value && !startsWith(value, 'agentUpdate"') && value.includes(0x22)) return false;
  }
  return line.includes(USER_PROMPT) || line.includes(AGENT_CHUNK);
}

type Message = { kind: 'user' | 'agent'; text: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message a transcript line holds, if any: a person's own prompt, or a chunk of the agent's message. */
export function messageOf(line: Buffer): Message | undefined {
  if (!mayHoldMessage(line)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  if (value.type === 'userPrompt' && value.source === 'user' && typeof value.text === 'string') return { kind: 'user', text: value.text };
  const update = value.update;
  if (value.type !== 'agentUpdate' || !isObject(update) || update.sessionUpdate !== 'agent_message_chunk') return undefined;
  const content = update.content;
  if (!isObject(content) || content.type !== 'text' || typeof content.text !== 'string') return undefined;
  return { kind: 'agent', text: content.text };
}

/** Gathers messages into one text: consecutive agent chunks into one message, until `maxChars`. */
class TextBuilder {
  private readonly parts: string[] = [];
  private chars = 0;
  private lastKind: Message['kind'] | undefined;
  full = false;

  constructor(private readonly maxChars: number) {}

  add(message: Message | undefined): void {
    if (!message) {
      this.lastKind = undefined;
      return;
    }
    if (this.full || message.text === '') return;
    const joined = message.kind === 'agent' && this.lastKind === 'agent';
    this.lastKind = message.kind;
    let piece = (joined || this.parts.length === 0 ? '' : MESSAGE_SEPARATOR) + singleSpaced(message.text);
    if (this.chars + piece.length > this.maxChars) {
      piece = piece.slice(0, Math.max(0, this.maxChars - this.chars));
      this.full = true;
    }
    this.parts.push(piece);
    this.chars += piece.length;
  }

  text(): string {
    return this.parts.join('');
  }
}

/**
 * Reads the searchable text of an open transcript whose `stat()` gave `file`. Returns undefined when `stop()` said so
 * between two chunks (the search was cancelled or its time ran out): a text read in part is never returned as whole.
 */
export async function readTranscriptText(handle: ReadHandle, file: { size: number; mtimeMs: number }, limits: TextReadLimits, stop: () => boolean): Promise<TranscriptText | undefined> {
  const { size, mtimeMs } = file;
  const builder = new TextBuilder(limits.maxChars);
  const maxLine = limits.maxLineBytes ?? MAX_LINE_BYTES;
  const chunk = Buffer.alloc(Math.min(limits.chunkBytes ?? 256 * 1024, Math.max(1, limits.maxBytes)));
  const end = Math.min(size, limits.maxBytes);
  // The line being assembled from the chunks that hold it; dropped once it is longer than `maxLine`.
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  let tooLong = false;
  for (let position = 0; position < end && !builder.full; ) {
    if (stop()) return undefined;
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, end - position), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const data = chunk.subarray(0, bytesRead);
    let start = 0;
    for (let newline = data.indexOf(0x0a); newline !== -1; newline = data.indexOf(0x0a, start)) {
      if (!tooLong && pieceBytes + newline - start <= maxLine) {
        const line = pieceBytes === 0 ? data.subarray(start, newline) : Buffer.concat([...pieces, data.subarray(start, newline)]);
        builder.add(messageOf(line));
      } else {
        builder.add(undefined);
      }
      pieces = [];
      pieceBytes = 0;
      tooLong = false;
      start = newline + 1;
    }
    // The unfinished line's bytes: copied, as the chunk buffer is read into again.
    if (start < bytesRead && !tooLong) {
      pieceBytes += bytesRead - start;
      if (pieceBytes > maxLine) {
        tooLong = true;
        pieces = [];
      } else {
        pieces.push(Buffer.from(data.subarray(start)));
      }
    }
  }
  // A last line without its newline is a write in progress or torn: not a record yet.
  return { text: builder.text(), size, mtimeMs, cut: size > limits.maxBytes || builder.full };
}
