// The extension host's end of Vigil's task server: a local socket only a client holding a session's secret
// can use. The first line must authenticate (else the connection is closed); every later line is one tool
// call of that session, served by TaskToolService. Closing a connection cancels its open calls. Connections
// still to authenticate are bounded in number and in time (an absolute deadline, not an idle timer).

import * as net from 'node:net';
import { errorMessage } from '../common/errors';
import { systemClock, type Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import { BRIDGE_HELLO_TIMEOUT_MS, BRIDGE_MAX_IN_FLIGHT, BRIDGE_MAX_LINE, BRIDGE_MAX_PENDING, callSchema, helloSchema, type BridgeReply } from '../../../shared/taskBridgeProtocol';
import { readLines, writeLine } from './lineChannel';
import type { SessionSecrets } from './sessionSecrets';
import type { TaskToolService } from './taskToolService';

export interface TaskBridgeOptions {
  socketPath: string;
  secrets: SessionSecrets;
  service: TaskToolService;
  logger: Logger;
  /** Time a client has to authenticate (default BRIDGE_HELLO_TIMEOUT_MS). */
  helloTimeoutMs?: number;
  /** Connections awaiting their hello at once (default BRIDGE_MAX_PENDING). */
  maxPending?: number;
  clock?: Clock;
}

export class TaskBridgeServer {
  private readonly sockets = new Set<net.Socket>();
  /** Connections still to authenticate, oldest first (a Set keeps insertion order). */
  private readonly pending = new Set<net.Socket>();
  private closed = false;

  private constructor(
    private readonly server: net.Server,
    private readonly o: TaskBridgeOptions,
  ) {}

  static async listen(o: TaskBridgeOptions): Promise<TaskBridgeServer> {
    const server = net.createServer();
    const bridge = new TaskBridgeServer(server, o);
    server.on('connection', (socket) => bridge.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error) => o.logger.error(`task bridge: ${errorMessage(error)}`));
    return bridge;
  }

  get socketPath(): string {
    return this.o.socketPath;
  }


  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const done = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await done;
  }

  private accept(socket: net.Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    this.admitPending(socket);
    const abort = new AbortController();
    let sessionId: string | undefined;
    let inFlight = 0;
    // Absolute: a client that trickles a byte now and then still has this long in all to authenticate.
    const deadline = (this.o.clock ?? systemClock).setTimer(this.o.helloTimeoutMs ?? BRIDGE_HELLO_TIMEOUT_MS, () => socket.destroy());
    socket.on('close', () => {
      deadline.cancel();
      this.pending.delete(socket);
      this.sockets.delete(socket);
      // The program (or its agent) is gone: a question still open for one of its calls is cancelled.
      abort.abort();
    });
    socket.on('error', (error) => this.o.logger.debug(`task bridge connection: ${errorMessage(error)}`));
    const deny = (reason: string) => {
      writeLine(socket, { t: 'denied', reason } satisfies BridgeReply);
      socket.end(() => socket.destroy());
    };
    readLines(socket, BRIDGE_MAX_LINE, (line) => {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        socket.destroy();
        return;
      }
      if (sessionId === undefined) {
        const hello = helloSchema.safeParse(message);
        // The secret is neither logged nor echoed; which session asked is.
        if (!hello.success || !this.o.secrets.verify(hello.data.session, hello.data.secret)) {
          this.o.logger.warn(`task bridge: refused a connection${hello.success ? ` for session ${hello.data.session}` : ''} (wrong or missing secret)`);
          deny('The secret does not match: this task server belongs to an earlier window or another session. Restart the agent.');
          return;
        }
        sessionId = hello.data.session;
        deadline.cancel();
        this.pending.delete(socket);
        writeLine(socket, { t: 'welcome' } satisfies BridgeReply);
        return;
      }
      const call = callSchema.safeParse(message);
      if (!call.success) {
        socket.destroy();
        return;
      }
      if (inFlight >= BRIDGE_MAX_IN_FLIGHT) {
        writeLine(socket, { t: 'result', id: call.data.id, result: { text: `Too many calls at once (at most ${BRIDGE_MAX_IN_FLIGHT}); wait for one to finish.`, isError: true } } satisfies BridgeReply);
        return;
      }
      inFlight += 1;
      const owner = sessionId;
      void this.o.service
        .call(owner, call.data.tool, call.data.args, abort.signal)
        .then((result) => writeLine(socket, { t: 'result', id: call.data.id, result } satisfies BridgeReply))
        .finally(() => (inFlight -= 1));
    }, () => socket.destroy());
  }

  /** Counts a new connection as pending; beyond the bound the oldest pending one goes (a real client says hello at once). */
  private admitPending(socket: net.Socket): void {
    this.pending.add(socket);
    if (this.pending.size <= (this.o.maxPending ?? BRIDGE_MAX_PENDING)) return;
    const oldest = this.pending.values().next().value as net.Socket;
    this.pending.delete(oldest);
    oldest.destroy();
    this.o.logger.debug('task bridge: too many connections awaiting their hello; closed the oldest');
  }
}
