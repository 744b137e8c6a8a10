// One MCP server of a session, as the built-in agent's MCP client: connects (stdio process or streamable HTTP / SSE)
// with a bound, lists its tools, calls them with a timeout, and explains every failure in a sentence.

import type { McpServer } from '@agentclientprotocol/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { log } from '../log';
import { nodeFetch } from '../providers/nodeFetch';
import { maxToolsPerServer, type ListedTool } from './mcpToolNames';
import { ServerProcessTransport } from './serverProcess';

const maxListPages = 10;

export class McpLink {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private closedBecause: string | undefined;

  constructor(
    readonly server: McpServer,
    private readonly cwd: string,
  ) {}

  get name(): string {
    return this.server.name;
  }

  get alive(): boolean {
    return this.client !== undefined && this.closedBecause === undefined;
  }

  /** Connects and lists the tools, all within `timeoutMs`; throws an Error whose message says what went wrong. */
  async connect(timeoutMs: number): Promise<ListedTool[]> {
    const signal = AbortSignal.timeout(timeoutMs);
    const transport = this.makeTransport();
    const client = new Client({ name: 'vigil-agent', version: '0.1.0' }, { capabilities: {} });
    this.transport = transport;
    this.client = client;
    this.closedBecause = undefined;
    client.onclose = () => {
      if (this.client !== client) return; // an earlier connection closing late says nothing about this one
      this.closedBecause = this.stopReason() ?? 'the connection closed';
      log('warn', `mcp server "${this.name}" ${this.closedBecause}`);
    };
    client.onerror = (error) => log('warn', `mcp server "${this.name}": ${error.message}`);
    try {
      await client.connect(transport, { signal, timeout: timeoutMs });
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < maxListPages && tools.length < maxToolsPerServer; page += 1) {
        const listed = await client.listTools(cursor ? { cursor } : {}, { signal, timeout: timeoutMs });
        tools.push(...listed.tools);
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
      if (tools.length > maxToolsPerServer) log('warn', `mcp server "${this.name}" offers ${tools.length} tools; the first ${maxToolsPerServer} are used`);
      return tools.slice(0, maxToolsPerServer);
    } catch (error) {
      const why = signal.aborted ? `did not answer within ${Math.round(timeoutMs / 1000)} s` : (this.stopReason() ?? `failed: ${(error as Error).message}`);
      await this.close();
      throw new Error(`${why}${this.stderr()}`);
    }
  }

  /** Calls a tool; `signal` is the turn's (cancel) and the timeout's. Throws an Error with a sentence for the model. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<{ content?: unknown; structuredContent?: unknown; isError?: unknown }> {
    const client = this.client;
    if (!client || this.closedBecause) throw new Error(`The MCP server "${this.name}" is not running (${this.closedBecause ?? 'not connected'}); its tools cannot be used in this turn.`);
    try {
      const result: Record<string, unknown> = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: timeoutMs });
      // An old server may answer in the pre-2024-11 shape `{ toolResult }`.
      return 'toolResult' in result && !('content' in result) ? { structuredContent: result.toolResult } : result;
    } catch (error) {
      if (signal.aborted && !(signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError')) throw signal.reason;
      if (signal.aborted || /timed out|timeout/i.test((error as Error).message)) {
        throw new Error(`The MCP server "${this.name}" did not answer ${tool} within ${Math.round(timeoutMs / 1000)} s; the call was abandoned. Do not retry it now.`);
      }
      const stopped = this.stopReason();
      if (stopped) throw new Error(`The MCP server "${this.name}" ${stopped} during ${tool}${this.stderr()}.`);
      throw new Error(`The MCP server "${this.name}" failed ${tool}: ${(error as Error).message.slice(0, 500)}`);
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.closedBecause ??= 'was stopped';
    await client?.close().catch((error: unknown) => log('debug', `closing mcp server "${this.name}": ${String(error)}`));
    await this.transport?.close().catch((error: unknown) => log('debug', `closing mcp transport "${this.name}": ${String(error)}`));
  }

  private makeTransport(): Transport {
    const s = this.server;
    if ('url' in s) {
      const headers = Object.fromEntries(s.headers.map((h) => [h.name, h.value]));
      const url = new URL(s.url);
      // node:http rather than Node's fetch, which needs WebAssembly (the agent runs --jitless, see nodeFetch.ts).
      const fetch = nodeFetch as unknown as typeof globalThis.fetch;
      return 'type' in s && s.type === 'sse' ? new SSEClientTransport(url, { requestInit: { headers }, fetch }) : new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch });
    }
    return new ServerProcessTransport({ command: s.command, args: s.args, env: Object.fromEntries(s.env.map((e) => [e.name, e.value])), cwd: this.cwd });
  }

  private stopReason(): string | undefined {
    return this.transport instanceof ServerProcessTransport ? this.transport.exitDescription : undefined;
  }

  /** The server's last output for the model: the values of its env and headers (secrets) masked first. */
  private stderr(): string {
    let tail = this.transport instanceof ServerProcessTransport ? this.transport.recentStderr : '';
    const secrets = [...('env' in this.server ? this.server.env : []), ...('headers' in this.server ? this.server.headers : [])].map((v) => v.value).filter((v) => v.length >= 4);
    for (const secret of secrets) tail = tail.split(secret).join('***');
    return tail ? ` (its last output: ${tail.split('\n').slice(-3).join(' | ').slice(0, 400)})` : '';
  }
}
