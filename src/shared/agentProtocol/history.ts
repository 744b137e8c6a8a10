// The neutral message history the host hands the built-in agent (and the agent's providers consume), and the
// shape of a tool offered to a model: one definition for both sides of the boundary.

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
