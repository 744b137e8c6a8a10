// The supervisor's AgentHandle for one session, served by one agent process over ACP: spawned on
// demand, restarted on the next prompt after a crash (and the crash reported), killed as a tree.

import { RequestError, type PromptCapabilities } from '@agentclientprotocol/sdk';
import type { ChatMessage } from '../../../shared/agentProtocol/history';
import { promptErrorData } from '../../../shared/agentProtocol/vigilMethods';
import { errorMessage, isVigilError, VigilError } from '../common/errors';
import { EventHub, type Unsubscribe } from '../common/events';
import type { AgentEvent, AgentFailure, AgentHandle, LeftoverReport, PromptOutcome, PromptRequest } from '../ports/agentHandle';
import type { Logger } from '../ports/logger';
import type { TerminalHost } from '../ports/terminalHost';
import { AcpConnection } from './acpConnection';
import { ActivityDescriber } from './activityDescriber';
import { agentIdentity, authInfoOf, isAuthError, type AgentAuthInfo } from './agentAuth';
import { AgentSessionState } from './agentSessionState';
import { describeChoice, optionChange, type OptionValue } from './agentOptionChange';
import type { LaunchSpec } from './agentLaunch';
import { agentFailure, authFailure, exitFailure } from './agentStartFailure';
import { AgentProcess, type AgentExit } from './agentProcess';
import { ElicitationHost, type ElicitationPrompter } from './elicitationHost';
import { HistoryRecorder } from './historyRecorder';
import type { McpServerSource } from './mcpServerSource';
import { launchIdentity, memoryBook, type AgentSessionBinding, type AgentSessionBook } from './agentSessionBinding';
import { closeAgentSession, deleteAgentSession, openAgentSession } from './agentSessionOpener';
import type { ApprovalPolicy, LanguageModelBridge, PermissionPrompter } from './hostPorts';
import type { ClientOp } from './clientGrants';
import { PermissionGate, type ClientOpVerdict } from './permissionGate';
import { refusalFor } from './promptContent';
import { enterReadOnlyMode } from './readOnlyMode';
import { timeoutSignal, untilAborted } from '../../../shared/untilAborted';
import { TerminalBridge } from './terminalBridge';
import { WorkspaceFs } from './workspaceFs';
import type { EditJournal } from './editJournal';
import { TurnLeftovers, vigilServerPrograms } from '../supervisor/turnLeftovers';
import type { KeptProgram } from '../supervisor/turnProcesses';
import type { AgentMarker } from '../supervisor/turnProcesses';

/**
 * How long a starting agent may take to answer `initialize`. Node-based agents such as Gemini CLI load for
 * several seconds, and on a machine busy with a build that grows past 20 s; a wedged start still ends with
 * its stderr shown, just later.
 */
export const defaultInitializeTimeoutMs = 60_000;

/** How long a closed connection waits for the process's exit status, so a crash is reported as one. */
const exitReportMs = 500;

export interface AcpHandleDeps {
  log: Logger;
  /** The session's workspace folder: the agent's cwd and the root that fs/* is confined to. */
  cwd: string;
  /** Chosen per spawn, so a changed setting or API key applies from the next process on. */
  launch(): Promise<LaunchSpec>;
  policy: ApprovalPolicy;
  prompter: PermissionPrompter;
  terminals?: TerminalHost;
  lm?: LanguageModelBridge;
  /** Bound on the agent's answer to `initialize` (default {@link defaultInitializeTimeoutMs}). */
  initializeTimeoutMs?: number;
  /** History from the durable transcript for the first spawn (e.g. after a window reload). */
  loadHistory?(): Promise<ChatMessage[]>;
  /** MCP servers offered to the agent whenever a session is opened (none when absent). */
  mcpServers?: readonly McpServerSource[];
  /** Puts the agent's elicitations (forms, URLs) to the person; without it none are advertised. */
  elicitations?: ElicitationPrompter;
  /** Where the agent's session id is kept for the next process (a reload, another window); in memory when absent. */
  agentSessions?: AgentSessionBook;
  /** Bound on `session/close` and `session/delete` when the agent is released (default 2 s). */
  closeTimeoutMs?: number;
  /** Keeps what the agent's writes replaced, for their diffs and `ask` review (shared by every session of the window). */
  edits?: EditJournal;
  /** Bound on each of `session/resume`, `load` and `new` (default 60 s). */
  openTimeoutMs?: number;
}

