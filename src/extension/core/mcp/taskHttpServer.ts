// Vigil's task tools over streamable HTTP, for agents that take only HTTP MCP servers (GitHub Copilot CLI
// rejects client stdio servers): 127.0.0.1 only, one URL per session, its secret as the bearer token.
// Stateless: each POST gets a fresh MCP server bound to the authenticated session, and carries one message:
// a JSON-RPC batch (dropped from MCP in 2025-06-18) would start as many calls as it holds at once.
// Any local process (any user's) can connect to the port: connections that have not yet shown the token are
// bounded in number and in time (an absolute deadline), as on the socket bridge, so idle or half-sent requests
// cannot pile up until the extension host runs out of file handles.

import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { errorMessage } from '../common/errors';
import { systemClock, type Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import { BRIDGE_HELLO_TIMEOUT_MS, BRIDGE_MAX_IN_FLIGHT, BRIDGE_MAX_LINE, BRIDGE_MAX_PENDING } from '../../../shared/taskBridgeProtocol';
import { registerTaskTools, TASK_SERVER_NAME, type ToolRegistrar } from '../../../shared/taskTools';
import type { SessionSecrets } from './sessionSecrets';
import type { TaskToolService } from './taskToolService';

const PATH_PREFIX = '/mcp/';

export interface TaskHttpOptions {
  secrets: SessionSecrets;
  service: TaskToolService;
  logger: Logger;
  /** Time a connection has to send a request with the right token (default BRIDGE_HELLO_TIMEOUT_MS). */
  helloTimeoutMs?: number;
  /** Connections without a valid token yet, at once (default BRIDGE_MAX_PENDING); beyond it the oldest is closed. */
  maxPending?: number;
  /** Requests of one session open at once (default BRIDGE_MAX_IN_FLIGHT, as per bridge connection); more are refused. */
  maxInFlight?: number;
  clock?: Clock;
}

interface Handling extends TaskHttpOptions {
  /** The connection showed a session's token: no longer pending. */
  admit(socket: Socket): void;
  /** Requests open per session, from their token to their response's end. */
  inFlight: Map<string, number>;
}

export class TaskHttpServer {
  private constructor(
    private readonly server: http.Server,
    readonly port: number,
  ) {}

  static async listen(o: TaskHttpOptions): Promise<TaskHttpServer> {
    const pending = new PendingConnections(o);
    const handling: Handling = { ...o, admit: (socket) => pending.admit(socket), inFlight: new Map() };
    const server = http.createServer((req, res) => {
      handle(req, res, handling).catch((error: unknown) => {
        o.logger.warn(`task HTTP server: ${errorMessage(error)}`);
        if (!res.headersSent) reply(res, 500, 'internal error');
      });
    });
    server.on('connection', (socket: Socket) => pending.add(socket));
    server.headersTimeout = 10_000;
    server.requestTimeout = 0; // a tool call may wait on the person's approval
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return new TaskHttpServer(server, (server.address() as AddressInfo).port);
  }

  urlFor(sessionId: string): string {
    return `http://127.0.0.1:${this.port}${PATH_PREFIX}${encodeURIComponent(sessionId)}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Connections that have not shown a valid token, oldest first: each is closed at its deadline however it trickles
 * bytes (Node's own header timeout did not close a connection that sent nothing, or half a request and then stopped),
 * and beyond the bound the oldest goes (a real client sends its request at once).
 */
class PendingConnections {
  private readonly sockets = new Map<Socket, { cancel(): void }>();

  constructor(private readonly o: TaskHttpOptions) {}

  add(socket: Socket): void {
    const deadline = (this.o.clock ?? systemClock).setTimer(this.o.helloTimeoutMs ?? BRIDGE_HELLO_TIMEOUT_MS, () => socket.destroy());
    this.sockets.set(socket, deadline);
    socket.once('close', () => this.admit(socket));
    if (this.sockets.size <= (this.o.maxPending ?? BRIDGE_MAX_PENDING)) return;
    const [oldest] = this.sockets.keys();
    this.admit(oldest!);
    oldest!.destroy();
    this.o.logger.debug('task HTTP server: too many connections without a token; closed the oldest');
  }

  admit(socket: Socket): void {
    this.sockets.get(socket)?.cancel();
    this.sockets.delete(socket);
  }
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, o: Handling): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (!url.pathname.startsWith(PATH_PREFIX)) return reply(res, 404, 'not found');
  let sessionId: string;
  try {
    sessionId = decodeURIComponent(url.pathname.slice(PATH_PREFIX.length));
  } catch {
    return reply(res, 404, 'not found');
  }
  // A browser page cannot reach this (no bearer token), and a request a page makes carries an Origin: refuse those too.
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (!token || !o.secrets.verify(sessionId, token) || req.headers.origin !== undefined) {
    o.logger.warn(`task HTTP server: refused a request${sessionId ? ` for session ${sessionId.slice(0, 100)}` : ''} (wrong or missing token)`);
    return reply(res, 401, 'unauthorized');
  }
  o.admit(req.socket);
  if (req.method !== 'POST') return reply(res, 405, 'only POST is served (stateless server)');
  // Bounded before the body is read: each open request may hold up to a MiB of it.
  const max = o.maxInFlight ?? BRIDGE_MAX_IN_FLIGHT;
  const open = o.inFlight.get(sessionId) ?? 0;
  if (open >= max) {
    const error = { code: -32000, message: `Too many calls at once (at most ${max}); wait for one to finish.` };
    res.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error }));
    return;
  }
  o.inFlight.set(sessionId, open + 1);
  res.once('close', () => {
    const left = (o.inFlight.get(sessionId) ?? 1) - 1;
    if (left > 0) o.inFlight.set(sessionId, left);
    else o.inFlight.delete(sessionId);
  });
  const body = await readBody(req);
  if (body === undefined) return reply(res, 413, 'request too large');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return reply(res, 400, 'the body is not JSON');
  }
  if (Array.isArray(parsed)) {
    const error = { code: -32600, message: 'JSON-RPC batches are not accepted: send one message per request.' };
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error }));
    return;
  }
  const server = new McpServer({ name: TASK_SERVER_NAME, version: '1.0.0' }, { capabilities: { tools: {} } });
  registerTaskTools(server as unknown as ToolRegistrar, (tool, args, signal) => o.service.call(sessionId, tool, args, signal));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, parsed);
}

function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BRIDGE_MAX_LINE) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function reply(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}
