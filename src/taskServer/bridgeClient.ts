// The task server program's end of the bridge: connects on first use, authenticates with the session's
// secret, and reconnects when the extension host's bridge restarted. A call whose connection dropped after
// it was sent is not repeated (it may have started a command): the model is told to check list_background.

import * as net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { BRIDGE_MAX_LINE, replySchema, type BridgeReply } from '../shared/taskBridgeProtocol';
import type { TaskToolResult } from '../shared/taskTools';

export interface BridgeAddress {
  socketPath: string;
  sessionId: string;
  secret: string;
}

interface Connection {
  socket: net.Socket;
  pending: Map<number, (result: TaskToolResult) => void>;
}

export class BridgeClient {
  private connection: Promise<Connection> | undefined;
  private nextId = 1;

  constructor(
    private readonly address: BridgeAddress,
    /** Waits before the connection attempts after the first (the bridge restarting with the window's services). */
    private readonly retryDelaysMs: readonly number[] = [200, 1_000, 3_000],
  ) {}

  async call(tool: string, args: unknown): Promise<TaskToolResult> {
    let connection: Connection;
    try {
      connection = await this.connect();
    } catch (error) {
      return { text: `Vigil's task server is not reachable: ${(error as Error).message}`, isError: true };
    }
    const id = this.nextId++;
    return new Promise<TaskToolResult>((resolve) => {
      connection.pending.set(id, resolve);
      connection.socket.write(`${JSON.stringify({ t: 'call', id, tool, args: args ?? {} })}\n`);
    });
  }

  close(): void {
    void this.connection?.then((c) => c.socket.destroy(), () => undefined);
    this.connection = undefined;
  }

  private connect(): Promise<Connection> {
    this.connection ??= this.open().catch((error: unknown) => {
      this.connection = undefined;
      throw error;
    });
    return this.connection;
  }

  private async open(): Promise<Connection> {
    let lastError: Error | undefined;
    for (let attempt = 0; attempt <= this.retryDelaysMs.length; attempt += 1) {
      if (attempt > 0) await delay(this.retryDelaysMs[attempt - 1]);
      try {
        return await this.openOnce();
      } catch (error) {
        lastError = error as Error;
        // A refusal is final: retrying the same secret cannot succeed.
        if ((error as { denied?: boolean }).denied) throw error;
      }
    }
    throw lastError ?? new Error('could not connect');
  }

  private openOnce(): Promise<Connection> {
    return new Promise<Connection>((resolve, reject) => {
      const socket = net.createConnection(this.address.socketPath);
      const connection: Connection = { socket, pending: new Map() };
      let welcomed = false;
      let buffered = '';
      socket.setEncoding('utf8');
      socket.once('connect', () => socket.write(`${JSON.stringify({ t: 'hello', session: this.address.sessionId, secret: this.address.secret })}\n`));
      socket.on('data', (chunk: string) => {
        buffered += chunk;
        if (buffered.length > BRIDGE_MAX_LINE) socket.destroy(new Error('the bridge sent an over-long line'));
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          const parsed = safeReply(line);
          if (!parsed) continue;
          if (parsed.t === 'welcome') {
            welcomed = true;
            resolve(connection);
          } else if (parsed.t === 'denied') {
            reject(Object.assign(new Error(parsed.reason), { denied: true }));
          } else {
            const done = connection.pending.get(parsed.id);
            connection.pending.delete(parsed.id);
            done?.(parsed.result);
          }
        }
      });
      socket.on('error', (error) => {
        if (!welcomed) reject(error);
      });
      socket.on('close', () => {
        if (!welcomed) reject(new Error('the bridge closed the connection'));
        if (this.connection && welcomed) this.connection = undefined;
        for (const done of connection.pending.values()) {
          done({ text: 'The connection to Vigil was lost before this call was answered. If it started a command, list_background shows whether it is running; do not start it twice.', isError: true });
        }
        connection.pending.clear();
      });
    });
  }
}

function safeReply(line: string): BridgeReply | undefined {
  try {
    const parsed = replySchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