interface Live {
  process: AgentProcess;
  connection: AcpConnection;
  acpSessionId: string;
  terminals: TerminalBridge;
  /** This process's token in the durable binding; undefined when it could not be recorded. */
  opener?: string;
  label: string;
  marker: AgentMarker;
}

export class AcpAgentHandle implements AgentHandle {
  private live: Live | undefined;
  private starting: Promise<Live> | undefined;
  private running: { gate: PermissionGate; acpSessionId: string; describer: ActivityDescriber; onEvent: PromptRequest['onEvent'] } | undefined;
  private readonly gate: PermissionGate;
  private readonly elicitations: ElicitationHost | undefined;
  private readonly exits = new EventHub<{ code: number | null; signal: string | null }>();
  private readonly killed = new WeakSet<AgentProcess>();
  private history: HistoryRecorder | undefined;
  private crashNotice: string | undefined;
  private disposed = false;
  /** What the agent's last `initialize` said about signing in, and who the agent was. */
  private auth: (Omit<AgentAuthInfo, 'identity' | 'builtin'> & { spec: LaunchSpec }) | undefined;
  /** A sign-in the person chose: `authenticate` with it before `session/new` of the next start. */
  private authOnStart: string | undefined;
  /** The process of the start in flight, so a cancelled sign-in can stop it mid-`authenticate`. */
  private startingProcess: AgentProcess | undefined;
  private readonly book: AgentSessionBook;
  private readonly leftovers: TurnLeftovers;
  /** The programs of Vigil's own MCP servers the agent was last given: what Stop leaves running. */
  private vigilPrograms: KeptProgram[] = [];
  /** The agent's options, commands, usage and title for this session, across its processes. */
  readonly agentState: AgentSessionState;
  /** Values the person chose, re-applied when a fresh agent session starts with other ones. */
  private readonly chosen = new Map<string, OptionValue>();
  /** Option changes go to the agent one at a time, in the order the person made them. */
  private changing: Promise<unknown> = Promise.resolve();

  constructor(
    readonly sessionId: string,
    private readonly deps: AcpHandleDeps,
  ) {
    this.gate = new PermissionGate(deps.policy, deps.prompter, deps.cwd);
    this.book = deps.agentSessions ?? memoryBook();
    this.leftovers = new TurnLeftovers({
      log: deps.log,
      spared: () => deps.terminals?.ownedProcessIds?.() ?? [],
      // Vigil's task server for this session, should the agent start it only during a turn.
      kept: () => this.vigilPrograms,
    });
    this.agentState = new AgentSessionState((error) => deps.log.error(`agent state listener failed: ${errorMessage(error)}`));
    this.elicitations = deps.elicitations ? new ElicitationHost(sessionId, deps.elicitations, deps.log) : undefined;
  }

  /** The agent's prompt capabilities (images, embedded context), starting the agent if it is not running. */
  async promptCapabilities(): Promise<PromptCapabilities | undefined> {
    const live = await this.ensureStarted();
    return live.connection.initializeResponse?.agentCapabilities?.promptCapabilities ?? undefined;
  }

  /** The running agent's prompt capabilities; undefined while none runs. */
  get knownPromptCapabilities(): PromptCapabilities | undefined {
    return this.live?.connection.initializeResponse?.agentCapabilities?.promptCapabilities ?? undefined;
  }

  /** Starts the agent without a prompt, so its options and commands are known (e.g. for a picker). */
  async prepare(): Promise<void> {
    await this.startExplained();
  }

  /** Starts the agent if needed; a start failure keeps its explanation and remedies (exit, missing command, sign-in). */
  private startExplained(): Promise<Live> {
    return this.ensureStarted().catch((error: unknown) => {
      throw hasFailure(error) ? error : failure(error, 'AGENT_FAILED');
    });
  }

  /**
   * Changes one of the agent's options (`session/set_config_option`, or `session/set_mode` for legacy
   * modes). ACP allows it during a turn; the agent's answer replaces the option set. A refusal is an
   * error naming the option, the value and the agent's reason.
   */
  setOption(configId: string, value: OptionValue): Promise<void> {
    const run = this.changing.catch(() => undefined).then(() => this.applyOption(configId, value));
    this.changing = run;
    return run;
  }

