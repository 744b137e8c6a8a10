// One ACP client connection to one agent process: the client-side handlers (fs, terminals,
// permissions, `_vigil/…`), `initialize` with a bounded wait, sessions, prompts and cancel.

import { client, RequestError, type ClientConnection, type InitializeResponse, type McpServer, type PromptResponse, type SessionUpdate } from '@agentclientprotocol/sdk';
import type { ChatMessage } from '../../../shared/agentProtocol/history';
import { lmChatParams, vigilMethods } from '../../../shared/agentProtocol/vigilMethods';
import { providerRetryMethod } from '../../../shared/providerRetry';
import { providerRetryParams } from '../../../shared/providerRetrySchema';
import { clientFeatures, type VigilExtensions } from '../../../shared/vigilExtensions';
import { timeoutSignal, untilAborted } from '../../../shared/untilAborted';
import { errorMessage, VigilError } from '../common/errors';
import type { AgentEvent } from '../ports/agentHandle';
import type { Logger } from '../ports/logger';
import type { PromptAttachment } from '../../../shared/promptContext';
import { ActivityDescriber } from './activityDescriber';
import type { ElicitationHost } from './elicitationHost';
import { promptBlocks } from './promptContent';
import type { AgentChannel } from './agentProcess';
import { describePermission, targetsOf, type ClientOp } from './clientGrants';
import type { LanguageModelBridge } from './hostPorts';
import { listModels, streamChat } from './lmHost';
import type { AskHooks, PermissionGate } from './permissionGate';
import type { TerminalBridge } from './terminalBridge';
import type { EditJournal } from './editJournal';
import { commandDetailsOf, editDetailsOf } from './approvalDetails';
import { terminalHandlers } from './acpTerminalHandlers';
import { fsHandlers } from './acpFsHandlers';
import type { WorkspaceFs } from './workspaceFs';

/** Where the events of the prompt that is running in an ACP session go. */
export interface PromptSink {
  describer: ActivityDescriber;
  onEvent(event: AgentEvent): void;
}

export interface ConnectionDeps {
  vigilSessionId: string;
  log: Logger;
  workspace: WorkspaceFs;
  gate: PermissionGate;
  terminals: TerminalBridge;
  lm?: LanguageModelBridge;
  /** Every `session/update`, in a prompt or not: the agent's options, commands, usage and title live here (agentSessionState.ts). */
  onSessionUpdate?(acpSessionId: string, update: SessionUpdate): void;
  /** The answer of `session/new` / `load` / `resume`: the agent's initial options and modes. */
  onSessionOpened?(acpSessionId: string, response: unknown): void;
  /** Answers the agent's elicitations; without it the client does not advertise them. */
  elicitations?: ElicitationHost;
  /** Keeps what each write replaced, for its diff (editJournal.ts); without it writes keep no diff and are never reviewed. */
  edits?: EditJournal;
  /** The agent writes files only through fs/write_text_file (the built-in agent): a review of the write can stand for its edit permission. */
  writesThroughClient?: boolean;
}

/** A request no agent implements, sent after a load only for its answer's place in the stream. */
const replayBarrierMethod = '_vigil/replay_barrier';
const replayBarrierMs = 1_000;

/** Bound on the agent's answer to a change of one of its options. */
const setOptionTimeoutMs = 30_000;

const permissionDenied = -32001;

export class AcpConnection {
  private readonly connection: ClientConnection;
  private readonly sinks = new Map<string, PromptSink>();
  /** Sessions whose prompt is running and not yet answered: only they may have commands run and files written. */
  private readonly promptsOpen = new Set<string>();
  private readonly trustedWrites: () => boolean;
  initializeResponse: InitializeResponse | undefined;

  constructor(
    readonly process: AgentChannel,
    private readonly deps: ConnectionDeps,
    isTrusted: () => boolean,
  ) {
    this.trustedWrites = isTrusted;
    this.connection = this.buildApp().connect(process.stream);
    // The process died or closed stdout: pending requests must fail now, not hang.
    void process.exited.then(() => this.connection.close(new VigilError('AGENT_FAILED', 'the agent process exited')));
  }

  get closed(): Promise<void> {
    return this.connection.closed;
  }

