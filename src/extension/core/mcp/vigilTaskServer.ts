// Vigil's task server as a whole: the secrets, the socket bridge, the HTTP endpoint (started when an agent
// needs it) and the McpServerSource that puts the right entry into each session's `mcpServers`.

import type { AgentCapabilities, McpServer } from '@agentclientprotocol/sdk';
import type { McpServerSource } from '../acp/mcpServerSource';
import type { Logger } from '../ports/logger';
import { TASK_SECRET_ENV, TASK_SESSION_ENV, TASK_SOCKET_ENV } from '../../../shared/taskBridgeProtocol';
import { TASK_SERVER_NAME } from '../../../shared/taskTools';
import { placeSocket, removeSocketPlace } from './socketPlace';
import type { SessionSecrets } from './sessionSecrets';
import { TaskBridgeServer } from './taskBridgeServer';
import { TaskHttpServer } from './taskHttpServer';
import { chooseTaskServer, type TaskServerChoice } from './taskServerChoice';
import { TaskToolService, type TaskToolDeps } from './taskToolService';

export interface TaskServerOptions extends TaskToolDeps {
  storageRoot: string;
  /** This window's task server name (random, stable while the extension host lives) and its secrets. */
  identity: { name: string; secrets: SessionSecrets };
  /** How the agent starts the stdio program: Vigil's own Node (`ELECTRON_RUN_AS_NODE`) and dist/taskServer.js. */
  program: { command: string; args: string[] };
  /** `vigil.tasks.offerToAgents`, read at each agent start. */
  offer(): boolean;
  /** The agent the session's next process is (read at each agent start). */
  agentOf(sessionId: string): { builtin: boolean; command?: string } | undefined;
  /** A session's choice changed (the header may now say wakeups are unavailable). */
  onChoice?(sessionId: string): void;
  /** Learns each session's secret, so an agent that echoes its MCP configuration cannot show or log it. */
  secretGiven?(secret: string): void;
  logger: Logger;
}

export class VigilTaskServer implements McpServerSource {
  private http: Promise<TaskHttpServer> | undefined;
  private readonly choices = new Map<string, TaskServerChoice>();
  private closed = false;

  private constructor(
    private readonly o: TaskServerOptions,
    private readonly service: TaskToolService,
    private readonly bridge: TaskBridgeServer,
  ) {}

  static async start(o: TaskServerOptions): Promise<VigilTaskServer> {
    const service = new TaskToolService(o);
    const socketPath = await placeSocket(o.storageRoot, o.identity.name);
    const bridge = await TaskBridgeServer.listen({ socketPath, secrets: o.identity.secrets, service, logger: o.logger });
    o.logger.info(`task server listening (${process.platform === 'win32' ? 'pipe' : 'socket'} ${socketPath})`);
    return new VigilTaskServer(o, service, bridge);
  }

  get socketPath(): string {
    return this.bridge.socketPath;
  }

  async serversFor(sessionId: string, capabilities: AgentCapabilities | undefined): Promise<McpServer[]> {
    const agent = this.o.agentOf(sessionId);
    const choice = chooseTaskServer({ offer: this.o.offer(), builtin: agent?.builtin ?? false, agentCommand: agent?.command, capabilities });
    this.record(sessionId, choice);
    const secret = this.o.identity.secrets.secretFor(sessionId);
    this.o.secretGiven?.(secret);
    switch (choice.kind) {
      case 'stdio':
        return [
          {
            name: TASK_SERVER_NAME,
            command: this.o.program.command,
            args: this.o.program.args,
            env: [
              { name: 'ELECTRON_RUN_AS_NODE', value: '1' },
              { name: TASK_SOCKET_ENV, value: this.bridge.socketPath },
              { name: TASK_SESSION_ENV, value: sessionId },
              { name: TASK_SECRET_ENV, value: secret },
            ],
          },
        ];
      case 'http': {
        const http = await this.httpServer();
        return [{ type: 'http', name: TASK_SERVER_NAME, url: http.urlFor(sessionId), headers: [{ name: 'Authorization', value: `Bearer ${secret}` }] }];
      }
      default:
        return [];
    }
  }

  /** Why background wakeups are unavailable for the session's agent as last started; undefined when they work. */
  unavailable(sessionId: string): string | undefined {
    const choice = this.choices.get(sessionId);
    return choice?.kind === 'none' ? choice.reason : undefined;
  }


  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const http = this.http;
    await Promise.all([this.bridge.close(), http?.then((h) => h.close(), () => undefined)]);
    await removeSocketPlace(this.bridge.socketPath);
  }

  private httpServer(): Promise<TaskHttpServer> {
    this.http ??= TaskHttpServer.listen({ secrets: this.o.identity.secrets, service: this.service, logger: this.o.logger }).catch((error: unknown) => {
      this.http = undefined;
      throw error;
    });
    return this.http;
  }

  private record(sessionId: string, choice: TaskServerChoice): void {
    const before = this.choices.get(sessionId);
    this.choices.set(sessionId, choice);
    if (before?.kind !== choice.kind) this.o.onChoice?.(sessionId);
  }
}