  private async applyOption(configId: string, value: OptionValue): Promise<void> {
    const live = await this.startExplained();
    // Checked against the options of the agent that will receive it (a restart may have changed them).
    const change = optionChange(this.agentState.option(configId), configId, value);
    this.agentState.setPending(change.pending);
    try {
      if (change.legacyMode) {
        await live.connection.setMode(live.acpSessionId, value as string);
        this.agentState.modeSet(value as string);
      } else {
        this.agentState.optionsReplaced(await live.connection.setConfigOption(live.acpSessionId, configId, value));
      }
      this.chosen.set(configId, value);
      this.deps.log.info(`${live.label}: ${change.pending}`);
    } catch (error) {
      const reason = error instanceof RequestError ? error.message : errorMessage(error);
      throw new VigilError('AGENT_FAILED', `${live.label} did not change ${change.what}: ${reason}`, { cause: error });
    } finally {
      this.agentState.setPending(undefined);
    }
  }

  /** After a fresh `session/new`: the person's earlier choices, where the new session differs and still offers them. */
  private async reapplyChoices(live: Live): Promise<void> {
    for (const [configId, value] of this.chosen) {
      const option = this.agentState.option(configId);
      if (!option || option.current === value) continue;
      if (option.kind === 'select' && (typeof value !== 'string' || !option.choices.some((c) => c.value === value))) continue;
      if (option.kind === 'boolean' && typeof value !== 'boolean') continue;
      try {
        if (option.legacyMode) {
          await live.connection.setMode(live.acpSessionId, value as string);
          this.agentState.modeSet(value as string);
        } else {
          this.agentState.optionsReplaced(await live.connection.setConfigOption(live.acpSessionId, configId, value));
        }
        this.deps.log.info(`${live.label}: restored ${option.name} → ${describeChoice(option, value)}`);
      } catch (error) {
        this.deps.log.warn(`${live.label} did not take back ${option.name} = ${String(value)}: ${errorMessage(error)}`);
      }
    }
  }

  async prompt(request: PromptRequest): Promise<PromptOutcome> {
    if (this.running) throw new VigilError('SESSION_BUSY', `a prompt is already running in session ${this.sessionId}`);
    const describer = new ActivityDescriber();
    if (this.live && (await this.continuedElsewhere(this.live))) await this.retire(this.live, 'its session was continued by another agent process');
    const spawning = !this.live;
    const live = await this.startExplained();
    // A (re)started agent answered initialize and opened the session: that is progress of this turn.
    if (spawning) request.onEvent({ description: `agent: started (pid ${live.process.pid})`, waitingOn: { kind: 'agent' } });
    if (this.crashNotice) {
      request.onEvent({ description: this.crashNotice, waitingOn: { kind: 'agent' } });
      this.crashNotice = undefined;
    }
    // Checked before anything is sent: the person is told, and the agent never sees half a prompt.
    const refusal = refusalFor(request.attachments ?? [], live.connection.initializeResponse?.agentCapabilities?.promptCapabilities);
    if (refusal) throw failure(new VigilError('INVALID_INPUT', refusal), 'AGENT_FAILED');
    this.history!.user(request.text, request.attachments);
    this.running = { gate: this.gate, acpSessionId: live.acpSessionId, describer, onEvent: request.onEvent };
    await this.leftovers.begin(request.turnId, live.process.pid, live.marker);
    try {
      const response = await live.connection.prompt(
        live.acpSessionId,
        request.text,
        {
          describer,
          onEvent: (event) => {
            if (event.update) this.history!.update(event.update as never);
            this.leftovers.observe(event.update);
            request.onEvent(event);
          },
        },
        request.attachments,
      );
      return { stopReason: response.stopReason };
    } catch (error) {
      throw await this.classify(error, live);
    } finally {
      this.running = undefined;
      this.gate.endTurn();
      this.leftovers.endPrompt();
    }
  }

  stopLeftovers(turnId: string, graceMs: number): Promise<LeftoverReport | undefined> {
    return this.leftovers.stop(turnId, graceMs);
  }

  async cancel(): Promise<void> {
    this.gate.cancelAll();
    this.elicitations?.cancelAll();
    const live = this.live;
    if (!live) return;
    try {
      await live.connection.cancel(live.acpSessionId);
    } catch (error) {
      // A dead or closing connection cannot take the cancel; the supervisor escalates to kill.
      this.deps.log.warn(`session/cancel could not be sent: ${errorMessage(error)}`);
    }
  }

