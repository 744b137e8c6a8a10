// Vigil's task server over a temporary storage root and a real registry, with MCP clients of the real stdio
// program (as an agent would start it) and raw bridge sockets for the authentication tests.

import * as net from 'node:net';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpServerStdio } from '@agentclientprotocol/sdk';
import type { ClientOp } from '../../src/extension/core/acp/clientGrants';
import type { ClientOpVerdict } from '../../src/extension/core/acp/permissionGate';
import { SessionSecrets } from '../../src/extension/core/mcp/sessionSecrets';
import { VigilTaskServer, type TaskServerOptions } from '../../src/extension/core/mcp/vigilTaskServer';
import type { Logger } from '../../src/extension/core/ports/logger';
import type { TaskRegistryOptions } from '../../src/extension/core/tasks/taskRegistry';
import { openRegistry, type OpenedRegistry } from './taskHarness';

/** The compiled program (tsc's output next to this file), run the way Vigil's McpServer entry runs dist/taskServer.js. */
export const taskServerProgram = path.resolve(__dirname, '../../src/taskServer/main.js');

export interface LoggedLine {
  level: string;
  text: string;
}

export function recordingLogger(lines: LoggedLine[]): Logger {
  const log = (level: string) => (message: string, ...args: unknown[]) => lines.push({ level, text: [message, ...args.map(String)].join(' ') });
  return { trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

export interface OpenedTaskServer {
  server: VigilTaskServer;
  tasks: OpenedRegistry;
  identity: { name: string; secrets: SessionSecrets };
  workspace: string;
  ops: Array<{ sessionId: string; op: ClientOp }>;
  logged: LoggedLine[];
  /** The verdict the approval policy gives next (default: allowed). */
  verdict: (sessionId: string, op: ClientOp) => ClientOpVerdict | Promise<ClientOpVerdict>;
  close(): Promise<void>;
}

export async function openTaskServer(
  root: string,
  o: { identity?: { name: string; secrets: SessionSecrets }; registry?: Partial<TaskRegistryOptions>; server?: Partial<TaskServerOptions> } = {},
): Promise<OpenedTaskServer> {
  const tasks = await openRegistry(root, o.registry);
  const identity = o.identity ?? { name: `t${Math.random().toString(16).slice(2, 10)}`, secrets: SessionSecrets.generate() };
  const logged: LoggedLine[] = [];
  const opened: OpenedTaskServer = {
    tasks,
    identity,
    workspace: path.join(root, 'workspace'),
    ops: [],
    logged,
    verdict: () => ({ allowed: true }),
    server: undefined as unknown as VigilTaskServer,
    close: async () => {
      await opened.server.close();
      await tasks.registry.close();
    },
  };
  opened.server = await VigilTaskServer.start({
    storageRoot: root,
    identity,
    program: { command: process.execPath, args: [taskServerProgram] },
    offer: () => true,
    agentOf: () => ({ builtin: false, command: 'some-agent --acp' }),
    registry: () => tasks.registry,
    workspaceRoot: async () => opened.workspace,
    authorize: async (sessionId, op) => {
      opened.ops.push({ sessionId, op });
      return opened.verdict(sessionId, op);
    },
    logger: recordingLogger(logged),
    ...o.server,
  });
  return opened;
}

/** An MCP client of the real stdio program, started from the entry the server gives an agent for `sessionId`. */
export async function connectMcpClient(server: VigilTaskServer, sessionId: string): Promise<Client & { stderr: () => string }> {
  const [entry] = (await server.serversFor(sessionId, undefined)) as McpServerStdio[];
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  for (const { name, value } of entry.env) env[name] = value;
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'vigil-test-agent', version: '1.0.0' });
  await client.connect(transport);
  return Object.assign(client, { stderr: () => stderr });
}

/** The text of a tool result, and whether it is an error. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  return { text: content.map((c) => c.text ?? '').join(''), isError: result.isError === true };
}

export function taskIdIn(text: string): string {
  const id = /\bt-[0-9a-f]{8}\b/.exec(text)?.[0];
  if (!id) throw new Error(`no task id in: ${text}`);
  return id;
}

/** A raw bridge connection: send lines, read replies as they come, see when it closes. */
export class RawBridge {
  readonly replies: unknown[] = [];
  closed = false;
  private readonly socket: net.Socket;
  private buffered = '';
  private waiters: Array<() => void> = [];

  constructor(socketPath: string) {
    this.socket = net.createConnection(socketPath);
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      let i: number;
      while ((i = this.buffered.indexOf('\n')) >= 0) {
        this.replies.push(JSON.parse(this.buffered.slice(0, i)));
        this.buffered = this.buffered.slice(i + 1);
      }
      this.wake();
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  send(message: unknown): void {
    this.socket.write(typeof message === 'string' ? message : `${JSON.stringify(message)}\n`);
  }

  /** Resolves once `predicate` holds (checked at each reply and at close). */
  async until(predicate: () => boolean): Promise<void> {
    while (!predicate()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
