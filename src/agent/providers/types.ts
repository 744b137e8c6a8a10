// One interface for every model provider: a streamed call over a neutral message history.

export interface ToolCallRequest {
  id: string;
  name: string;
  /** Raw JSON text as the model produced it; validated by the tool layer, not here. */
  arguments: string;
}

/** An image in a user message (base64), for providers that take images. */
export interface ImageInput {
  mimeType: string;
  data: string;
}

export type ChatMessage =
  | { role: 'user'; text: string; images?: ImageInput[] }
  | { role: 'assistant'; text: string; toolCalls?: ToolCallRequest[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

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
  | { kind: 'end'; reason: 'stop' | 'tool_calls' | 'max_tokens' | 'refusal' };

export interface ModelProvider {
  /** Shown in logs and, for the demo, in the transcript. */
  readonly label: string;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}
