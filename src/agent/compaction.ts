// Compaction: when the history fills `compactAt` of the model's context window (less the room its answer
// needs), the turns before the last request are replaced by one summary, written by the model (the offline demo
// writes its own, the same way every time; a model that fails to summarise gets the same extractive one). The
// last request and everything after it are never touched, and the transcript says that it happened.

import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ContextMeter } from './contextUsage';
import { log } from './log';
import type { ChatMessage, ModelProvider } from './providers/types';
import { askModel, conversationText, type SideCallTimeouts } from './sideCall';

/** The first line of a summary message, so the model (and a later compaction) knows what it is. */
export const summaryMarker = '[Summary of the earlier conversation, written when it no longer fit the context window]';

export interface CompactionOptions {
  provider: ModelProvider;
  system: string;
  history: ChatMessage[];
  meter: ContextMeter;
  /** Fraction of the context window past which the history is compacted. */
  compactAt: number;
  /** The answer's room (`max_tokens`): the prompt must leave it free. */
  maxOutputTokens: number;
  signal: AbortSignal;
  timeouts: SideCallTimeouts;
  emit(update: SessionUpdate): Promise<void>;
}

const summarySystem =
  'You summarise a conversation between a person and a coding agent so that the agent can continue it without the full text. ' +
  'Keep: what the person asked for and decided, files read or changed (with paths), commands run and their outcomes, open problems and next steps. ' +
  'Write plain prose and lists, at most 400 words.';

/** The point past which the history is compacted, in tokens. */
export function compactionThreshold(contextWindow: number, compactAt: number, maxOutputTokens: number): number {
  return Math.max(1, Math.min(Math.floor(contextWindow * compactAt), contextWindow - maxOutputTokens));
}

/** Compacts `history` in place when it is past the threshold; returns whether it did. */
export async function compactIfNeeded(o: CompactionOptions): Promise<boolean> {
  const used = o.meter.tokensNow(o.system, o.history);
  const threshold = compactionThreshold(o.meter.contextWindow, o.compactAt, o.maxOutputTokens);
  if (used <= threshold) return false;
  const lastUser = lastUserIndex(o.history);
  const older = o.history.slice(0, Math.max(0, lastUser));
  if (older.length === 0 || (older.length === 1 && isSummary(older[0]))) {
    log('info', `compaction: ${used} tokens are over ${threshold}, but only the last request and its answer are left; nothing to summarise`);
    return false;
  }
  const summary = await summarise(o, older);
  o.history.splice(0, older.length, { role: 'user', text: `${summaryMarker}\n${summary}` });
  o.meter.forget();
  const after = o.meter.tokensNow(o.system, o.history);
  log('info', `compaction: ${older.length} messages (about ${used} tokens in all) summarised; about ${after} tokens now`);
  await o.emit({
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: `*Compacted the conversation: ${older.length} earlier messages were summarised to stay within the model's context window (about ${pretty(used)} of ${pretty(o.meter.contextWindow)} tokens were in use, about ${pretty(after)} now).*\n\n` },
  });
  await o.emit(o.meter.update(o.system, o.history));
  return true;
}

async function summarise(o: CompactionOptions, older: readonly ChatMessage[]): Promise<string> {
  if (o.provider.offline) return extractiveSummary(older);
  // The summary request must fit the window itself: half of it for the conversation's text.
  const budgetChars = Math.max(4_000, Math.floor(o.meter.contextWindow * 0.5) * 4);
  try {
    const text = await askModel(o.provider, summarySystem, `Summarise this conversation:\n\n${conversationText(older, 4_000, budgetChars)}`, o.signal, o.timeouts, 8_000);
    if (text !== '') return text;
    log('warn', 'compaction: the model answered the summary request with nothing; using an extractive summary');
  } catch (error) {
    if (o.signal.aborted) throw error;
    log('warn', `compaction: the model could not summarise (${error instanceof Error ? error.message : String(error)}); using an extractive summary`);
  }
  return extractiveSummary(older);
}

/** A summary made without a model: each request's first line, the tools used, and the last answer's start. */
export function extractiveSummary(messages: readonly ChatMessage[]): string {
  const requests = messages
    .filter((m): m is Extract<ChatMessage, { role: 'user' }> => m.role === 'user')
    .map((m) => (isSummary(m) ? m.text.slice(summaryMarker.length).trim() : m.text.split('\n')[0].trim()).slice(0, 300))
    .filter(Boolean);
  const tools = new Map<string, number>();
  for (const m of messages) if (m.role === 'tool') tools.set(m.name, (tools.get(m.name) ?? 0) + 1);
  const lastAnswer = [...messages].reverse().find((m): m is Extract<ChatMessage, { role: 'assistant' }> => m.role === 'assistant' && m.text.trim() !== '');
  const lines = [
    `Earlier requests (${requests.length}):`,
    ...requests.slice(-20).map((r) => `- ${r}`),
    tools.size > 0 ? `Tools used: ${[...tools].map(([name, n]) => `${name} ×${n}`).join(', ')}.` : 'No tools were used.',
    ...(lastAnswer ? [`The last answer began: ${lastAnswer.text.trim().slice(0, 300)}`] : []),
  ];
  return lines.join('\n');
}

function isSummary(m: ChatMessage): boolean {
  return m.role === 'user' && m.text.startsWith(summaryMarker);
}

function lastUserIndex(history: readonly ChatMessage[]): number {
  for (let i = history.length - 1; i >= 0; i -= 1) if (history[i].role === 'user') return i;
  return -1;
}

function pretty(n: number): string {
  return n.toLocaleString('en-US');
}