  async kill(reason: string): Promise<void> {
    this.gate.cancelAll();
    this.elicitations?.cancelAll();
    // A start that fails cleans up after itself (it kills its process), so only a live one matters.
    const live = this.live ?? (await this.starting?.catch((error: unknown) => void this.deps.log.debug(`kill during a failed start: ${errorMessage(error)}`)));
    if (!live) return;
    this.deps.log.warn(`killing the agent of session ${this.sessionId} (pid ${live.process.pid}): ${reason}`);
    this.killed.add(live.process);
    await live.process.kill();
    this.drop(live);
  }

  /**
   * A command the agent asks Vigil to run outside ACP (Vigil's MCP task server), held to the rules of
   * `terminal/create`: only during a turn of this session, through the same gate and its approvals.
   */
  async authorizeExternal(op: ClientOp, signal: AbortSignal): Promise<ClientOpVerdict> {
    const running = this.running;
    if (!running) return { allowed: false, reason: 'No turn of this session is running: Vigil runs commands for the agent only during a turn.' };
    return running.gate.authorize(
      this.sessionId,
      op,
      { opened: (title) => this.externalActivity((d) => d.approvalOpened(title)), closed: (title, a) => this.externalActivity((d) => d.approvalClosed(title, a)) },
      signal,
    );
  }

  /** Activity of the running turn that reached Vigil outside ACP (e.g. a task started over MCP). */
  externalActivity(make: (d: ActivityDescriber) => AgentEvent): void {
    const running = this.running;
    if (!running) return;
    try {
      running.onEvent(make(running.describer));
    } catch (error) {
      this.deps.log.error(`activity listener failed: ${errorMessage(error)}`);
    }
  }

  onExit(listener: (info: { code: number | null; signal: string | null }) => void): Unsubscribe {
    return this.exits.subscribe(listener);
  }

  get pid(): number | undefined {
    return this.live?.process.pid;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.leftovers.dispose();
    await this.kill('session disposed');
  }

