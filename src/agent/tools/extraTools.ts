// Tools that come from outside the built-in set (an MCP server's), as the agent loop offers and runs them.

import type { ToolCallUpdate, ToolKind } from '@agentclientprotocol/sdk';
import type { ToolSpec } from '../providers/types';
import type { ToolContext, ToolResult } from './toolContext';

export interface ExtraTools {
  readonly specs: readonly ToolSpec[];
  owns(name: string): boolean;
  /** How the call is shown as an ACP tool call. */
  describe(name: string): { title: string; kind: ToolKind };
  /** Never throws for a tool failure (a `{ ok: false }` result); rethrows only the turn's cancellation. */
  run(ctx: ToolContext, name: string, rawArguments: string, toolCall: ToolCallUpdate): Promise<ToolResult>;
}
