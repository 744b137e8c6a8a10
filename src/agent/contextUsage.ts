// How full the model's context window is: the server's own count after each call where it gives one, else an
// estimate from the history's characters; published as ACP `usage_update` (the header's usage) and read by
// compaction (compaction.ts) before each call.

import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ChatMessage } from './providers/types';

/** A rough, provider-neutral count: about four characters a token for English and code. */
const charsPerToken = 4;
/** What an attached image costs a model, roughly (Anthropic and OpenAI count 1–2k for a typical screenshot). */
const tokensPerImage = 1_500;
/** The context window when neither the configuration nor the provider's model list says. */
export const defaultContextWindow = 128_000;

export function estimateTokens(system: string, messages: readonly ChatMessage[]): number {
  let chars = system.length;
  let images = 0;
  for (const m of messages) {
    if (m.role === 'user') {
      chars += m.text.length;
      images += m.images?.length ?? 0;
    } else if (m.role === 'assistant') {
      chars += m.text.length + (m.toolCalls ?? []).reduce((n, c) => n + c.name.length + c.arguments.length, 0);
    } else chars += m.content.length;
  }
  return Math.ceil(chars / charsPerToken) + images * tokensPerImage;
}

/** One session's meter: the last count the server gave (and how much history it covered), and the cost so far. */
export class ContextMeter {
  private reported: { tokens: number; historyLength: number } | undefined;
  private cost = 0;
  private costReported = false;

  constructor(public contextWindow: number) {}

  /** A call's usage as the server counted it: its prompt and its answer are what the context holds now. */
  record(usage: { inputTokens: number; outputTokens: number; cost?: number }, historyLength: number): void {
    this.reported = { tokens: usage.inputTokens + usage.outputTokens, historyLength };
    if (usage.cost !== undefined) {
      this.cost += usage.cost;
      this.costReported = true;
    }
  }

  /** The history was rewritten (compacted): the last count no longer describes it. */
  forget(): void {
    this.reported = undefined;
  }

  /** Tokens in the context for the next call: the last count plus an estimate of what came after it, never below the estimate. */
  tokensNow(system: string, history: readonly ChatMessage[]): number {
    const estimate = estimateTokens(system, history);
    const r = this.reported;
    if (!r || r.historyLength > history.length) return estimate;
    return Math.max(estimate, r.tokens + estimateTokens('', history.slice(r.historyLength)));
  }

  update(system: string, history: readonly ChatMessage[]): SessionUpdate {
    return {
      sessionUpdate: 'usage_update',
      used: this.tokensNow(system, history),
      size: this.contextWindow,
      ...(this.costReported ? { cost: { amount: Math.round(this.cost * 1e6) / 1e6, currency: 'USD' } } : {}),
    };
  }
}