  private ensureStarted(): Promise<Live> {
    if (this.live) return Promise.resolve(this.live);
    if (this.disposed) return Promise.reject(new VigilError('AGENT_FAILED', 'the session was closed'));
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<Live> {
    const spec = await this.deps.launch();
    // Tags the agent's tree, so what it starts and then daemonizes is still found after a stopped turn.
    const marker = TurnLeftovers.marker();
    const { proc, connection, terminals } = await this.spawn({ ...spec, env: { ...spec.env, [marker.name]: marker.value } }, true);
    const signIn = this.authOnStart;
    this.startingProcess = proc;
    try {
      await connection.initialize(this.deps.initializeTimeoutMs ?? defaultInitializeTimeoutMs, spec.label);
      await this.authenticateAtStart(connection, spec, signIn);
      this.history ??= new HistoryRecorder(this.deps.loadHistory ? await this.deps.loadHistory() : []);
      const opened = await openAgentSession({
        connection,
        spec,
        cwd: this.deps.cwd,
        vigilSessionId: this.sessionId,
        book: this.book,
        history: this.history.snapshot(),
        mcpServers: this.deps.mcpServers ?? [],
        log: this.deps.log,
        timeoutMs: this.deps.openTimeoutMs,
      });
      this.vigilPrograms = vigilServerPrograms(opened.servers, this.sessionId);
      if (opened.notice) this.crashNotice = `${this.crashNotice ?? ''} ${opened.notice}`.trim();
      const live: Live = { process: proc, connection, acpSessionId: opened.acpSessionId, terminals, opener: opened.opener, label: spec.label, marker };
      // A resumed or loaded agent session keeps its own options; a fresh one gets the person's choices back.
      if (opened.how === 'new') await this.reapplyChoices(live);
      if (spec.readOnlyMode) await enterReadOnlyMode({ state: this.agentState, connection, acpSessionId: opened.acpSessionId, log: this.deps.log, label: spec.label });
      this.live = live;
      void proc.exited.then((exit) => this.onProcessExit(live, exit));
      return live;
    } catch (error) {
      const explained = await this.explainStartFailure(error, proc, spec);
      this.killed.add(proc);
      await proc.kill();
      connection.close();
      throw explained;
    } finally {
      if (this.startingProcess === proc) this.startingProcess = undefined;
    }
  }

  /**
   * Starts a process and its connection. `forSession`: the process will serve this session, so what it says
   * (options, commands, usage) is the session's; a process started only for `initialize`/`logout` is not.
   */
  private async spawn(spec: LaunchSpec, forSession: boolean): Promise<{ proc: AgentProcess; connection: AcpConnection; terminals: TerminalBridge }> {
    let proc: AgentProcess;
    try {
      proc = await AgentProcess.start(spec, this.deps.log, this.deps.cwd);
    } catch (error) {
      // A missing or non-executable command: the fix is in the setting that names it.
      throw agentFailure('AGENT_FAILED', errorMessage(error), spec.builtin ? ['openLog'] : ['openSettings', 'openLog'], error);
    }
    const terminals = new TerminalBridge(this.deps.terminals, this.deps.log);
    // What the previous process said (options, commands, usage) does not hold for this one.
    if (forSession) this.agentState.reset();
    const connection = new AcpConnection(
      proc,
      {
        vigilSessionId: this.sessionId, log: this.deps.log, workspace: new WorkspaceFs(this.deps.cwd), gate: this.gate, terminals, lm: this.deps.lm,
        ...(this.deps.edits ? { edits: this.deps.edits, writesThroughClient: spec.builtin } : {}),
        ...(forSession && this.elicitations ? { elicitations: this.elicitations } : {}),
        ...(forSession
          ? {
              onSessionUpdate: (_acpSessionId: string, update: Parameters<AgentSessionState['apply']>[0]) => void this.agentState.apply(update),
              onSessionOpened: (_acpSessionId: string, response: Parameters<AgentSessionState['opened']>[0]) => this.agentState.opened(response),
            }
          : {}),
      },
      () => this.deps.policy.isTrusted(),
    );
    return { proc, connection, terminals };
  }

  /**
   * Learns the agent's auth methods from `initialize`, then authenticates with the method the person
   * just chose, or with the env-var method stored for this agent (its variables are in this process's
   * environment). A stored method that fails is only logged: `session/new` then says what is missing.
   */
  private async authenticateAtStart(connection: AcpConnection, spec: LaunchSpec, chosen: string | undefined): Promise<void> {
    const info = authInfoOf(spec.command, spec.args, connection.initializeResponse);
    this.auth = { ...info, spec };
    const advertised = (id: string | undefined) => id !== undefined && info.methods.some((m) => m.id === id && m.kind !== 'terminal');
    if (chosen !== undefined) {
      if (!advertised(chosen)) throw new VigilError('INVALID_INPUT', `${spec.label} no longer offers that sign-in method; choose again.`);
      this.deps.log.info(`${spec.label}: authenticating with "${chosen}"`);
      await connection.authenticate(chosen);
      return;
    }
    if (!advertised(spec.authMethodId)) return;
    try {
      await connection.authenticate(spec.authMethodId!);
    } catch (error) {
      this.deps.log.warn(`${spec.label}: authenticate with the stored method "${spec.authMethodId}" failed: ${errorMessage(error)}`);
    }
  }

  /**
   * Why the start failed, as the person needs it: the process exited (code, signal, last stderr
   * lines), or the agent wants a sign-in (ACP auth_required or its own words), or the error as it was.
   */
  private async explainStartFailure(error: unknown, proc: AgentProcess, spec: LaunchSpec): Promise<unknown> {
    if (hasFailure(error) || isVigilError(error, 'CANCELLED')) return error;
    // A closed connection is usually a dead process: give its exit a moment to be reported.
    const exit = proc.exit ?? (await untilAborted(proc.exited, timeoutSignal(exitReportMs), () => undefined));
    if (exit && !this.killed.has(proc)) {
      return exitFailure({ label: spec.label, exit, stderr: await proc.finalStderr(), phase: 'start', setting: spec.builtin ? spec.setting : 'vigil.agent', builtin: spec.builtin });
    }
    if (!spec.builtin && isAuthError(error)) return authFailure({ label: this.auth?.label ?? spec.label, agentMessage: errorMessage(error), methods: this.auth?.methods ?? [] });
    return error;
  }

  /** What the agent's last `initialize` said about signing in (undefined before the first one). */
  get authInfo(): AgentAuthInfo | undefined {
    if (!this.auth) return undefined;
    const { spec, ...info } = this.auth;
    return { ...info, identity: agentIdentity(spec.command, spec.args), builtin: spec.builtin };
  }

  /** The launch of the last start (for a terminal login that reproduces the agent's invocation). */
  get lastLaunch(): LaunchSpec | undefined {
    return this.auth?.spec;
  }

  /** The auth methods, starting the agent just for `initialize` when it never ran in this window. */
  async inspectAuth(signal?: AbortSignal): Promise<AgentAuthInfo> {
    if (!this.auth) await this.withConnection(async () => undefined, signal);
    return this.authInfo!;
  }

  /**
   * Signs in with an `agent` or `env_var` method: a fresh process (the env-var values are read at
   * launch) that `authenticate`s before it opens the session. Rejects with the agent's reason.
   */
  async signIn(methodId: string, signal?: AbortSignal): Promise<void> {
    if (this.running) throw new VigilError('SESSION_BUSY', 'A turn is running in this session; stop it or let it finish, then sign in.');
    await this.restart('signing in');
    this.authOnStart = methodId;
    try {
      const starting = this.ensureStarted();
      signal?.addEventListener(
        'abort',
        () => {
          const proc = this.startingProcess;
          if (!proc) return;
          this.killed.add(proc);
          void proc.kill();
        },
        { once: true },
      );
      await starting;
    } finally {
      this.authOnStart = undefined;
    }
  }

  /** Starts the agent (if it is not running) so the person learns now, not at their next message, whether it works. */
  async verifyStart(): Promise<void> {
    await this.ensureStarted();
  }

  /** ACP `logout`, on the running agent or on one started for it; the agent is then restarted fresh. */
  async logout(signal?: AbortSignal): Promise<void> {
    if (this.running) throw new VigilError('SESSION_BUSY', 'A turn is running in this session; stop it or let it finish, then sign out.');
    await this.withConnection((connection) => connection.logout(signal), signal);
    await this.restart('signed out');
  }

  /** Stops the agent process (not the handle): the next prompt starts one with the launch as it is then. */
  async restart(reason: string): Promise<void> {
    if (this.running) throw new VigilError('SESSION_BUSY', 'A turn is running in this session.');
    await this.kill(reason);
  }

  /** Runs `fn` on the live connection, or on a process started just for it (initialized, then stopped). */
  private async withConnection<T>(fn: (connection: AcpConnection) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const live = this.live ?? (await this.starting?.catch(() => undefined));
    if (live) return fn(live.connection);
    const spec = await this.deps.launch();
    const { proc, connection } = await this.spawn(spec, false);
    const stop = () => void proc.kill();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      await connection.initialize(this.deps.initializeTimeoutMs ?? defaultInitializeTimeoutMs, spec.label);
      this.auth = { ...authInfoOf(spec.command, spec.args, connection.initializeResponse), spec };
      return await fn(connection);
    } catch (error) {
      throw await this.explainStartFailure(error, proc, spec);
    } finally {
      signal?.removeEventListener('abort', stop);
      this.killed.add(proc);
      await proc.kill();
      connection.close();
    }
  }