  /** `initialize` with a bounded wait: an agent that never answers is a clear error, not a hang. */
  async initialize(timeoutMs: number, label: string): Promise<InitializeResponse> {
    const exited = this.process.exited.then((exit) => {
      const tail = this.process.recentStderr;
      throw new VigilError('AGENT_FAILED', `${label} exited during "initialize" (code ${exit.code ?? 'none'}${exit.signal ? `, signal ${exit.signal}` : ''})${tail ? `: ${tail}` : ''}`);
    });
    const answered = Promise.race([
      this.connection.agent.request('initialize', {
        protocolVersion: 1,
        // auth.terminal: Vigil runs terminal login methods (agentSignIn.ts); `_meta["terminal-auth"]` is how
        // agents from before that field (OpenCode, Copilot) learn the same.
        clientCapabilities: {
          fs: { readTextFile: true, writeTextFile: true },
          terminal: true,
          session: { configOptions: { boolean: {} } },
          auth: { terminal: true },
          ...(this.deps.elicitations ? { elicitation: { form: {}, url: {} } } : {}),
          _meta: { vigil: this.vigilExtensions(), 'terminal-auth': true },
        },
        clientInfo: { name: 'vigil', title: 'Vigil', version: '0.1.0' },
      }),
      exited,
    ]);
    const response = await untilAborted(answered, timeoutSignal(timeoutMs), () => {
      throw new VigilError('AGENT_TIMEOUT', `${label} did not answer "initialize" within ${Math.round(timeoutMs / 1000)} s; is it an ACP agent (e.g. "gemini --acp")?`);
    });
    this.initializeResponse = response;
    return response;
  }

  /** The `_vigil/*` methods this client serves (handlers in buildApp): an agent must not call any other. */
  private vigilExtensions(): VigilExtensions {
    const methods: string[] = [vigilMethods.fsList, vigilMethods.fsSearch, providerRetryMethod];
    if (this.deps.lm) methods.push(vigilMethods.lmModels, vigilMethods.lmChat);
    return { methods, features: [clientFeatures.backgroundTerminals] };
  }

  async newSession(cwd: string, history: ChatMessage[], mcpServers: McpServer[], signal?: AbortSignal): Promise<string> {
    const r = await this.connection.agent.request('session/new', { cwd, mcpServers, _meta: { vigil: { history } } }, stopAfter(signal));
    this.opened(r.sessionId, r);
    return r.sessionId;
  }

  async loadSession(acpSessionId: string, cwd: string, history: ChatMessage[], mcpServers: McpServer[], signal?: AbortSignal): Promise<void> {
    const r = await this.connection.agent.request('session/load', { sessionId: acpSessionId, cwd, mcpServers, ...(history.length > 0 ? { _meta: { vigil: { history } } } : {}) }, stopAfter(signal));
    // Replayed updates must land (and be dropped: no prompt is open) before a prompt opens a sink they
    // would leak into. Some agents write part of the replay just after their answer, so one more round
    // trip (any answer will do, "Method not found" included) passes what they wrote before it, bounded.
    await this.connection.agent.request(replayBarrierMethod, {}, stopAfter(AbortSignal.timeout(replayBarrierMs))).catch(() => undefined);
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.opened(acpSessionId, r);
  }

  /** `session/set_config_option`; resolves with the agent's full option set. Bounded: an agent that never answers is an error. */
  async setConfigOption(acpSessionId: string, configId: string, value: string | boolean): Promise<unknown> {
    const agent = this.connection.agent;
    const request =
      typeof value === 'boolean'
        ? agent.request('session/set_config_option', { sessionId: acpSessionId, configId, type: 'boolean', value })
        : agent.request('session/set_config_option', { sessionId: acpSessionId, configId, value });
    const r = await this.bounded(request, 'session/set_config_option');
    return r.configOptions;
  }

  /** `session/set_mode` (legacy modes), bounded like the above. */
  async setMode(acpSessionId: string, modeId: string): Promise<void> {
    await this.bounded(this.connection.agent.request('session/set_mode', { sessionId: acpSessionId, modeId }), 'session/set_mode');
  }

  private bounded<T>(request: Promise<T>, method: string): Promise<T> {
    return untilAborted(request, timeoutSignal(setOptionTimeoutMs), () => {
      throw new VigilError('AGENT_TIMEOUT', `the agent did not answer "${method}" within ${setOptionTimeoutMs / 1000} s`);
    });
  }

