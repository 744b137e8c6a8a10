// The built-in agent as an ACP agent app: initialize, session/new|load (history from the host), prompt, cancel, close.
// No session/resume: its sessions live only in its process and the host owns their history, so a fresh
// process gets it in session/new's `_meta` (a resume would be the same request under another name).

import { randomUUID } from 'node:crypto';
import { agent, RequestError, type AgentApp, type AgentContext, type SessionUpdate } from '@agentclientprotocol/sdk';
import type { AgentConfig } from './config';
import type { HostChannel } from './hostChannel';
import { IdleMemory } from './idleMemory';
import { log } from './log';
import { McpHub } from './mcp/mcpHub';
import { configuredModel } from './modelList';
import { OptionRequests } from './optionRequests';
import { providerTakesImages, userMessageOf } from './promptMessage';
import { createProvider } from './providers/createProvider';
import { demoLabel } from './providers/demoProvider';
import { ProviderError } from './providers/providerError';
import type { ChatMessage, ModelProvider } from './providers/types';
import { runPromptTurn } from './promptTurn';
import { AgentSession } from './session';
import { lmChunkParams, sessionMeta, vigilMethods, type LmChunkParams } from '../shared/agentProtocol/vigilMethods';
import { agentFeatures, offers, readVigilExtensions, type VigilExtensions } from '../shared/vigilExtensions';

/** JSON-RPC error code for a provider failure; `data.vigil.code` says which. */
export const providerErrorCode = -32050;

export function createAgentApp(config: AgentConfig): AgentApp {
  const agentState = new BuiltinAgent(config);
  const app = agent({ name: 'vigil-agent' });
  app.onRequest('initialize', ({ params }) => agentState.initialize(params.clientCapabilities?._meta));
  agentState.options.serve(app);
  app.onRequest('session/new', ({ params, client }) => {
    const session = agentState.open(randomUUID(), params);
    return { sessionId: session.id, ...agentState.options.offer(session, client) };
  });
  app.onRequest('session/load', async ({ params, client }) => {
    const session = agentState.open(params.sessionId, params);
    for (const update of replay(session.history)) {
      await client.notify('session/update', { sessionId: session.id, update });
    }
    return agentState.options.offer(session, client);
  });
  app.onNotification('session/cancel', ({ params }) => agentState.cancel(params.sessionId));
  app.onRequest('session/close', async ({ params }) => {
    await agentState.close(params.sessionId);
    return {};
  });
  app.onNotification(vigilMethods.lmChunk, (p: unknown) => lmChunkParams.parse(p), ({ params }) => agentState.lmChunk(params));
  app.onRequest('session/prompt', ({ params, client }) => agentState.prompt(params.sessionId, params.prompt, client));
  return app;
}

type SessionParams = { cwd: string; mcpServers: ConstructorParameters<typeof McpHub>[0]; _meta?: unknown };

/** What the built-in agent keeps between requests: its sessions, their models' providers, the client's offer. */
class BuiltinAgent {
  private readonly sessions = new Map<string, AgentSession>();
  private readonly lmListeners = new Map<string, (event: LmChunkParams['event']) => void>();
  /** One provider per model a session chose (most processes serve one session with one model). */
  private readonly providers = new Map<string, Promise<ModelProvider>>();
  private readonly idleMemory = new IdleMemory();
  /** What the client advertised in `initialize`: `_vigil/*` methods are called only when listed here. */
  private clientExtensions: VigilExtensions = { methods: [], features: [] };
  readonly options: OptionRequests;

  constructor(private readonly config: AgentConfig) {
    this.options = new OptionRequests(config, { sessionOf: (id) => this.sessionOf(id), isOpen: (session) => this.sessions.get(session.id) === session, hostFor: (client) => this.hostFor(client) });
  }

