// The built-in agent as an ACP agent app: initialize, session/new|load (history from the host), prompt, cancel, close.
// No session/resume: its sessions live only in its process and the host owns their history, so a fresh
// process gets it in session/new's `_meta` (a resume would be the same request under another name).

import { randomUUID } from 'node:crypto';
import { agent, RequestError, type AgentApp, type AgentContext, type SessionUpdate } from '@agentclientprotocol/sdk';
import { runAgentLoop } from './agentLoop';
import { clientPortFor } from './clientPort';
import type { AgentConfig } from './config';
import type { HostChannel } from './hostChannel';
import { IdleMemory } from './idleMemory';
import { log } from './log';
import { McpHub } from './mcp/mcpHub';
import { providerTakesImages, userMessageOf } from './promptMessage';
import { createProvider } from './providers/createProvider';
import { demoLabel } from './providers/demoProvider';
import { ProviderError } from './providers/providerError';
import type { ChatMessage, ModelProvider } from './providers/types';
import { AgentSession } from './session';
import { lmChunkParams, sessionMeta, vigilMethods, wakeupPrefix, type LmChunkParams } from '../shared/agentProtocol/vigilMethods';
import { agentFeatures, offers, readVigilExtensions, type VigilExtensions } from '../shared/vigilExtensions';
import { providerRetryMethod, retryNoticeText, type ProviderRetryParams } from '../shared/providerRetry';

const systemPrompt = (cwd: string, mcpProblems: readonly string[] = []) =>
  `You are Vigil's built-in coding agent working in the workspace folder ${cwd}. Use the tools to read, search, edit and run. ` +
  'For long commands (builds, test suites, servers) use run_command with background=true, then end your turn saying you will continue; ' +
  `a message starting with "${wakeupPrefix.trim()}" brings you the result. Be concise.` +
  (mcpProblems.length > 0 ? `\nUnavailable in this session (tell the person if they ask for them): ${mcpProblems.join('; ')}.` : '');

/** JSON-RPC error code for a provider failure; `data.vigil.code` says which. */
export const providerErrorCode = -32050;

export function createAgentApp(config: AgentConfig): AgentApp {
  const sessions = new Map<string, AgentSession>();
  const lmListeners = new Map<string, (event: LmChunkParams['event']) => void>();
  let provider: Promise<ModelProvider> | undefined;
  const idleMemory = new IdleMemory();
  /** What the client advertised in `initialize`: `_vigil/*` methods are called only when listed here. */
  let clientExtensions: VigilExtensions = { methods: [], features: [] };
  const mcpOptions = { connectTimeoutMs: config.mcpConnectTimeoutMs, callTimeoutMs: config.mcpCallTimeoutMs };
  const openSession = (session: AgentSession) => {
    const previous = sessions.get(session.id);
    if (previous) void previous.mcp?.dispose();
    sessions.set(session.id, session);
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
  app.onRequest('session/new', ({ params }) => {
    const id = randomUUID();
    openSession(new AgentSession(id, params.cwd, historyFromMeta(params._meta), new McpHub(params.mcpServers, params.cwd, mcpOptions)));
    return { sessionId: id };
  });
  app.onRequest('session/load', async ({ params, client }) => {
    const session = new AgentSession(params.sessionId, params.cwd, historyFromMeta(params._meta), new McpHub(params.mcpServers, params.cwd, mcpOptions));
    openSession(session);
    for (const update of replay(session.history)) {
      await client.notify('session/update', { sessionId: session.id, update });
    }
    return {};
  });
  app.onNotification('session/cancel', ({ params }) => {
    const session = sessions.get(params.sessionId);
    session?.turn?.abort(new Error('cancelled by the client'));
  });
  // The host is done with the session (its process is being released): stop its turn, its MCP servers, and forget it.
  app.onRequest('session/close', async ({ params }) => {
    const session = sessions.get(params.sessionId);
    session?.turn?.abort(new Error('the session was closed'));
    sessions.delete(params.sessionId);
    await session?.mcp?.dispose();
    return {};
  });
  app.onNotification(vigilMethods.lmChunk, (p: unknown) => lmChunkParams.parse(p), ({ params }) => {
    lmListeners.get(params.streamId)?.(params.event);
  });
  app.onRequest('session/prompt', async ({ params, client }) => {
    const session = sessions.get(params.sessionId);
    if (!session) throw RequestError.invalidParams(undefined, `unknown session ${params.sessionId}`);
    if (session.turn) throw RequestError.invalidRequest(undefined, 'a prompt is already running in this session');
    const turn = new AbortController();
    session.turn = turn;
    idleMemory.turnStarted();
    session.history.push(userMessageOf(params.prompt, session.cwd, providerTakesImages(config.provider)));
    const emit = (update: SessionUpdate) => client.notify('session/update', { sessionId: session.id, update });
    try {
      provider ??= createProvider(config, hostFor(client));
      const model = await provider.catch((error: unknown) => {
        provider = undefined; // a later prompt retries (e.g. after the person fixed the setting)
        throw error;
      });
      // The session's MCP servers start with its first prompt (in parallel, bounded), not with the agent.
      const extraTools = session.mcp.isEmpty ? undefined : await session.mcp.prepare();
      const stopReason = await runAgentLoop({
        provider: model,
        system: systemPrompt(session.cwd, session.mcp.problems),
        extraTools,
        history: session.history,
        maxSteps: config.maxSteps,
        timeouts: { firstTokenMs: config.firstTokenTimeoutMs, idleMs: config.idleTimeoutMs, turnMs: config.turnTimeoutMs },
        emit,
        retry: {
          policy: { maxRetries: config.retryMaxRetries, baseDelayMs: config.retryBaseDelayMs, maxDelayMs: 30_000, maxWaitMs: config.retryMaxWaitMs },
          onRetry: async (notice) => {
            log('warn', `model call: ${retryNoticeText(notice)}`);
            // Only a host that advertised the method hears of it; a plain ACP client sees the longer silence.
            if (!offers(clientExtensions, providerRetryMethod)) return;
            const params: ProviderRetryParams = { sessionId: session.id, ...notice };
            await client.notify(providerRetryMethod, params).catch((error: unknown) => log('debug', `could not report the retry: ${String(error)}`));
          },
        },
        tool: {
          sessionId: session.id,
          cwd: session.cwd,
          client: clientPortFor(client, session.id),
          hostServes: (name) => offers(clientExtensions, name),
          signal: turn.signal,
          commandTimeoutMs: config.commandTimeoutMs,
          allowedAlways: session.allowedAlways,
          publishPlan: (entries) => emit({ sessionUpdate: 'plan', entries: entries.map((e) => ({ ...e, priority: 'medium' as const })) }),
        },
      });
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
