// The supervisor's AgentHandle for one session, served by one agent process over ACP: spawned on
// demand, restarted on the next prompt after a crash (and the crash reported), killed as a tree.

import { RequestError } from '@agentclientprotocol/sdk';
import type { ChatMessage } from '../../../agent/providers/types';
import { promptErrorData } from '../../../agent/vigilProtocol';
import { errorMessage, VigilError } from '../common/errors';
import { EventHub, type Unsubscribe } from '../common/events';
import type { AgentFailure, AgentHandle, LeftoverReport, PromptOutcome, PromptRequest } from '../ports/agentHandle';
import type { Logger } from '../ports/logger';
import type { TerminalHost } from '../ports/terminalHost';
import { AcpConnection } from './acpConnection';
import { ActivityDescriber } from './activityDescriber';
import { AgentSessionState } from './agentSessionState';
import { describeChoice, optionChange, type OptionValue } from './agentOptionChange';
import type { LaunchSpec } from './agentLaunch';
import { AgentProcess, type AgentExit } from './agentProcess';
import { HistoryRecorder } from './historyRecorder';
import { collectMcpServers, type McpServerSource } from './mcpServerSource';
import type { ApprovalPolicy, LanguageModelBridge, PermissionPrompter } from './hostPorts';
import { PermissionGate } from './permissionGate';
import { TerminalBridge } from './terminalBridge';
import { WorkspaceFs } from './workspaceFs';
import { TurnLeftovers } from '../supervisor/turnLeftovers';
import type { AgentMarker } from '../supervisor/turnProcesses';

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
  /** Bound on the agent's answer to `initialize` (default 20 s). */
  initializeTimeoutMs?: number;
  /** History from the durable transcript for the first spawn (e.g. after a window reload). */
  loadHistory?(): Promise<ChatMessage[]>;
  /** MCP servers offered to the agent whenever a session is opened (none when absent). */
  mcpServers?: readonly McpServerSource[];
}

interface Live {
  process: AgentProcess;
  connection: AcpConnection;
  acpSessionId: string;
  terminals: TerminalBridge;
  label: string;
  marker: AgentMarker;
}