  /** Another process opened this session's agent session since ours did: ours holds a stale copy of it. */
  private async continuedElsewhere(live: Live): Promise<boolean> {
    if (!live.opener) return false;
    const binding = await this.book.read(this.sessionId).catch(() => undefined);
    return binding !== undefined && binding.opener !== live.opener;
  }

  /** Stops a live process on purpose (not a crash); the next start reloads the history from the transcript. */
  private async retire(live: Live, reason: string): Promise<void> {
    this.deps.log.info(`restarting the agent of session ${this.sessionId}: ${reason}`);
    this.killed.add(live.process);
    await live.process.kill();
    this.drop(live);
    this.history = undefined;
  }

  /** The agent process is released (idle, window closing, restart): `session/close` (bounded), then the process is stopped. */
  async release(closeTimeoutMs = this.deps.closeTimeoutMs ?? 2_000): Promise<void> {
    this.disposed = true;
    const live = this.live ?? (await this.starting?.catch(() => undefined));
    if (live) await closeAgentSession(live.connection, live.acpSessionId, this.deps.log, closeTimeoutMs);
    await this.kill('session released');
  }

  /**
   * The Vigil session was deleted: its agent session goes too (`session/delete`, else close). With no
   * live process one is started only for an agent that said it deletes sessions, and only if it is still
   * the agent that made the id.
   */
  async deleteAgentSession(binding: AgentSessionBinding | undefined): Promise<'deleted' | 'closed' | 'none'> {
    this.disposed = true;
    const timeout = this.deps.closeTimeoutMs ?? 2_000;
    try {
      const live = this.live ?? (await this.starting?.catch(() => undefined));
      // The live process's own session: a binding another window wrote may name another agent's id.
      if (live) return await deleteAgentSession(live.connection, live.acpSessionId, this.deps.log, timeout);
      if (!binding || binding.launch === 'builtin' || !binding.supports.delete) return 'none';
      const spec = await this.deps.launch();
      if (launchIdentity(spec) !== binding.launch) {
        this.deps.log.info(`the agent session of ${this.sessionId} belongs to an agent no longer configured; it is left to that agent`);
        return 'none';
      }
      const { proc, connection, terminals } = await this.spawn(spec, false);
      try {
        await connection.initialize(this.deps.initializeTimeoutMs ?? defaultInitializeTimeoutMs, spec.label);
        // Some agents (Codex) take session requests only after the stored sign-in method.
        await this.authenticateAtStart(connection, spec, undefined);
        return await deleteAgentSession(connection, binding.agentSessionId, this.deps.log, timeout);
      } finally {
        this.killed.add(proc);
        await proc.kill();
        connection.close();
        void terminals.agentGone();
      }
    } finally {
      await this.kill('session deleted');
    }
  }

