// The supervisor's AgentHandle for one session, served by one agent process over ACP: spawned on
// demand (behind the relay when there is one, so a turn outlives its window), restarted on the next prompt
// after a crash (and the crash reported), killed as a tree, and taken back from the relay after a reload.

import type { PromptCapabilities } from '@agentclientprotocol/sdk';
import { errorMessage, VigilError } from '../common/errors';
import type { AgentEvent, AgentHandle, LeftoverReport, PromptOutcome, PromptRequest } from '../ports/agentHandle';
import type { AcpConnection, PromptSink } from './acpConnection';
import { AgentProcessSlot } from './agentProcessSlot';
import { defaultInitializeTimeoutMs, type AcpHandleDeps, type LiveAgent as Live, type RelayedChannel } from './acpHandleDeps';
import { ActivityDescriber } from './activityDescriber';
import { agentIdentity, authInfoOf, type AgentAuthInfo } from './agentAuth';
import { AgentSessionState } from './agentSessionState';
import type { OptionValue } from './agentOptionChange';
import { AgentOptionControl } from './agentOptionControl';
import type { LaunchSpec } from './agentLaunch';
import type { AgentChannel } from './agentProcess';
import { spawnAgent, type SpawnContext } from './agentSpawn';
import { ElicitationHost } from './elicitationHost';
import { HistoryRecorder } from './historyRecorder';
import { launchIdentity, type AgentSessionBinding } from './agentSessionBinding';
import { closeAgentSession, deleteAgentSession, openAgentSession } from './agentSessionOpener';
import type { ClientOp } from './clientGrants';
import { PermissionGate, type ClientOpVerdict } from './permissionGate';
import { refusalFor } from './promptContent';
import { authenticateAtStart, withOneOffAgent } from './oneOffAgent';
import { classifyPromptError, explainStartFailure, failure, hasFailure, type KnownAuth } from './promptFailure';
import { enterReadOnlyMode } from './readOnlyMode';
import { ackWhenStored, promptAnswer, promptRunning, takeBackAgent } from './relayAdoption';
import { TurnLeftovers, vigilServerPrograms } from '../supervisor/turnLeftovers';
import type { KeptProgram } from '../supervisor/turnProcesses';

export { defaultInitializeTimeoutMs, type AcpHandleDeps } from './acpHandleDeps';

export class AcpAgentHandle extends AgentProcessSlot implements AgentHandle {
  private running: { gate: PermissionGate; acpSessionId: string; describer: ActivityDescriber; onEvent: PromptRequest['onEvent'] } | undefined;
  private readonly gate: PermissionGate;
  private readonly elicitations: ElicitationHost | undefined;
  private history: HistoryRecorder | undefined;
  /** What the agent's last `initialize` said about signing in, and who the agent was. */
  private auth: KnownAuth | undefined;
  /** A sign-in the person chose: `authenticate` with it before `session/new` of the next start. */
  private authOnStart: string | undefined;
  /** The process of the start in flight, so a cancelled sign-in can stop it mid-`authenticate`. */
  private startingProcess: AgentChannel | undefined;
  private readonly leftovers: TurnLeftovers;
  /** The programs of Vigil's own MCP servers the agent was last given: what Stop leaves running. */
  private vigilPrograms: KeptProgram[] = [];
  /** The agent's options, commands, usage and title for this session, across its processes. */
  readonly agentState: AgentSessionState;
  private readonly options: AgentOptionControl;
  /** The window is going and left a running turn to the relay: nothing here may end it. */
  private leaving = false;
  /** A turn is being taken back from the relay and not yet attached. */
  private takingBack = false;

  constructor(sessionId: string, deps: AcpHandleDeps) {
    super(sessionId, deps);
    this.gate = new PermissionGate(deps.policy, deps.prompter, deps.cwd);
    this.leftovers = new TurnLeftovers({
      log: deps.log,
      spared: () => deps.terminals?.ownedProcessIds?.() ?? [],
      // Vigil's task server for this session, should the agent start it only during a turn.
      kept: () => this.vigilPrograms,
    });
    this.agentState = new AgentSessionState((error) => deps.log.error(`agent state listener failed: ${errorMessage(error)}`));
    this.elicitations = deps.elicitations ? new ElicitationHost(sessionId, deps.elicitations, deps.log) : undefined;
    this.options = new AgentOptionControl(this.agentState, deps.log, () => this.startExplained());
  }