export class AcpAgentHandle implements AgentHandle {
  private live: Live | undefined;
  private starting: Promise<Live> | undefined;
  private running: { gate: PermissionGate; acpSessionId: string } | undefined;
  private readonly gate: PermissionGate;
  private readonly exits = new EventHub<{ code: number | null; signal: string | null }>();
  private readonly killed = new WeakSet<AgentProcess>();
  private history: HistoryRecorder | undefined;
  private crashNotice: string | undefined;
  private previousAcpSessionId: string | undefined;
  private disposed = false;
  private readonly leftovers: TurnLeftovers;
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
    this.leftovers = new TurnLeftovers({ log: deps.log, spared: () => deps.terminals?.ownedProcessIds?.() ?? [] });
    this.agentState = new AgentSessionState((error) => deps.log.error(`agent state listener failed: ${errorMessage(error)}`));
  }

  /** Starts the agent without a prompt, so its options and commands are known (e.g. for a picker). */
  async prepare(): Promise<void> {
    try {
      await this.ensureStarted();
    } catch (error) {
      throw failure(error, 'AGENT_FAILED');
    }
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
    const live = await this.ensureStarted().catch((error: unknown) => {
      throw failure(error, 'AGENT_FAILED');
    });
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
    let live: Live;
    const spawning = !this.live;
    try {
      live = await this.ensureStarted();
    } catch (error) {
      throw failure(error, 'AGENT_FAILED');
    }
    // A (re)started agent answered initialize and opened the session: that is progress of this turn.
    if (spawning) request.onEvent({ description: `agent: started (pid ${live.process.pid})`, waitingOn: { kind: 'agent' } });
    if (this.crashNotice) {
      request.onEvent({ description: this.crashNotice, waitingOn: { kind: 'agent' } });
      this.crashNotice = undefined;
    }
    this.history!.user(request.text);
    this.running = { gate: this.gate, acpSessionId: live.acpSessionId };
    await this.leftovers.begin(request.turnId, live.process.pid, live.marker);
    try {
      const response = await live.connection.prompt(live.acpSessionId, request.text, {
        describer,
        onEvent: (event) => {
          if (event.update) this.history!.update(event.update as never);
          this.leftovers.observe(event.update);
          request.onEvent(event);
        },
      });
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
    // A start that fails cleans up after itself (it kills its process), so only a live one matters.
    const live = this.live ?? (await this.starting?.catch((error: unknown) => void this.deps.log.debug(`kill during a failed start: ${errorMessage(error)}`)));
    if (!live) return;
    this.deps.log.warn(`killing the agent of session ${this.sessionId} (pid ${live.process.pid}): ${reason}`);
    this.killed.add(live.process);
    await live.process.kill();
    this.drop(live);
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
    const proc = await AgentProcess.start({ ...spec, env: { ...spec.env, [marker.name]: marker.value } }, this.deps.log, this.deps.cwd);
    const terminals = new TerminalBridge(this.deps.terminals, this.deps.log);
    // What the previous process said (options, commands, usage) does not hold for this one.
    this.agentState.reset();
    const connection = new AcpConnection(
      proc,
      {
        vigilSessionId: this.sessionId, log: this.deps.log, workspace: new WorkspaceFs(this.deps.cwd), gate: this.gate, terminals, lm: this.deps.lm,
        onSessionUpdate: (_acpSessionId, update) => void this.agentState.apply(update),
        onSessionOpened: (_acpSessionId, response) => this.agentState.opened(response),
      },
      () => this.deps.policy.isTrusted(),
    );
    try {
      await connection.initialize(this.deps.initializeTimeoutMs ?? 20_000, spec.label);
      this.history ??= new HistoryRecorder(this.deps.loadHistory ? await this.deps.loadHistory() : []);
      const previous = this.previousAcpSessionId;
      const acpSessionId = await this.openSession(connection, spec);
      const live: Live = { process: proc, connection, acpSessionId, terminals, label: spec.label, marker };
      // A reloaded agent session keeps its own options; a fresh one gets the person's choices back.
      if (acpSessionId !== previous) await this.reapplyChoices(live);
      this.live = live;
      void proc.exited.then((exit) => this.onProcessExit(live, exit));
      return live;
    } catch (error) {
      this.killed.add(proc);
      await proc.kill();
      connection.close();
      throw error;
    }
  }

  /**
   * The built-in agent gets its history in `_meta` of session/new. A third-party agent that can load
   * sessions reloads its own earlier session (its replayed updates arrive outside a prompt and are
   * not re-recorded); one that cannot starts afresh, and the person is told.
   */
  private async openSession(connection: AcpConnection, spec: LaunchSpec): Promise<string> {
    const previous = this.previousAcpSessionId;
    const mcpServers = await collectMcpServers(this.deps.mcpServers ?? [], this.sessionId, connection.initializeResponse?.agentCapabilities, (error) =>
      this.deps.log.warn(`an MCP server source failed; the agent starts without its servers: ${errorMessage(error)}`),
    );
    if (!spec.builtin && previous && connection.initializeResponse?.agentCapabilities?.loadSession) {
      try {
        await connection.loadSession(previous, this.deps.cwd, this.history!.snapshot(), mcpServers);
        return previous;
      } catch (error) {
        this.deps.log.warn(`${spec.label} could not reload session ${previous}: ${errorMessage(error)}; starting a new one`);
      }
    }
    const id = await connection.newSession(this.deps.cwd, this.history!.snapshot(), mcpServers);
    if (!spec.builtin && previous) this.crashNotice = `${this.crashNotice ?? ''} ${spec.label} cannot reload sessions, so it starts without the earlier conversation.`.trim();
    this.previousAcpSessionId = id;
    return id;
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
      return failure(error, 'AGENT_FAILED', `The agent answered the prompt with an error: ${error.message}`);
    }
    // Closed connection: wait briefly for the exit status so a crash is reported as one.
    const exit = await Promise.race([live.process.exited, new Promise<undefined>((r) => setTimeout(r, 500))]);
    if (exit && !this.killed.has(live.process)) {
      const tail = live.process.recentStderr;
      return failure(error, 'AGENT_CRASHED', `The agent process crashed during the turn (exit code ${exit.code ?? 'none'}${exit.signal ? `, signal ${exit.signal}` : ''})${tail ? `: ${tail.slice(-500)}` : ''}. It will be restarted on the next prompt.`);
    }
    if (exit) return failure(error, 'AGENT_FAILED', 'The agent process was stopped during the turn.');
    return failure(error, 'AGENT_FAILED');
  }
}

function failure(error: unknown, code: AgentFailure['code'], message = errorMessage(error)): Error {
  const cause: AgentFailure = { code, message };
  const wrapped = new Error(message, { cause });
  (wrapped as Error & { original?: unknown }).original = error;
  return wrapped;
}
