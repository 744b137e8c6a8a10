// Vigil's MCP task server program (dist/taskServer.js): an MCP server over stdio that the agent starts
// from the `mcpServers` Vigil gave it, bridging each tool call to the extension host's task registry.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { TASK_SECRET_ENV, TASK_SESSION_ENV, TASK_SOCKET_ENV } from '../shared/taskBridgeProtocol';
import { registerTaskTools, TASK_SERVER_NAME, type ToolRegistrar } from '../shared/taskTools';
import { BridgeClient } from './bridgeClient';

async function main(): Promise<void> {
  const socketPath = process.env[TASK_SOCKET_ENV];
  const sessionId = process.env[TASK_SESSION_ENV];
  const secret = process.env[TASK_SECRET_ENV];
  if (!socketPath || !sessionId || !secret) {
    process.stderr.write(`vigil-tasks: ${TASK_SOCKET_ENV}, ${TASK_SESSION_ENV} and ${TASK_SECRET_ENV} must be set; this program is started by Vigil for its agents.\n`);
    process.exit(2);
  }
  // The secret is not left where a child of this process (or a crash dump of the env) would find it.
  delete process.env[TASK_SECRET_ENV];
  const bridge = new BridgeClient({ socketPath, sessionId, secret });
  const server = new McpServer({ name: TASK_SERVER_NAME, version: '1.0.0' }, { capabilities: { tools: {} } });
  registerTaskTools(server as unknown as ToolRegistrar, (tool, args) => bridge.call(tool, args));
  const transport = new StdioServerTransport();
  transport.onclose = () => {
    bridge.close();
    process.exit(0);
  };
  process.stdin.on('end', () => {
    bridge.close();
    process.exit(0);
  });
  await server.connect(transport);
}

main().catch((error: unknown) => {
  process.stderr.write(`vigil-tasks: ${(error as Error).message}\n`);
  process.exit(1);
});
