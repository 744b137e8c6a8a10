// One interface for every model provider: a streamed call over a neutral message history.

export type { ChatMessage, ImageInput, ToolCallRequest, ToolSpec } from '../../shared/agentProtocol/history';
import type { ChatMessage, ToolCallRequest, ToolSpec } from '../../shared/agentProtocol/history';

export interface ModelRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
}

/** Content events reset the idle timer; `keepalive` is only for providers that see pings (never activity). */
export type ModelEvent =
  | { kind: 'text'; text: string }
  | { kind: 'thought'; text: string }
  | { kind: 'toolCall'; call: ToolCallRequest }
  | { kind: 'end'; reason: 'stop' | 'tool_calls' | 'max_tokens' | 'refusal' }
  /** What the call cost, as the server counted it: the prompt's tokens, the answer's, and money where it says. */
  | { kind: 'usage'; inputTokens: number; outputTokens: number; cost?: number };

export interface ModelProvider {
  /** Shown in logs and, for the demo, in the transcript. */
  readonly label: string;
  /** An offline model (the demo, its script): Vigil's side questions (a title, a summary) are answered without it. */
  readonly offline?: boolean;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}
