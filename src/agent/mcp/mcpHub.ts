// A session's MCP servers (from `session/new|load` `mcpServers`) as tools for the agent loop. Nothing starts until
// the first prompt; then all servers connect in parallel, each within a bound, so one that hangs costs that bound
// once, not a turn. A server that failed to start stays out (named to the model); one that stopped is retried once
// per prompt. Calls ask `session/request_permission` and have a timeout.

import type { McpServer, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { log } from '../log';
import type { ToolSpec } from '../providers/types';
import type { ExtraTools } from '../tools/extraTools';
import { ensurePermission } from '../tools/permission';
import { ToolError, type ToolContext, type ToolResult } from '../tools/toolContext';
import type { McpLink } from './mcpLink';
import { resultText, toolNameFor, toolSpecFor, type ListedTool } from './mcpToolNames';

/** Servers per session: more is a misconfiguration (or hostile), and each costs a process or a connection. */
const maxServers = 32;
/** Tools offered to the model from all servers together: every one costs context on every model call. */
const maxTotalTools = 200;

export interface McpHubOptions {
  connectTimeoutMs: number;
  callTimeoutMs: number;
}

interface LinkState {
  server: McpServer;
  /** Created at the first prepare: the MCP SDK is loaded only by sessions that have servers. */
  link?: McpLink;
  tools: ListedTool[];
  /** Why it is not available (start failure), for the model and the log. */
  problem?: string;
  everConnected: boolean;
}

export class McpHub {
  private readonly states: LinkState[];
  private byName = new Map<string, { state: LinkState; tool: string }>();
  private specs: ToolSpec[] = [];
  private disposed = false;

  constructor(
    servers: readonly McpServer[],
    private readonly cwd: string,
    private readonly options: McpHubOptions,
  ) {
    if (servers.length > maxServers) log('warn', `${servers.length} MCP servers were given; the first ${maxServers} are used`);
    this.states = servers.slice(0, maxServers).map((server) => ({ server, tools: [], everConnected: false }));
  }

  get isEmpty(): boolean {
    return this.states.length === 0;
  }

  /** Servers the model should know are missing, one sentence each. */
  get problems(): string[] {
    return this.states.filter((s) => s.problem).map((s) => `MCP server "${s.server.name}" ${s.problem}`);
  }

  /** Connects what needs connecting (in parallel, bounded), then returns the tools of the servers that are up. */
  async prepare(): Promise<ExtraTools> {
    const { McpLink } = await import('./mcpLink.js');
    await Promise.all(
      this.states.map(async (state) => {
        const firstTime = !state.everConnected && state.problem === undefined;
        const restart = state.everConnected && !state.link?.alive;
        if (!firstTime && !restart) return;
        const link = (state.link ??= new McpLink(state.server, this.cwd));
        try {
          state.tools = await link.connect(this.options.connectTimeoutMs);
          state.everConnected = true;
          state.problem = undefined;
          log('info', `mcp server "${link.name}" is up with ${state.tools.length} tools`);
        } catch (error) {
          state.tools = [];
          state.problem = (error as Error).message;
          log('warn', `mcp server "${link.name}" ${state.problem}`);
        }
        if (this.disposed) await link.close();
      }),
    );
    this.index();
    return this.toolbox();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all(this.states.map((s) => s.link?.close()));
  }

  private index(): void {
    const byName = new Map<string, { state: LinkState; tool: string }>();
    const specs: ToolSpec[] = [];
    let dropped = 0;
    for (const state of this.states) {
      if (!state.link?.alive) continue;
      for (const tool of state.tools) {
        if (typeof tool.name !== 'string' || tool.name.length === 0 || tool.name.length > 200) continue;
        if (specs.length >= maxTotalTools) {
          dropped += 1;
          continue;
        }
        const name = toolNameFor(state.server.name, tool.name, byName);
        byName.set(name, { state, tool: tool.name });
        specs.push(toolSpecFor(name, state.server.name, tool));
      }
    }
    if (dropped > 0) log('warn', `the MCP servers offer ${specs.length + dropped} tools; the first ${maxTotalTools} are used`);
    this.byName = byName;
    this.specs = specs;
  }

  private toolbox(): ExtraTools {
    const byName = this.byName;
    return {
      specs: this.specs,
      owns: (name) => byName.has(name),
      describe: (name) => {
        const entry = byName.get(name);
        return { title: entry ? `${entry.state.server.name}: ${entry.tool}` : name, kind: 'other' };
      },
      run: (ctx, name, rawArguments, toolCall) => this.run(ctx, name, rawArguments, toolCall),
    };
  }

  private async run(ctx: ToolContext, name: string, rawArguments: string, toolCall: ToolCallUpdate): Promise<ToolResult> {
    const entry = this.byName.get(name);
    if (!entry) return { ok: false, text: `Unknown tool "${name}".` };
    let args: unknown;
    try {
      args = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
    } catch (error) {
      return { ok: false, text: `Invalid arguments for ${name}: not valid JSON (${(error as Error).message}). Send a JSON object.` };
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return { ok: false, text: `Invalid arguments for ${name}: send a JSON object.` };
    try {
      // MCP tools can do anything: the host's policy decides (kind "other"); "allow always" covers this one tool.
      await ensurePermission(ctx, 'other', toolCall, `mcp:${name}`);
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(this.options.callTimeoutMs)]);
      const link = entry.state.link;
      if (!link) return { ok: false, text: `The MCP server "${entry.state.server.name}" is not connected.` };
      const result = await link.call(entry.tool, args as Record<string, unknown>, signal, this.options.callTimeoutMs);
      return { ok: result.isError !== true, text: resultText(result) };
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      return { ok: false, text: error instanceof ToolError ? error.message : (error as Error).message };
    }
  }
}
