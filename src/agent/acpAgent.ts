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
  const sessions = new Map<string, AgentSession>();
  const lmListeners = new Map<string, (event: LmChunkParams['event']) => void>();
  /** One provider per model a session chose (most processes serve one session with one model). */
  const providers = new Map<string, Promise<ModelProvider>>();
  const idleMemory = new IdleMemory();
  /** What the client advertised in `initialize`: `_vigil/*` methods are called only when listed here. */
  let clientExtensions: VigilExtensions = { methods: [], features: [] };
  const mcpOptions = { connectTimeoutMs: config.mcpConnectTimeoutMs, callTimeoutMs: config.mcpCallTimeoutMs };
  const openSession = (session: AgentSession) => {
    const previous = sessions.get(session.id);
    if (previous) void previous.mcp?.dispose();
    sessions.set(session.id, session);
  };

  const sessionOf = (id: string): AgentSession => {
    const session = sessions.get(id);
    if (!session) throw RequestError.invalidParams(undefined, `unknown session ${id}`);
    return session;
  };
  /** The provider of a session's model; a failed start is forgotten, so a later prompt tries again (e.g. after a fixed setting). */
  const providerFor = (model: string, client: AgentContext): Promise<ModelProvider> => {
    let p = providers.get(model);
    if (!p) {
      p = createProvider(model === configuredModel(config) ? config : { ...config, model }, hostFor(client));
      providers.set(model, p);
      p.catch(() => providers.delete(model));
    }
    return p;
  };

  const hostFor = (client: AgentContext): HostChannel => ({
    request: (method, params, signal) => client.request(method, params, signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : undefined),
    onLmChunk(streamId, listener) {
      lmListeners.set(streamId, listener);
      return () => lmListeners.delete(streamId);
    },
    serves: (method) => offers(clientExtensions, method),
  });

  const app = agent({ name: 'vigil-agent' });
  app.onRequest('initialize', ({ params }) => {
    clientExtensions = readVigilExtensions(params.clientCapabilities?._meta);
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
  });
  const options = new OptionRequests(config, { sessionOf, isOpen: (session) => sessions.get(session.id) === session, hostFor });
  options.serve(app);
  const newSession = (id: string, params: { cwd: string; mcpServers: ConstructorParameters<typeof McpHub>[0]; _meta?: unknown }) => {
    const session = new AgentSession(id, params.cwd, historyFromMeta(params._meta), new McpHub(params.mcpServers, params.cwd, mcpOptions), {
      model: configuredModel(config),
      contextWindow: config.contextWindow,
    });
    session.modelWindow = options.windowOf(session.model);
    return session;
  };
  app.onRequest('session/new', ({ params, client }) => {
    const session = newSession(randomUUID(), params);
    openSession(session);
    return { sessionId: session.id, ...options.offer(session, client) };
  });
  app.onRequest('session/load', async ({ params, client }) => {
    const session = newSession(params.sessionId, params);
    openSession(session);
    for (const update of replay(session.history)) {
      await client.notify('session/update', { sessionId: session.id, update });
    }
    return options.offer(session, client);
  });
  app.onNotification('session/cancel', ({ params }) => {
    const session = sessions.get(params.sessionId);
    session?.turn?.abort(new Error('cancelled by the client'));
  });
  // The host is done with the session (its process is being released): stop its turn, its MCP servers, and forget it.
  app.onRequest('session/close', async ({ params }) => {
    const session = sessions.get(params.sessionId);
    session?.turn?.abort(new Error('the session was closed'));
    session?.closed.abort(new Error('the session was closed'));
    sessions.delete(params.sessionId);
    await session?.mcp?.dispose();
    return {};
  });
  app.onNotification(vigilMethods.lmChunk, (p: unknown) => lmChunkParams.parse(p), ({ params }) => {
    lmListeners.get(params.streamId)?.(params.event);
  });
  app.onRequest('session/prompt', async ({ params, client }) => {
    const session = sessionOf(params.sessionId);
    if (session.turn) throw RequestError.invalidRequest(undefined, 'a prompt is already running in this session');
    const turn = new AbortController();
    session.turn = turn;
    idleMemory.turnStarted();
    session.history.push(userMessageOf(params.prompt, session.cwd, providerTakesImages(config.provider)));
    try {
      const model = await providerFor(session.model, client);
      const stopReason = await runPromptTurn({ config, client, hostServes: (name) => offers(clientExtensions, name) }, session, model, turn);
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
      idleMemory.turnEnded();
    }
  });
  return app;
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
