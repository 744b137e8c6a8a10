// What a tool needs from the ACP client (the extension host owns files and terminals), as a small port for tests.

import type { PermissionOption, ToolCallUpdate } from '@agentclientprotocol/sdk';

export interface TerminalPort {
  id: string;
  waitForExit(): Promise<{ exitCode?: number | null; signal?: string | null }>;
  currentOutput(): Promise<{ output: string; truncated: boolean }>;
  kill(): Promise<unknown>;
  release(): Promise<unknown>;
}

export interface ClientPort {
  /** `range` is ACP's `line` (1-based) / `limit`: a big file is read by parts (the host refuses whole reads above 8 MB). */
  readTextFile(path: string, signal: AbortSignal, range?: { line?: number; limit?: number }): Promise<string>;
  writeTextFile(path: string, content: string, signal: AbortSignal): Promise<void>;
  createTerminal(request: { command: string; args?: string[]; cwd: string; background?: boolean; notifyPattern?: string }, signal: AbortSignal): Promise<TerminalPort>;
  requestPermission(toolCall: ToolCallUpdate, options: PermissionOption[], signal: AbortSignal): Promise<{ outcome: 'selected'; optionId: string } | { outcome: 'cancelled' }>;
  hostRequest<T>(method: string, params: unknown, signal: AbortSignal): Promise<T>;
}

export interface ToolContext {
  sessionId: string;
  cwd: string;
  client: ClientPort;
  signal: AbortSignal;
  commandTimeoutMs: number;
  /** Whether the client advertised this `_vigil/…` method or feature; without it a tool does the work itself or does without. */
  hostServes(name: string): boolean;
  /** Tool kinds (and MCP tool names) the person allowed "always" in this session. */
  allowedAlways: Set<string>;
  /** Sends a `plan` update (the update_plan tool). */
  publishPlan(entries: Array<{ content: string; status: 'pending' | 'in_progress' | 'completed' }>): Promise<void>;
}

/** What a tool hands back: text for the model, and optional ACP content to show (e.g. a live terminal). */
export interface ToolResult {
  ok: boolean;
  text: string;
  terminalId?: string;
}

export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