  initialize(clientMeta: unknown) {
    const { config } = this;
    this.clientExtensions = readVigilExtensions(clientMeta);
    const advertised: VigilExtensions = { methods: [vigilMethods.lmChunk], features: Object.values(agentFeatures) };
    return {
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: providerTakesImages(config.provider), audio: false, embeddedContext: true },
        // Stdio servers are always taken (ACP); HTTP ones too: the agent is an MCP client of both (mcp/).
        mcpCapabilities: { http: true, sse: true },
        // No resume: a session lives only in this process and the host owns its history (see the header).
        sessionCapabilities: { close: {} },
      },
      agentInfo: { name: 'vigil-agent', title: config.provider === 'demo' && !config.scriptPath ? demoLabel : 'Vigil agent', version: '0.1.0' },
      authMethods: [],
      _meta: { vigil: advertised },
    };
  }

  /** A session with the history the host gave (session/new or session/load); one of the same id is replaced. */
  open(id: string, params: SessionParams): AgentSession {
    const { config } = this;
    const mcp = new McpHub(params.mcpServers, params.cwd, { connectTimeoutMs: config.mcpConnectTimeoutMs, callTimeoutMs: config.mcpCallTimeoutMs });
    const session = new AgentSession(id, params.cwd, historyFromMeta(params._meta), mcp, { model: configuredModel(config), contextWindow: config.contextWindow });
    session.modelWindow = this.options.windowOf(session.model);
    const previous = this.sessions.get(id);
    if (previous) void previous.mcp?.dispose();
    this.sessions.set(id, session);
    return session;
  }

  cancel(sessionId: string): void {
    this.sessions.get(sessionId)?.turn?.abort(new Error('cancelled by the client'));
  }

  /** The host is done with the session (its process is being released): stop its turn, its MCP servers, and forget it. */
  async close(sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    session?.turn?.abort(new Error('the session was closed'));
    session?.closed.abort(new Error('the session was closed'));
    this.sessions.delete(sessionId);
    await session?.mcp?.dispose();
  }

  lmChunk(params: LmChunkParams): void {
    this.lmListeners.get(params.streamId)?.(params.event);
  }

  async prompt(sessionId: string, prompt: Parameters<typeof userMessageOf>[0], client: AgentContext) {
    const { config } = this;
    const session = this.sessionOf(sessionId);
    if (session.turn) throw RequestError.invalidRequest(undefined, 'a prompt is already running in this session');
    const turn = new AbortController();
    session.turn = turn;
    this.idleMemory.turnStarted();
    session.history.push(userMessageOf(prompt, session.cwd, providerTakesImages(config.provider)));
    try {
      const model = await this.providerFor(session.model, client);
      const stopReason = await runPromptTurn({ config, client, hostServes: (name) => offers(this.clientExtensions, name) }, session, model, turn);
      return { stopReason };
    } catch (error) {
      if (turn.signal.aborted) return { stopReason: 'cancelled' as const };
      if (error instanceof ProviderError) {
        log('error', `prompt failed: ${error.code}: ${error.message}`);
        throw new RequestError(providerErrorCode, error.message, { vigil: { code: error.code, setting: error.setting } });
      }
      log('error', `prompt failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
      throw error;
    } finally {
      session.turn = undefined;
      this.idleMemory.turnEnded();
    }
  }

  private sessionOf(id: string): AgentSession {
    const session = this.sessions.get(id);
    if (!session) throw RequestError.invalidParams(undefined, `unknown session ${id}`);
    return session;
  }

  /** The provider of a session's model; a failed start is forgotten, so a later prompt tries again (e.g. after a fixed setting). */
  private providerFor(model: string, client: AgentContext): Promise<ModelProvider> {
    let p = this.providers.get(model);
    if (!p) {
      p = createProvider(model === configuredModel(this.config) ? this.config : { ...this.config, model }, this.hostFor(client));
      this.providers.set(model, p);
      p.catch(() => this.providers.delete(model));
    }
    return p;
  }

  private hostFor(client: AgentContext): HostChannel {
    return {
      request: (method, params, signal) => client.request(method, params, signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : undefined),
      onLmChunk: (streamId, listener) => {
        this.lmListeners.set(streamId, listener);
        return () => this.lmListeners.delete(streamId);
      },
      serves: (method) => offers(this.clientExtensions, method),
    };
  }
}

function historyFromMeta(meta: unknown): ChatMessage[] {
  const vigil = (meta as { vigil?: unknown } | null | undefined)?.vigil;
  if (vigil === undefined) return [];
  const parsed = sessionMeta.safeParse(vigil);
  if (!parsed.success) {
    log('warn', `ignoring malformed _meta.vigil history: ${parsed.error.message}`);
    return [];
  }
  return parsed.data.history ?? [];
}

/** session/load replays the history as updates, so a client without its own transcript still sees it. */
function* replay(history: ChatMessage[]): Generator<SessionUpdate> {
  for (const m of history) {
    if (m.role === 'user') yield { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: m.text } };
    else if (m.role === 'assistant') {
      if (m.text) yield { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: m.text } };
    } else {
      yield {
        sessionUpdate: 'tool_call',
        toolCallId: m.toolCallId,
        title: m.name,
        status: m.content.startsWith('Error:') ? 'failed' : 'completed',
        content: [{ type: 'content', content: { type: 'text', text: m.content } }],
      };
    }
  }
}
