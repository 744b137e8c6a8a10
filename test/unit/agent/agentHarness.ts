// Drives the real built-in agent process over real stdio with the ACP SDK's client side; the client
// serves files from a temp workspace and terminals from a FakeTerminalHost, and records every update.

import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, ndJsonStream, type ClientConnection, type InitializeResponse, type McpServer, type PromptResponse, type SessionUpdate } from '@agentclientprotocol/sdk';
import { FakeTerminalHost } from '../../fakes/fakeTerminalHost';
import { builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { configEnvVar } from '../../../src/shared/agentProtocol/agentConfig';
import { ensureAgentBundle } from './agentBundle';

export type PermissionMode = 'allow' | 'reject' | 'never';

export class AgentUnderTest {
  readonly updates: SessionUpdate[] = [];
  readonly requests: string[] = [];
  /** `_vigil/provider/retry` notifications, in order (only when the client advertised the method). */
  readonly retries: Array<Record<string, unknown>> = [];
  readonly terminals = new FakeTerminalHost();
  stderr = '';
  permission: PermissionMode = 'allow';
  sessionId = '';
  initializeResponse: InitializeResponse | undefined;
  /** The answer to session/new or session/load (its options and modes). */
  sessionResponse: Record<string, unknown> | undefined;
  private child!: ChildProcess;
  private conn!: ClientConnection;
  private waiters: Array<() => void> = [];

  constructor(readonly workspace: string) {}

  /**
   * `vigilMethods`: what the client advertises in `clientCapabilities._meta.vigil` (default: the `_vigil/fs/list` it
   * serves and background terminals, like Vigil's host); `null` advertises nothing, like a plain ACP client.
   */
  static async start(
    config: Record<string, unknown>,
    options: { apiKey?: string; files?: Record<string, string>; load?: { sessionId: string; history: unknown[] }; vigilMethods?: string[] | null; mcpServers?: McpServer[] } = {},
  ): Promise<AgentUnderTest> {
    const bundle = await ensureAgentBundle();
    const workspace = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-agent-ws-'));
    for (const [name, content] of Object.entries(options.files ?? {})) {
      await fs.mkdir(path.dirname(path.join(workspace, name)), { recursive: true });
      await fs.writeFile(path.join(workspace, name), content);
    }
    const a = new AgentUnderTest(workspace);
    // Launched as the host launches it (command, node flags, environment); only the configuration is the test's
    // own, since it sets fields (timeouts, scripts) that the settings do not carry.
    const launch = builtinLaunch({ agentScript: bundle, execPath: process.execPath, model: { provider: 'demo' }, apiKey: options.apiKey });
    const env: NodeJS.ProcessEnv = { ...launch.env, [configEnvVar]: JSON.stringify(config) };
    a.child = spawn(launch.command, launch.args, { cwd: workspace, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    a.child.stderr!.on('data', (d: Buffer) => (a.stderr += d.toString()));
    a.conn = a.buildClient().connect(
      ndJsonStream(Writable.toWeb(a.child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(a.child.stdout!) as unknown as ReadableStream<Uint8Array>),
    );
    const vigil = options.vigilMethods === null ? undefined : { methods: options.vigilMethods ?? ['_vigil/fs/list'], features: ['terminal.background'] };
    a.initializeResponse = await a.conn.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, ...(vigil ? { _meta: { vigil } } : {}) },
    });
    const mcpServers = options.mcpServers ?? [];
    if (options.load) {
      a.sessionResponse = (await a.conn.agent.request('session/load', { sessionId: options.load.sessionId, cwd: workspace, mcpServers, _meta: { vigil: { history: options.load.history } } })) as Record<string, unknown>;
      a.sessionId = options.load.sessionId;
    } else {
      const s = await a.conn.agent.request('session/new', { cwd: workspace, mcpServers });
      a.sessionResponse = s as Record<string, unknown>;
      a.sessionId = s.sessionId;
    }
    return a;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  prompt(text: string): Promise<PromptResponse> {
    return this.conn.agent.request('session/prompt', { sessionId: this.sessionId, prompt: [{ type: 'text', text }] });
  }

  /** Any other request, as a client would send it. */
  request<M extends 'session/close' | 'session/new' | 'session/set_config_option' | 'session/set_mode'>(method: M, params: Parameters<ClientConnection['agent']['request']>[1]): Promise<unknown> {
    return this.conn.agent.request(method, params as never);
  }

  cancel(): Promise<void> {
    return this.conn.agent.notify('session/cancel', { sessionId: this.sessionId });
  }

  text(): string {
    return this.updates.map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '')).join('');
  }

  /** Waits, event-driven, until an update satisfies `test` (generous real-time bound). */
  async waitForUpdate(test: (u: SessionUpdate) => boolean, what: string, ms = 15_000): Promise<SessionUpdate> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.updates.find(test);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 250);
      });
    }
  }

  async stop(): Promise<void> {
    this.conn.close();
    await this.terminals.killAll();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      try {
        process.kill(-this.child.pid!, 'SIGKILL');
      } catch (error) {
        void error; // exited on its own meanwhile
      }
      await exited;
    }
    await fs.rm(this.workspace, { recursive: true, force: true });
  }

  private buildClient() {
    return client({ name: 'test-client' })
      .onNotification('session/update', ({ params }) => {
        this.updates.push(params.update);
        for (const w of this.waiters.splice(0)) w();
      })
      .onRequest('session/request_permission', async ({ params, signal }) => {
        this.requests.push(`permission ${params.toolCall.title}`);
        if (this.permission === 'never') {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          return { outcome: { outcome: 'cancelled' as const } };
        }
        const kind = this.permission === 'allow' ? 'allow_once' : 'reject_once';
        return { outcome: { outcome: 'selected' as const, optionId: params.options.find((o) => o.kind === kind)!.optionId } };
      })
      .onRequest('fs/read_text_file', async ({ params }) => {
        this.requests.push(`read ${path.relative(this.workspace, params.path)}`);
        return { content: await fs.readFile(params.path, 'utf8') };
      })
      .onRequest('fs/write_text_file', async ({ params }) => {
        this.requests.push(`write ${path.relative(this.workspace, params.path)}`);
        await fs.writeFile(params.path, params.content);
        return {};
      })
      .onRequest('terminal/create', async ({ params }) => {
        const meta = (params._meta as { vigil?: { background?: boolean } } | undefined)?.vigil;
        this.requests.push(`terminal ${params.command} ${(params.args ?? []).join(' ')}${meta?.background ? ' (background)' : ''}`);
        return this.terminals.create({ sessionId: params.sessionId, command: params.command, args: params.args, cwd: params.cwd ?? undefined, background: meta?.background });
      })
      .onRequest('terminal/output', async ({ params }) => {
        const o = await this.terminals.output(params.terminalId);
        return { output: o.output, truncated: o.truncated, exitStatus: o.exitStatus ?? undefined };
      })
      .onRequest('terminal/wait_for_exit', ({ params }) => this.terminals.waitForExit(params.terminalId))
      .onRequest('terminal/kill', async ({ params }) => {
        await this.terminals.kill(params.terminalId);
        return {};
      })
      .onRequest('terminal/release', async ({ params }) => {
        await this.terminals.release(params.terminalId);
        return {};
      })
      .onNotification('_vigil/provider/retry', (p: unknown) => p as Record<string, unknown>, ({ params }) => {
        this.retries.push(params);
      })
      .onRequest('_vigil/fs/list', (p: unknown) => p as { path: string }, async ({ params }) => {
        this.requests.push(`list ${path.relative(this.workspace, params.path) || '.'}`);
        return { entries: (await fs.readdir(params.path)).sort(), truncated: false };
      });
  }
}