  private opened(acpSessionId: string, response: unknown): void {
    try {
      this.deps.onSessionOpened?.(acpSessionId, response);
    } catch (error) {
      this.deps.log.error(`session state listener failed: ${errorMessage(error)}`);
    }
  }

  /** Sends `session/prompt`; every update and agent request of this session goes to `sink` until it settles. */
  async prompt(acpSessionId: string, text: string, sink: PromptSink, attachments?: readonly PromptAttachment[]): Promise<PromptResponse> {
    // Built before anything is registered: an attachment the agent cannot take fails the prompt here.
    const prompt = promptBlocks(text, attachments, this.initializeResponse?.agentCapabilities?.promptCapabilities);
    return this.follow(acpSessionId, sink, () => this.connection.agent.request('session/prompt', { sessionId: acpSessionId, prompt }));
  }

  /**
   * Takes back a `session/prompt` an earlier window sent (it still runs behind the agent's relay): its
   * updates and requests go to `sink`, as for a prompt of this window, until `answer` settles.
   */
  adoptPrompt(acpSessionId: string, sink: PromptSink, answer: Promise<PromptResponse>): Promise<PromptResponse> {
    return this.follow(acpSessionId, sink, () => answer);
  }

  /** The agent's `initialize` answer as the relay kept it: a window that re-attaches does not ask again. */
  adoptInitialize(response: unknown): void {
    this.initializeResponse = response as InitializeResponse;
  }

  private async follow(acpSessionId: string, sink: PromptSink, answer: () => Promise<PromptResponse>): Promise<PromptResponse> {
    this.sinks.set(acpSessionId, sink);
    this.promptsOpen.add(acpSessionId);
    try {
      return await answer();
    } finally {
      // Late updates still land below, but from the answer on the agent gets no commands or writes.
      this.promptsOpen.delete(acpSessionId);
      // Updates written before the response may still be in their (microtask) handlers: let them land first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.sinks.get(acpSessionId) === sink) this.sinks.delete(acpSessionId);
    }
  }

  /** ACP `authenticate` with one of the methods the agent advertised; it may take as long as the person's login. */
  async authenticate(methodId: string, signal?: AbortSignal): Promise<void> {
    await this.connection.agent.request('authenticate', { methodId }, signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : undefined);
  }

  /** ACP `logout` (only where the agent advertised `agentCapabilities.auth.logout`). */
  async logout(signal?: AbortSignal): Promise<void> {
    await this.connection.agent.request('logout', {}, signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : undefined);
  }

  async cancel(acpSessionId: string): Promise<void> {
    await this.connection.agent.notify('session/cancel', { sessionId: acpSessionId });
  }

  close(): void {
    this.connection.close();
  }

  /** `session/resume`: the agent continues a session it keeps, without replaying it. */
  async resumeSession(acpSessionId: string, cwd: string, mcpServers: McpServer[], signal?: AbortSignal): Promise<void> {
    const r = await this.connection.agent.request('session/resume', { sessionId: acpSessionId, cwd, mcpServers }, stopAfter(signal));
    this.opened(acpSessionId, r);
  }

  /** `session/close`, waited for no longer than `signal` allows (the process is stopped after it either way). */
  async closeSession(acpSessionId: string, signal: AbortSignal): Promise<void> {
    await this.connection.agent.request('session/close', { sessionId: acpSessionId }, stopAfter(signal));
  }

  /** `session/delete`: the agent forgets the session for good; bounded like `closeSession`. */
  async deleteSession(acpSessionId: string, signal: AbortSignal): Promise<void> {
    await this.connection.agent.request('session/delete', { sessionId: acpSessionId }, stopAfter(signal));
  }

  private emit(acpSessionId: string, make: (d: ActivityDescriber) => AgentEvent): void {
    const sink = this.sinks.get(acpSessionId);
    if (!sink) {
      this.deps.log.debug(`activity outside a prompt for ${acpSessionId} ignored`);
      return;
    }
    try {
      sink.onEvent(make(sink.describer));
    } catch (error) {
      this.deps.log.error(`activity listener failed: ${errorMessage(error)}`);
    }
  }