  private get spawning(): SpawnContext {
    return { sessionId: this.sessionId, deps: this.deps, gate: this.gate, agentState: this.agentState, elicitations: this.elicitations };
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

  /** Changes one of the agent's options (see AgentOptionControl.set). */
  setOption(configId: string, value: OptionValue): Promise<void> {
    return this.options.set(configId, value);
  }

  async prompt(request: PromptRequest): Promise<PromptOutcome> {
    if (this.running) throw new VigilError('SESSION_BUSY', `a prompt is already running in session ${this.sessionId}`);
    if (request.adopted) return this.promptTakenBack(request);
    const describer = new ActivityDescriber();
    if (this.live && ((request.rewritesHistory && this.auth?.spec.builtin) || (await this.continuedElsewhere(this.live)))) await this.retire(this.live, request.rewritesHistory ? 'its last exchange was replaced' : 'its session was continued by another agent process');
    if (request.rewritesHistory && !this.live) this.history = undefined;
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
    ackWhenStored(live.process, request.stored);
    await this.leftovers.begin(request.turnId, live.process.pid, live.marker);
    try {
      const response = await live.connection.prompt(live.acpSessionId, request.text, this.sink(request, describer), request.attachments);
      return { stopReason: response.stopReason };
    } catch (error) {
      if (this.leaving) return new Promise<never>(() => undefined);
      throw await classifyPromptError(error, live.process, () => this.killed.has(live.process), this.auth);
    } finally {
      this.running = undefined;
      ackWhenStored(live.process, undefined);
      this.gate.endTurn();
      this.leftovers.endPrompt();
    }
  }

  private sink(request: PromptRequest, describer: ActivityDescriber): PromptSink {
    return {
      describer,
      onEvent: (event) => {
        if (event.update) this.history!.update(event.update as never);
        this.leftovers.observe(event.update);
        request.onEvent(event);
      },
    };
  }

  /**
   * The turn an earlier window began, taken back after a reload: re-attach to the relay, adopt its connection state, then let
   * through what the earlier window missed (into this turn, once) and follow the prompt. No relay: it ends as a crash does.
   */
  private async promptTakenBack(request: PromptRequest): Promise<PromptOutcome> {
    this.history ??= new HistoryRecorder(this.deps.loadHistory ? await this.deps.loadHistory() : []);
    this.takingBack = true;
    const back = await takeBackAgent(this.spawning, this.book, request.adopted?.epoch, () => this.leaving).finally(() => (this.takingBack = false));
    // This window went while it took the turn back: the turn stays the relay's, for the next window.
    if (!back) return new Promise<never>(() => undefined);
    const { live, channel, spec } = back;
    this.watch(live);
    this.auth = { ...authInfoOf(spec.command, spec.args, live.connection.initializeResponse), spec };
    const describer = new ActivityDescriber();
    request.adopted?.silentFor(channel.welcome.silentMs);
    this.running = { gate: this.gate, acpSessionId: live.acpSessionId, describer, onEvent: request.onEvent };
    channel.ackAfter(request.stored);
    // What the agent started since the turn began is the turn's, for Stop and the turn's end, also from before the reload.
    await this.leftovers.begin(request.turnId, live.process.pid, live.marker, Date.now() - (request.adopted?.startedAt ?? Date.now()));
    const running = await promptRunning(channel, live.acpSessionId);
    const answer = running ? live.connection.adoptPrompt(live.acpSessionId, this.sink(request, describer), promptAnswer(channel, live.acpSessionId)) : undefined;
    channel.flow();
    try {
      // Its answer reached the earlier window, which went before it could record the end.
      return answer ? { stopReason: (await answer).stopReason } : { stopReason: 'end_turn' };
    } catch (error) {
      throw await classifyPromptError(error, live.process, () => this.killed.has(live.process), this.auth);
    } finally {
      this.running = undefined;
      channel.ackAfter(undefined);
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
    await this.stopProcess(reason);
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

  async dispose(): Promise<void> {
    this.disposed = true;
    this.leftovers.dispose();
    await this.kill('session disposed');
  }

  protected async start(): Promise<Live> {
    const spec = await this.deps.launch();
    // Tags the agent's tree, so what it starts and then daemonizes is still found after a stopped turn.
    const marker = TurnLeftovers.marker();
    const { proc, connection, terminals } = await spawnAgent(this.spawning, { ...spec, env: { ...spec.env, [marker.name]: marker.value } }, true);
    const signIn = this.authOnStart;
    this.startingProcess = proc;
    try {
      await connection.initialize(this.deps.initializeTimeoutMs ?? defaultInitializeTimeoutMs, spec.label);
      await authenticateAtStart(connection, spec, signIn, this.deps.log, (auth) => (this.auth = auth));
      this.history ??= new HistoryRecorder(this.deps.loadHistory ? await this.deps.loadHistory() : []);
      const opened = await openAgentSession({
        connection, spec, cwd: this.deps.cwd, vigilSessionId: this.sessionId, book: this.book, history: this.history.snapshot(),
        mcpServers: this.deps.mcpServers ?? [], log: this.deps.log, timeoutMs: this.deps.openTimeoutMs,
      });
      this.vigilPrograms = vigilServerPrograms(opened.servers, this.sessionId);
      if (opened.notice) this.crashNotice = `${this.crashNotice ?? ''} ${opened.notice}`.trim();
      const live: Live = { process: proc, connection, acpSessionId: opened.acpSessionId, terminals, opener: opened.opener, label: spec.label, marker };
      // A resumed or loaded agent session keeps its own options; a fresh one gets the person's choices back.
      if (opened.how === 'new') await this.options.reapply(live);
      if (spec.readOnlyMode) await enterReadOnlyMode({ state: this.agentState, connection, acpSessionId: opened.acpSessionId, log: this.deps.log, label: spec.label });
      this.watch(live);
      return live;
    } catch (error) {
      const explained = await explainStartFailure(error, proc, spec, this.killed.has(proc), this.auth);
      this.killed.add(proc);
      await proc.kill();
      connection.close();
      throw explained;
    } finally {
      if (this.startingProcess === proc) this.startingProcess = undefined;
    }
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
      signal?.addEventListener('abort', () => this.stopStarting(), { once: true });
      await starting;
    } finally {
      this.authOnStart = undefined;
    }
  }

  private stopStarting(): void {
    const proc = this.startingProcess;
    if (!proc) return;
    this.killed.add(proc);
    void proc.kill();
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
    return withOneOffAgent(this.spawning, await this.deps.launch(), { authenticate: false, ...this.authSlot, signal }, fn);
  }

  private get authSlot() {
    return { learned: (auth: KnownAuth) => void (this.auth = auth), auth: () => this.auth };
  }

  /** Stops a live process on purpose (not a crash); the next start reloads the history from the transcript. */
  private async retire(live: Live, reason: string): Promise<void> {
    this.deps.log.info(`restarting the agent of session ${this.sessionId}: ${reason}`);
    this.killed.add(live.process);
    await live.process.kill();
    this.drop(live);
    this.history = undefined;
  }

  /**
   * The window is going (reload, close). A turn running behind the relay goes on without it (the next
   * window takes it back); otherwise the agent is released as usual.
   */
  async leave(closeTimeoutMs: number): Promise<void> {
    const process = this.live?.process as Partial<RelayedChannel> | undefined;
    // A take-back still attaching detaches itself once attached (promptTakenBack).
    if (this.takingBack || (this.running && process?.detach)) {
      this.leaving = true;
      this.disposed = true;
      await process?.detach?.();
      return;
    }
    await this.release(closeTimeoutMs);
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
      return await withOneOffAgent(this.spawning, spec, { authenticate: true, ...this.authSlot }, (c) => deleteAgentSession(c, binding.agentSessionId, this.deps.log, timeout));
    } finally {
      await this.kill('session deleted');
    }
  }
}
