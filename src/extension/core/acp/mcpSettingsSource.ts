// The person's `vigil.mcpServers` as an McpServerSource: the validated list as it is at each session open, cut down
// to what the agent's `mcpCapabilities` accept (stdio always; http and sse only when advertised), with a log line
// naming the servers an agent could not take. None at all in Restricted Mode: a server started in an untrusted folder
// runs what that folder chooses (`npx` prefers the folder's own node_modules/.bin, a relative command is the folder's).

import type { AgentCapabilities, McpServer } from '@agentclientprotocol/sdk';
import type { Logger } from '../ports/logger';
import type { McpServerSource } from './mcpServerSource';

export interface CapabilityFilter {
  accepted: McpServer[];
  /** Servers the agent cannot take, with the transport it lacks. */
  refused: Array<{ server: McpServer; transport: 'http' | 'sse' }>;
}

/** ACP: every agent takes stdio servers; http and sse only with `mcpCapabilities.http` / `.sse`. */
export function filterByCapabilities(servers: readonly McpServer[], capabilities: AgentCapabilities | undefined): CapabilityFilter {
  const accepted: McpServer[] = [];
  const refused: CapabilityFilter['refused'] = [];
  for (const server of servers) {
    const transport = 'type' in server && (server.type === 'http' || server.type === 'sse') ? server.type : undefined;
    if (!transport || capabilities?.mcpCapabilities?.[transport] === true) accepted.push(server);
    else refused.push({ server, transport });
  }
  return { accepted, refused };
}

export class McpSettingsSource implements McpServerSource {
  /** What was last logged per session, so a restarted agent with the same outcome does not repeat it. */
  private readonly logged = new Map<string, string>();

  constructor(
    /** The validated servers as they are now (the setting applies from the next agent start). */
    private readonly current: () => readonly McpServer[],
    private readonly log: Logger,
    private readonly isTrusted: () => boolean = () => true,
  ) {}

  serversFor(vigilSessionId: string, capabilities: AgentCapabilities | undefined): Promise<McpServer[]> {
    if (this.logged.size > 1_000) this.logged.clear(); // bounded: forgetting only repeats a log line
    const servers = this.current();
    if (servers.length > 0 && !this.isTrusted()) {
      if (this.logged.get(vigilSessionId) !== 'restricted') {
        this.logged.set(vigilSessionId, 'restricted');
        this.log.warn(`[mcp] session ${vigilSessionId}: Restricted Mode: vigil.mcpServers are not given to the agent, since a server started in an untrusted folder can run code the folder chose. Trust the workspace to use them.`);
      }
      return Promise.resolve([]);
    }
    const { accepted, refused } = filterByCapabilities(servers, capabilities);
    if (refused.length > 0) {
      const line = `the agent does not accept ${refused.map((r) => `"${r.server.name}" (${r.transport})`).join(', ')} from vigil.mcpServers: it does not advertise ${[...new Set(refused.map((r) => `mcpCapabilities.${r.transport}`))].join(' or ')}; it gets ${accepted.length === 0 ? 'none of the servers' : accepted.map((s) => `"${s.name}"`).join(', ')}`;
      if (this.logged.get(vigilSessionId) !== line) {
        this.logged.set(vigilSessionId, line);
        this.log.warn(`[mcp] session ${vigilSessionId}: ${line}`);
      }
    } else if (accepted.length > 0 && this.logged.get(vigilSessionId) !== 'all') {
      this.logged.set(vigilSessionId, 'all');
      this.log.info(`[mcp] session ${vigilSessionId}: offering ${accepted.map((s) => `"${s.name}"`).join(', ')} from vigil.mcpServers`);
    }
    return Promise.resolve(accepted);
  }
}
