// What a test scripts a local model endpoint to answer, and what it records; shared by every wire format.

/** One scripted model reply, consumed by the next main (agent-turn) request whatever its wire format. */
export type ModelReply =
  /** Streams this text and ends the response normally. */
  | { kind: 'text'; text: string }
  /**
   * A call of one of the agent's own tools (names differ per agent: Claude `Bash`/`Read`, Codex `shell`,
   * Gemini `run_shell_command`/`read_file`), optionally preceded by some text.
   */
  | { kind: 'tool'; name: string; args: Record<string, unknown>; text?: string }
  /** Opens the stream, sends its first event, then nothing until `release()` or the client disconnects. */
  | { kind: 'hang' }
  /** Answers with this HTTP status and an error body in the API's own shape (and these headers, e.g. Retry-After). */
  | { kind: 'error'; status: number; message: string; headers?: Record<string, string> };

export const text = (t: string): ModelReply => ({ kind: 'text', text: t });
export const toolCall = (name: string, args: Record<string, unknown>, t?: string): ModelReply => ({ kind: 'tool', name, args, text: t });
export const hang = (): ModelReply => ({ kind: 'hang' });
export const httpError = (status: number, message: string, headers?: Record<string, string>): ModelReply => ({ kind: 'error', status, message, ...(headers ? { headers } : {}) });

export type WireApi = 'anthropic' | 'responses' | 'chat' | 'gemini' | 'other';

export interface RecordedRequest {
  /** Order of arrival, from 0. */
  seq: number;
  api: WireApi;
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (or the raw text when it was not JSON, or undefined when empty). */
  body: unknown;
  /** A main request consumed a scripted reply; side requests (titles, token counts, quota) did not. */
  main: boolean;
  /** What was answered: the reply kind, `default` when the queue was empty, or the side answer. */
  answered: string;
  /** When it arrived and, for a held stream, when the client let go (ms since the epoch). */
  at: number;
  closedAt?: number;
  /** Set once the client closed the connection before the response ended (seen on hangs). */
  clientClosed?: boolean;
}

/** Text of every tool result a request hands back to the model, per wire format. */
export function toolResults(r: RecordedRequest): string[] {
  const body = r.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return [];
  const flatten = (c: unknown): string =>
    typeof c === 'string' ? c : Array.isArray(c) ? c.map(flatten).join('\n') : c && typeof c === 'object' ? (typeof (c as { text?: unknown }).text === 'string' ? String((c as { text: string }).text) : flatten((c as { content?: unknown; output?: unknown }).content ?? (c as { output?: unknown }).output ?? JSON.stringify(c))) : '';
  const out: string[] = [];
  switch (r.api) {
    case 'anthropic':
      for (const m of asArray(body.messages)) for (const b of asArray((m as { content?: unknown }).content)) if ((b as { type?: string }).type === 'tool_result') out.push(flatten((b as { content?: unknown }).content));
      break;
    case 'responses':
      for (const i of asArray(body.input)) if ((i as { type?: string }).type === 'function_call_output' || (i as { type?: string }).type === 'custom_tool_call_output') out.push(flatten((i as { output?: unknown }).output));
      break;
    case 'chat':
      for (const m of asArray(body.messages)) if ((m as { role?: string }).role === 'tool') out.push(flatten((m as { content?: unknown }).content));
      break;
    case 'gemini':
      for (const c of asArray(body.contents)) for (const p of asArray((c as { parts?: unknown }).parts)) {
        const fr = (p as { functionResponse?: { response?: unknown } }).functionResponse;
        if (fr) out.push(JSON.stringify(fr.response));
      }
      break;
    default:
      break;
  }
  return out;
}

/** The text of each user message a model request carries (Anthropic Messages, OpenAI Responses and Chat, Gemini). */
export function userMessages(r: RecordedRequest): string[] {
  const body = (r.body ?? {}) as { messages?: unknown[]; input?: unknown[]; contents?: unknown[] };
  const flatten = (c: unknown): string =>
    typeof c === 'string' ? c : Array.isArray(c) ? c.map(flatten).join('\n') : c && typeof c === 'object' && typeof (c as { text?: unknown }).text === 'string' ? (c as { text: string }).text : '';
  const items = r.api === 'responses' ? (body.input ?? []) : r.api === 'gemini' ? (body.contents ?? []) : (body.messages ?? []);
  return items.flatMap((m) => ((m as { role?: string }).role === 'user' ? [flatten((m as { content?: unknown; parts?: unknown }).content ?? (m as { parts?: unknown }).parts)] : []));
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
