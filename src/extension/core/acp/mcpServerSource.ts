// Which MCP servers a session's agent is given in `session/new`, `session/load` and `session/resume`.
// Several sources contribute (the person's `vigil.mcpServers`, Vigil's own task server); each is asked
// on every open, so a changed setting applies from the next agent start.

import type { AgentCapabilities, McpServer } from '@agentclientprotocol/sdk';

export interface McpServerSource {
  /** The servers for this session, already filtered to what the agent's `mcpCapabilities` accept. */
  serversFor(vigilSessionId: string, capabilities: AgentCapabilities | undefined): Promise<McpServer[]>;
}

/** All sources' servers in order; a source that fails is logged by the caller and contributes nothing. */
export async function collectMcpServers(
  sources: readonly McpServerSource[],
  vigilSessionId: string,
  capabilities: AgentCapabilities | undefined,
  onError: (error: unknown) => void,
): Promise<McpServer[]> {
  const lists = await Promise.all(
    sources.map((s) =>
      s.serversFor(vigilSessionId, capabilities).catch((error: unknown) => {
        onError(error);
        return [] as McpServer[];
      }),
    ),
  );
  return lists.flat();
}