  private onProcessExit(live: Live, exit: AgentExit): void {
    const expected = this.killed.has(live.process);
    this.drop(live);
    if (!expected) {
      const tail = live.process.recentStderr;
      this.crashNotice = `The agent process crashed (exit code ${exit.code ?? 'none'}${exit.signal ? `, signal ${exit.signal}` : ''}) and was restarted.${tail ? ` Its last output: ${tail.slice(-500)}` : ''}`;
      this.deps.log.error(`agent of session ${this.sessionId} exited unexpectedly (code ${exit.code}, signal ${exit.signal})`);
    }
    this.exits.emit(exit, (error) => this.deps.log.error(`onExit listener failed: ${errorMessage(error)}`));
  }

  private drop(live: Live): void {
    if (this.live === live) this.live = undefined;
    live.connection.close();
    void live.terminals.agentGone();
  }

  /** Maps a failed prompt onto the supervisor's AgentFailure codes. */
  private async classify(error: unknown, live: Live): Promise<Error> {
    if (error instanceof RequestError) {
      const data = promptErrorData.safeParse(error.data);
      if (data.success) {
        const code = data.data.vigil.code === 'PROVIDER_AUTH' ? 'PROVIDER_AUTH' : data.data.vigil.code === 'PROVIDER_QUOTA' ? 'PROVIDER_QUOTA' : 'AGENT_FAILED';
        return failure(error, code, error.message);
      }
      if (this.auth && !this.auth.spec.builtin && isAuthError(error)) return authFailure({ label: this.auth.label, agentMessage: error.message, methods: this.auth.methods });
      return failure(error, 'AGENT_FAILED', `The agent answered the prompt with an error: ${error.message}`);
    }
    // Closed connection: wait briefly for the exit status so a crash is reported as one.
    const exit = await untilAborted(live.process.exited, timeoutSignal(exitReportMs), () => undefined);
    if (exit && !this.killed.has(live.process)) {
      const spec = this.auth?.spec;
      return exitFailure({ label: spec?.label ?? 'the agent', exit, stderr: await live.process.finalStderr(), phase: 'turn', setting: spec && !spec.builtin ? 'vigil.agent' : (spec?.setting ?? 'vigil.agent'), builtin: spec?.builtin ?? false });
    }
    if (exit) return failure(error, 'AGENT_FAILED', 'The agent process was stopped during the turn.');
    return failure(error, 'AGENT_FAILED');
  }
}

/** Whether an error already carries the supervisor's AgentFailure (it was explained where it happened). */
function hasFailure(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | undefined)?.cause as Partial<AgentFailure> | undefined;
  return error instanceof Error && typeof cause === 'object' && cause !== null && typeof cause.code === 'string' && typeof cause.message === 'string';
}

function failure(error: unknown, code: AgentFailure['code'], message = errorMessage(error)): Error {
  const cause: AgentFailure = { code, message };
  const wrapped = new Error(message, { cause });
  (wrapped as Error & { original?: unknown }).original = error;
  return wrapped;
}