  private buildApp() {
    const { log, workspace, gate, terminals, vigilSessionId } = this.deps;
    const denied = (message: string) => new RequestError(permissionDenied, message);
    const asRequestError = (error: unknown) => (error instanceof RequestError ? error : new RequestError(-32603, errorMessage(error)));
    const hooks = (sid: string): AskHooks => ({ opened: (title) => this.emit(sid, (d) => d.approvalOpened(title)), closed: (title, a) => this.emit(sid, (d) => d.approvalClosed(title, a)) });
    const emit = (sid: string, make: (d: ActivityDescriber) => AgentEvent) => this.emit(sid, make);
    const trusted = () => this.trustedWrites();
    /** Client-side operations run only inside a prompt of this session, and only as the approvals policy says (permissionGate.ts). */
    const authorize = async (acpSessionId: string, op: ClientOp, signal: AbortSignal, rawInput?: unknown): Promise<void> => {
      if (!this.promptsOpen.has(acpSessionId)) throw denied('No turn of this session is running: Vigil runs commands and writes files for the agent only during a turn.');
      const verdict = await gate.authorize(vigilSessionId, op, hooks(acpSessionId), signal, rawInput);
      if (!verdict.allowed) throw denied(verdict.reason);
    };

    const app = client({ name: 'vigil' });
    terminalHandlers(app, { vigilSessionId, terminals, workspace, trusted, denied, asRequestError, emit, authorize });
    fsHandlers(app, { vigilSessionId, workspace, gate, edits: this.deps.edits, trusted, denied, asRequestError, emit, hooks, authorize, turnOf: (sid) => this.sinks.get(sid)?.describer ?? this });
    return app
      .onNotification('session/update', ({ params }) => {
        try {
          this.deps.onSessionUpdate?.(params.sessionId, params.update);
        } catch (error) {
          log.error(`session state listener failed: ${errorMessage(error)}`);
        }
        this.emit(params.sessionId, (d) => d.fromUpdate(params.update));
      })
      .onRequest('session/request_permission', async ({ params, signal }) => {
        // The question names the command or files the approval will be held to, when the agent's title does not.
        const title = describePermission(params.toolCall.title ?? params.toolCall.toolCallId, targetsOf(params.toolCall, workspace.root), workspace.root);
        this.emit(params.sessionId, (d) => d.request(`permission: ${title}`));
        if (this.deps.writesThroughClient && this.deps.edits && gate.reviewsEdits && params.toolCall.kind === 'edit') return gate.allowForReview(params.options, params.toolCall);
        const details = commandDetailsOf(params.toolCall) ?? (this.deps.edits ? editDetailsOf(params.toolCall, this.deps.edits, vigilSessionId, workspace.root) : undefined);
        const h = hooks(params.sessionId);
        return gate.answer(
          { sessionId: vigilSessionId, title, kind: params.toolCall.kind ?? 'other', ...(details ? { details } : {}), ...(params.toolCall.rawInput !== undefined ? { rawInput: params.toolCall.rawInput } : {}) },
          params.options,
          { opened: () => h.opened(title), closed: (a) => h.closed(title, a) },
          signal,
          params.toolCall,
        );
      })
      .onRequest('elicitation/create', async ({ params, signal }) => {
        const host = this.deps.elicitations;
        if (!host) throw new RequestError(-32601, 'Vigil did not advertise elicitations to this agent.');
        const acpSessionId = 'sessionId' in params && typeof params.sessionId === 'string' ? params.sessionId : undefined;
        if (acpSessionId) this.emit(acpSessionId, (d) => d.request('agent: asks you for input'));
        return host.create(params, acpSessionId ? hooks(acpSessionId) : undefined, signal);
      })
      .onNotification('elicitation/complete', ({ params }) => {
        this.deps.elicitations?.complete(params.elicitationId);
      })
      // A model retry is activity (a long Retry-After is a wait, not a stall) and a line in the transcript.
      .onNotification(providerRetryMethod, (p: unknown) => providerRetryParams.parse(p), ({ params }) => {
        this.emit(params.sessionId, (d) => d.providerRetry(params));
      })
      .onRequest(vigilMethods.lmModels, (p: unknown) => p, () => listModels(this.deps.lm))
      .onRequest(vigilMethods.lmChat, (p: unknown) => lmChatParams.parse(p), ({ params, agent, signal }) => streamChat(this.deps.lm, params, agent, signal, log));
  }
}

/** Request options that stop waiting (and tell the agent, `$/cancel_request`) once `signal` aborts. */
function stopAfter(signal: AbortSignal | undefined) {
  return signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : undefined;
}
