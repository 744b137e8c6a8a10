// One session of the built-in agent: its history (given by the host, which owns the transcript) and its running turn.

import { McpHub } from './mcp/mcpHub';
import type { ChatMessage } from './providers/types';

export class AgentSession {
  readonly history: ChatMessage[];
  readonly allowedAlways = new Set<string>();
  /** The running turn's abort controller; at most one turn per session. */
  turn: AbortController | undefined;

  constructor(
    readonly id: string,
    readonly cwd: string,
    history: ChatMessage[] = [],
    /** The MCP servers the client gave this session (connected at the first prompt). */
    readonly mcp: McpHub = new McpHub([], cwd, { connectTimeoutMs: 1, callTimeoutMs: 1 }),
  ) {
    this.history = [...history];
  }
}
