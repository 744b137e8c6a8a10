// One session of the built-in agent: its history (given by the host, which owns the transcript) and its running turn.

import type { ToolKind } from '@agentclientprotocol/sdk';
import type { ChatMessage } from './providers/types';

export class AgentSession {
  readonly history: ChatMessage[];
  readonly allowedAlways = new Set<ToolKind>();
  /** The running turn's abort controller; at most one turn per session. */
  turn: AbortController | undefined;

  constructor(
    readonly id: string,
    readonly cwd: string,
    history: ChatMessage[] = [],
  ) {
    this.history = [...history];
  }
}
