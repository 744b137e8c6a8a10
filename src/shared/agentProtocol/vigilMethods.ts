// Vigil's ACP extension methods and `_meta` fields: the contract between the built-in agent and the host's ACP
// client; neither side imports the other (docs/architecture.md, dependency rules).

import * as z from 'zod';

export const vigilMethods = {
  /** Agent → host request: which VS Code language models exist. */
  lmModels: '_vigil/lm/models',
  /** Agent → host request: start a streamed chat; the stream arrives as `lmChunk` notifications ending in `end` or `error`. */
  lmChat: '_vigil/lm/chat',
  /** Host → agent notification: one event of a `lmChat` stream. */
  lmChunk: '_vigil/lm/chunk',
  /** Agent → host request: list files under a workspace path. */
  fsList: '_vigil/fs/list',
  /** Agent → host request: search text in workspace files. */
  fsSearch: '_vigil/fs/search',
} as const;

export const lmModelsResult = z.object({ models: z.array(z.object({ id: z.string(), name: z.string(), vendor: z.string().optional() })) });
export type LmModelsResult = z.infer<typeof lmModelsResult>;

const chatMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), text: z.string() }),
  z.object({
    role: z.literal('assistant'),
    text: z.string(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
  }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), name: z.string(), content: z.string() }),
]);

export const lmChatParams = z.object({
  streamId: z.string(),
  model: z.string().optional(),
  system: z.string(),
  messages: z.array(chatMessage),
  tools: z.array(z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })),
});
export type LmChatParams = z.infer<typeof lmChatParams>;

export const lmChunkEvent = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string() }),
  z.object({ kind: z.literal('toolCall'), call: z.object({ id: z.string(), name: z.string(), arguments: z.string() }) }),
  z.object({ kind: z.literal('end') }),
  z.object({ kind: z.literal('error'), code: z.enum(['PROVIDER_AUTH', 'PROVIDER_QUOTA', 'PROVIDER_FAILED', 'PROVIDER_UNAVAILABLE']), message: z.string() }),
]);
export const lmChunkParams = z.object({ streamId: z.string(), event: lmChunkEvent });
export type LmChunkParams = z.infer<typeof lmChunkParams>;

export const fsListParams = z.object({ sessionId: z.string(), path: z.string(), maxEntries: z.number().int().positive().optional() });
export const fsListResult = z.object({ entries: z.array(z.string()), truncated: z.boolean() });
export type FsListResult = z.infer<typeof fsListResult>;

export const fsSearchParams = z.object({
  sessionId: z.string(),
  query: z.string(),
  path: z.string().optional(),
  maxResults: z.number().int().positive().optional(),
});
export const fsSearchResult = z.object({
  matches: z.array(z.object({ path: z.string(), line: z.number(), text: z.string() })),
  truncated: z.boolean(),
});
export type FsSearchResult = z.infer<typeof fsSearchResult>;

/** `_meta.vigil` on `terminal/create`: a background command outlives the turn and wakes the agent. */
export interface VigilTerminalMeta {
  background?: boolean;
  notify?: { onExit?: boolean; pattern?: string };
}

/** `_meta.vigil` on `session/new` / `session/load`: the host owns the transcript and hands the agent its history. */
export const sessionMeta = z.object({ history: z.array(chatMessage).optional() });

/** `data.vigil` on a JSON-RPC error from `session/prompt`: a provider failure the host must act on. */
export const promptErrorData = z.object({
  vigil: z.object({
    code: z.enum(['PROVIDER_AUTH', 'PROVIDER_QUOTA', 'PROVIDER_FAILED', 'PROVIDER_TIMEOUT', 'PROVIDER_UNAVAILABLE']),
    setting: z.string().optional(),
  }),
});

/** The wakeup prompt's first line, written by the host's one formatter (core/wakeups/wakeupPrompt.ts; docs/background-tasks.md). */
export const wakeupPrefix = '[IMPORTANT: Background task ';
