// The local socket between Vigil's MCP task server program and the extension host: newline-delimited
// JSON; the first message proves the per-session secret, every later one is a tool call of that session.

import * as z from 'zod';
import type { TaskToolResult } from './taskTools';

/** Environment of the task server program (set in the MCP server entry Vigil gives the agent). */
export const TASK_SOCKET_ENV = 'VIGIL_TASK_SOCKET';
export const TASK_SESSION_ENV = 'VIGIL_TASK_SESSION';
export const TASK_SECRET_ENV = 'VIGIL_TASK_SECRET';

/** A longer line is not ours: the connection is closed. */
export const BRIDGE_MAX_LINE = 1024 * 1024;
/** Time a client has to authenticate after connecting, however it trickles bytes meanwhile. */
export const BRIDGE_HELLO_TIMEOUT_MS = 5_000;
/** Connections not yet authenticated at once; a new one beyond it closes the oldest. */
export const BRIDGE_MAX_PENDING = 32;
/** Tool calls one connection may have open at once. */
export const BRIDGE_MAX_IN_FLIGHT = 16;

export const helloSchema = z.strictObject({ t: z.literal('hello'), session: z.string().min(1).max(200), secret: z.string().min(1).max(200) });
export type BridgeHello = z.infer<typeof helloSchema>;

export const callSchema = z.strictObject({ t: z.literal('call'), id: z.number().int().nonnegative(), tool: z.string().max(100), args: z.unknown() });
export type BridgeCall = z.infer<typeof callSchema>;

export type BridgeReply =
  | { t: 'welcome' }
  | { t: 'denied'; reason: string }
  | { t: 'result'; id: number; result: TaskToolResult };

export const replySchema: z.ZodType<BridgeReply> = z.union([
  z.strictObject({ t: z.literal('welcome') }),
  z.strictObject({ t: z.literal('denied'), reason: z.string() }),
  z.strictObject({ t: z.literal('result'), id: z.number().int(), result: z.strictObject({ text: z.string(), isError: z.boolean().optional() }) }),
]);
