// Questions the agent asks its model for itself, outside the conversation: a title for the session, a summary
// of older turns. One call without tools, bounded by the same timeouts as the turn's calls, its text capped.

import { withTimeouts } from './providers/timeouts';
import type { ChatMessage, ModelProvider } from './providers/types';

export interface SideCallTimeouts {
  firstTokenMs: number;
  idleMs: number;
  turnMs: number;
}

/** The model's text answer to `prompt` (at most `maxChars`); throws as the provider does, or the abort reason. */
export async function askModel(provider: ModelProvider, system: string, prompt: string, signal: AbortSignal, timeouts: SideCallTimeouts, maxChars: number): Promise<string> {
  const call = new AbortController();
  const onAbort = () => call.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    let text = '';
    const events = withTimeouts(
      provider.stream({ system, messages: [{ role: 'user', text: prompt }], tools: [] }, call.signal),
      { ...timeouts, turnDeadline: Date.now() + timeouts.turnMs },
      (error) => call.abort(error),
      signal,
    );
    for await (const event of events) {
      if (event.kind === 'text') text += event.text;
      if (text.length > maxChars) {
        call.abort(new Error('answer long enough'));
        break;
      }
    }
    return text.slice(0, maxChars).trim();
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The conversation as plain text for a side question: each message cut to `perMessage`, the newest kept within `total`. */
export function conversationText(messages: readonly ChatMessage[], perMessage: number, total: number): string {
  const lines = messages.map((m) => {
    const body = m.role === 'tool' ? `[${m.name} result] ${m.content}` : m.role === 'assistant' ? `${m.text}${(m.toolCalls ?? []).map((c) => ` [called ${c.name}]`).join('')}` : m.text;
    const cut = body.length > perMessage ? `${body.slice(0, perMessage)} […]` : body;
    return `${m.role === 'tool' ? 'tool' : m.role}: ${cut}`;
  });
  const kept: string[] = [];
  let size = 0;
  for (let i = lines.length - 1; i >= 0 && size + lines[i].length <= total; i -= 1) {
    kept.unshift(lines[i]);
    size += lines[i].length + 1;
  }
  return kept.join('\n');
}

const titleSystem = 'You name conversations between a person and a coding agent. Answer with the title only: at most six words, no quotes, no punctuation at the end.';

/** A short title for a session after its first turn; `undefined` when the model gave nothing usable. */
export async function sessionTitle(provider: ModelProvider, messages: readonly ChatMessage[], signal: AbortSignal, timeouts: SideCallTimeouts): Promise<string | undefined> {
  const firstUser = messages.find((m): m is Extract<ChatMessage, { role: 'user' }> => m.role === 'user');
  if (!firstUser) return undefined;
  // The offline demo names the session from the request itself, the same way every time.
  const raw = provider.offline
    ? `Demo: ${firstUser.text.split(/\s+/).filter(Boolean).slice(0, 5).join(' ')}`
    : await askModel(provider, titleSystem, `Name this conversation:\n\n${conversationText(messages, 1_000, 4_000)}`, signal, timeouts, 400);
  return cleanTitle(raw);
}

/** One line, no Markdown emphasis or surrounding quotes, at most 80 characters. */
export function cleanTitle(raw: string): string | undefined {
  const line = raw.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  const clean = line.replace(/^(title:\s*)/i, '').replace(/[*_`#]/g, '').replace(/^["'“”‘’]+|["'“”‘’.]+$/g, '').trim();
  if (clean === '') return undefined;
  return clean.length > 80 ? `${clean.slice(0, 79)}…` : clean;
}
