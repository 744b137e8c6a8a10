// One session of the built-in agent: its history (given by the host, which owns the transcript), its running
// turn, and what the person chose for it (mode, model) with what follows from that (its context meter).

import { ContextMeter } from './contextUsage';
import { McpHub } from './mcp/mcpHub';
import { defaultMode, type AgentMode } from './modes';
import type { ChatMessage } from './providers/types';

export class AgentSession {
  readonly history: ChatMessage[];
  readonly allowedAlways = new Set<string>();
  /** The running turn's abort controller; at most one turn per session. */
  turn: AbortController | undefined;
  mode: AgentMode = defaultMode;
  /** The model id of this session (its provider's; `demo` for the demo). */
  model: string;
  /** The context window the provider's list gave for `model`, if it did. */
  modelWindow: number | undefined;
  readonly meter: ContextMeter;
  /** The instruction files last named in the transcript (names joined), so a change is named again. */
  instructionsNamed: string | undefined;
  /** Whether the session has (or asked for) a title: a new session gets one after its first turn. */
  titled: boolean;
  /** Stops side work that outlives a turn (the title's model call) when the session is closed. */
  readonly closed = new AbortController();

  constructor(
    readonly id: string,
    readonly cwd: string,
    history: ChatMessage[] = [],
    /** The MCP servers the client gave this session (connected at the first prompt). */
    readonly mcp: McpHub = new McpHub([], cwd, { connectTimeoutMs: 1, callTimeoutMs: 1 }),
    options: { model?: string; contextWindow?: number } = {},
  ) {
    this.history = [...history];
    this.model = options.model ?? 'default';
    this.meter = new ContextMeter(options.contextWindow ?? 128_000);
    this.titled = history.some((m) => m.role === 'user');
  }
}
