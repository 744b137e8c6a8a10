// Builds the extension host's long-lived services in dependency order and owns them:
// outbox → task registry → ACP agents → turn supervisor → wakeup coordinator.
// vscode-free, so plain-Node tests can run the whole stack.

import type { McpServerSource } from './core/acp/mcpServerSource';
import type { ElicitationPrompter } from './core/acp/elicitationHost';
import { Disposable, toDisposable } from './core/common/disposable';
import { errorMessage } from './core/common/errors';
import type { Clock } from './core/ports/clock';
import { systemClock } from './core/ports/clock';
import { tagged, type Logger } from './core/ports/logger';
import { Redactor } from './core/common/redactor';
import { redactingLogger } from './core/common/redactingLogger';
import { AcpAgentHandleProvider } from './core/acp/acpHandleProvider';
import { launchSecrets, type LaunchSpec } from './core/acp/agentLaunch';
import type { LaunchPurpose } from './core/acp/acpHandleDeps';
import { historyOfTranscript } from './core/acp/historyRecorder';
import type { ApprovalPolicy, LanguageModelBridge, PermissionPrompter } from './core/acp/hostPorts';
import type { LivenessSettings } from './core/supervisor/livenessSettings';
import { TurnSupervisor } from './core/supervisor/turnSupervisor';
import { TaskRegistry } from './core/tasks/taskRegistry';
import type { TaskCompletion } from './core/tasks/taskTypes';
import type { TaskCaps } from './core/tasks/startSlots';
import { WakeupCoordinator } from './core/wakeups/wakeupCoordinator';
import { WakeupOutbox } from './core/wakeups/wakeupOutbox';
import { CrossWindow } from './core/crosswindow/crossWindow';
import { LastOpenSessions } from './core/folders/lastOpenSessions';
import { SessionFolders } from './core/folders/sessionFolders';
import { folderlessFolder } from './core/folders/folderlessFolder';
import { markPrivateRoot } from './core/acp/workspaceBoundary';
import { SessionStore } from './core/store/sessionStore';
import { AgentSessionRecords } from './core/store/agentSessionRecords';
import type { ChatMessage } from '../shared/agentProtocol/history';
import type { SessionSecrets } from './core/mcp/sessionSecrets';
import { VigilTaskServer } from './core/mcp/vigilTaskServer';
import { TurnCheckpoints } from './core/checkpoints/turnCheckpoints';
import type { EditJournal } from './core/acp/editJournal';
import { RelayAgents } from './core/relay/relayAgents';
import { relayTimings } from './core/relay/relayStart';
import { takeBackTurns } from './core/relay/turnTakeBack';

// The VS Code glue loads this module lazily (its own bundle) and launches agents through these.
export { builtinLaunch, customLaunch } from './core/acp/agentLaunch';

export interface ServiceOptions {
  storageRoot: string;
  windowId: string;
  logger: Logger;
  clock?: Clock;
  /**
   * This window's workspace folders (absolute paths, the window's order), read at every decision.
   * A session runs (agent cwd and fs confinement, terminals' default cwd, wakeups) only in its own
   * recorded folder, and only in a window that has that folder open (core/folders).
   */
  windowFolders(): readonly string[];
  /**
   * Where a session without a folder runs in a window without a folder. Default: an empty private folder of the
   * session's own beside the storage root (core/folders/folderlessFolder.ts); never the storage root itself.
   */
  folderlessCwd?(sessionId: string): string | Promise<string>;
  liveness(): LivenessSettings;
  maxWakeupsPerTurn(): number;
  outputByteLimit(): number;
  /** `vigil.tasks.maxRunningPerSession` / `maxRunningPerWindow`, read at every start (default 16 / 64). */
  taskCaps?(): TaskCaps;
  launchFor(sessionId: string, purpose?: LaunchPurpose): Promise<LaunchSpec>;
  policy: ApprovalPolicy;
  prompter: PermissionPrompter;
  /** Keeps what the agent's writes replaced, for their diffs; absent: writes keep no diff and are never reviewed. */
  edits?: EditJournal;
  /** Puts agents' elicitations to the person (the session view); without it agents are not offered them. */
  elicitations?: ElicitationPrompter;
  lm?: LanguageModelBridge;
  leaseTtlMs?: number;
  /** Least time between two `activity` events of a turn (default 250 ms); tests that read every event set 0. */
  activityThrottleMs?: number;
  /** Every secret Vigil knows; the services add the secrets of each agent launch. Default: a fresh one. */
  redactor?: Redactor;
  /** `vigil.approvals.timeoutSeconds` in ms: an unanswered approval is rejected after it (default 600 s). */
  approvalTimeoutMs?(): number;
  /** The session this window's view shows a person right now, if any (for "nobody can see this approval"). */
  showing?(): string | undefined;
  /** Vigil's MCP task server for third-party agents (core/mcp); absent: not offered. */
  taskServer?: {
    /** Stable while the extension host lives, so a restarted service keeps the sockets' names and secrets. */
    identity: { name: string; secrets: SessionSecrets };
    program: { command: string; args: string[] };
    /** `vigil.tasks.offerToAgents`. */
    offer(): boolean;
    onChoice?(sessionId: string): void;
  };
  /** Further MCP server sources offered to every agent (after the task server). */
  mcpServers?: readonly McpServerSource[];
  /**
   * `vigil.turns.detachedGraceSeconds`, read at every agent start: above 0 each session's agent runs behind
   * Vigil's relay (core/relay) and a turn outlives its window for that long; 0 or absent: agents are the
   * host's children and a turn ends with its window.
   */
  detachedGraceSeconds?(): number;
  /** Checkpoints of each turn's folder (core/checkpoints); absent: turns take none. */
  checkpoints?: { enabled(): boolean; snapshotBoundMs?: number };
}

/** How much of a long transcript a fresh agent process is given as history. */
const historyRecords = 2_000;

export class VigilServices extends Disposable {
  /** Vigil's MCP task server, when offered. */
  taskServer: VigilTaskServer | undefined;
  /** Turn checkpoints and their restore, when asked for. */
  checkpoints: TurnCheckpoints | undefined;

  private constructor(
    readonly supervisor: TurnSupervisor,
    readonly registry: TaskRegistry,
    readonly outbox: WakeupOutbox,
    readonly wakeups: WakeupCoordinator,
    readonly agents: AcpAgentHandleProvider,
    readonly folders: SessionFolders,
    readonly lastOpen: LastOpenSessions,
    readonly crossWindow: CrossWindow,
  ) {
    super();
  }

  // eslint-disable-next-line max-lines-per-function -- the services built in one go, to be split by phase once they are built in dependency order (issue 27, item 1)
  static async start(options: ServiceOptions): Promise<VigilServices> {
    // One redactor for everything the services store, show or log.
    const redactor = options.redactor ?? new Redactor();
    /** The agent each session's latest process is, for the task server's choice of transport. */
    const launched = new Map<string, { builtin: boolean; command: string }>();
    const o: ServiceOptions = {
      ...options,
      logger: redactingLogger(options.logger, redactor),
      launchFor: async (sessionId, purpose) => {
        const spec = await options.launchFor(sessionId, purpose);
        launched.set(sessionId, { builtin: spec.builtin, command: [spec.command, ...spec.args].join(' ') });
        // The agent's auth values (API key, secret `vigil.agent` env values) are secrets from now on, stderr included.
        redactor.add(launchSecrets(spec));
        return { ...spec, redactor };
      },
    };
    const clock = o.clock ?? systemClock;
    const outbox = await WakeupOutbox.open({ storageRoot: o.storageRoot, windowId: o.windowId, clock, logger: o.logger, redactor });
    // The registry may report completions while it re-attaches tasks of an earlier window, before
    // the coordinator exists: they wait here (the outbox makes them durable once it is ready).
    const late: { coordinator?: WakeupCoordinator; supervisor?: TurnSupervisor; prompter?: PermissionPrompter; elicitations?: ElicitationPrompter } = {};
    // Its own store instance on the same root (metadata is read fresh at each decision).
    const folders = new SessionFolders({ store: new SessionStore(o.storageRoot, o.logger, () => clock.wallNow()), windowFolders: o.windowFolders, logger: o.logger });
    // No agent ever reaches Vigil's storage, whatever its folder (core/acp/workspaceBoundary.ts).
    markPrivateRoot(o.storageRoot);
    const folderless = o.folderlessCwd ?? ((sessionId: string) => folderlessFolder(o.storageRoot, sessionId));
    const workFolder = async (sessionId: string) => (await folders.workFolder(sessionId)) ?? folderless(sessionId);
    let release!: () => void;
    const ready = new Promise<void>((resolve) => (release = resolve));
    const registry = await TaskRegistry.open({
      storageRoot: o.storageRoot,
      onCompletion: async (completion: TaskCompletion) => {
        await ready;
        await late.coordinator!.onCompletion(completion);
      },
      workspaceFolder: workFolder,
      clock,
      logger: o.logger,
      defaultOutputByteLimit: o.outputByteLimit(),
      ...(o.taskCaps ? { caps: o.taskCaps } : {}),
      redactor,
    });
    const lateAgents: { agents?: AcpAgentHandleProvider } = {};
    const taskServer = o.taskServer
      ? await VigilTaskServer.start({
          storageRoot: o.storageRoot,
          identity: o.taskServer.identity,
          program: o.taskServer.program,
          offer: o.taskServer.offer,
          onChoice: o.taskServer.onChoice,
          secretGiven: (secret) => redactor.add([secret]),
          agentOf: (sessionId) => launched.get(sessionId),
          registry: () => registry,
          workspaceRoot: workFolder,
          // Held to terminal/create's rules by the session's own gate, during its turn only.
          authorize: async (sessionId, op, signal) =>
            (await lateAgents.agents?.handleOf(sessionId)?.authorizeExternal(op, signal)) ?? { allowed: false, reason: 'The agent of this session is not running in this window, so Vigil runs no command for it.' },
          started: (sessionId, task) => lateAgents.agents?.handleOf(sessionId)?.externalActivity((d) => d.request(`background task ${task.id} started: ${task.command.slice(0, 200)}`)),
          logger: tagged(o.logger, 'task-server'),
        }).catch((error: unknown) => {
          // Agents then run without it (their own shells); the built-in agent's terminals are unaffected.
          o.logger.error(`Vigil's task server could not start: ${errorMessage(error)}`);
          return undefined;
        })
      : undefined;
    const relays = new RelayAgents(o.storageRoot, () => relayTimings(o.detachedGraceSeconds?.() ?? 0, o.liveness()), tagged(o.logger, 'relay'));
    const agents = new AcpAgentHandleProvider({
      log: tagged(o.logger, 'acp'),
      relays: () => ((o.detachedGraceSeconds?.() ?? 0) > 0 && relays.available ? relays : undefined),
      cwdFor: workFolder,
      launchFor: o.launchFor,
      loadHistoryFor: (sessionId) => loadHistory(late.supervisor!, sessionId),
      policy: o.policy,
      ...(o.edits ? { edits: o.edits } : {}),
      // Questions go through the store once the cross-window side exists, so any window can answer them.
      prompter: { ask: (question, signal) => (late.prompter ?? o.prompter).ask(question, signal) },
      terminals: registry,
      lm: o.lm,
      mcpServers: [...(taskServer ? [taskServer] : []), ...(o.mcpServers ?? [])],
      // Like approvals: through the store once the cross-window side exists, answerable anywhere, declined on timeout.
      ...(o.elicitations ? { elicitations: { ask: (question, signal) => (late.elicitations ?? o.elicitations!).ask(question, signal) } satisfies ElicitationPrompter } : {}),
      // Shared by every window on the root: a reload or a takeover resumes the agent's own session.
      agentSessions: new AgentSessionRecords(o.storageRoot, tagged(o.logger, 'acp')),
    });
    lateAgents.agents = agents;
    const checkpoints = o.checkpoints
      ? new TurnCheckpoints({
          storageRoot: o.storageRoot,
          clock,
          logger: tagged(o.logger, 'checkpoints'),
          // Only a session's own folder: a folder-less session has nothing to snapshot.
          folderOf: (sessionId) => folders.workFolder(sessionId),
          records: async (sessionId) => (await late.supervisor!.sessions.readAll(sessionId)).records,
          enabled: o.checkpoints.enabled,
          snapshotBoundMs: o.checkpoints.snapshotBoundMs,
          turnRunning: (sessionId) => late.supervisor!.hasActiveTurn(sessionId),
        })
      : undefined;
    const supervisor = new TurnSupervisor({
      storageRoot: o.storageRoot,
      clock,
      logger: o.logger,
      agents,
      settings: o.liveness,
      windowId: o.windowId,
      leaseTtlMs: o.leaseTtlMs,
      activityThrottleMs: o.activityThrottleMs,
      redactor,
      checkpoints,
    });
    late.supervisor = supervisor;
    await supervisor.sessions.init();
    const coordinator = new WakeupCoordinator({
      turns: supervisor,
      outbox,
      clock,
      logger: o.logger,
      maxPerTurn: o.maxWakeupsPerTurn,
      mayDeliver: (sessionId) => folders.mayDeliver(sessionId),
    });
    const crossWindow = new CrossWindow({
      storageRoot: o.storageRoot,
      windowId: o.windowId,
      clock,
      logger: o.logger,
      supervisor,
      agentPid: (sessionId) => agents.pidOf(sessionId),
      approvalTimeoutMs: o.approvalTimeoutMs ?? (() => 600_000),
      showing: o.showing ?? (() => undefined),
    });
    late.prompter = crossWindow.prompter(o.prompter);
    if (o.elicitations) late.elicitations = crossWindow.elicitationPrompter(o.elicitations);
    const lastOpen = new LastOpenSessions(o.storageRoot, o.logger, () => clock.wallNow());
    const services = new VigilServices(supervisor, registry, outbox, coordinator, agents, folders, lastOpen, crossWindow);
    // Disposed in reverse: wakeups stop first, then turns, agents, and the registry (tasks live on).
    services._register(registry);
    services.taskServer = taskServer;
    services.checkpoints = checkpoints;
    if (checkpoints) services._register(toDisposable(() => checkpoints.dispose()));
    if (taskServer) services._register(toDisposable(() => void taskServer.close().catch((error: unknown) => o.logger.warn(`closing the task server: ${errorMessage(error)}`))));
    services._register(agents);
    services._register(supervisor);
    services._register(coordinator);
    services._register(crossWindow);
    late.coordinator = coordinator;
    coordinator.start();
    release();
    await crossWindow.start().catch((error: unknown) => o.logger.error(`the cross-window mailbox could not start: ${errorMessage(error)}`));
    // Turns an earlier window left to their relays are taken back before the scan would call them interrupted.
    const taken = await takeBackTurns({
      relays, supervisor, mayRun: (id) => folders.mayDeliver(id), logger: tagged(o.logger, 'relay'),
      withdrawQuestions: (id, turnId, windowId) => crossWindow.control.withdrawQuestions(id, turnId, windowId),
    });
    if (taken.length > 0) o.logger.info(`turns taken back after the window reloaded: ${taken.join(', ')}`);
    const recovered = await supervisor.recoverInterrupted().catch((error: unknown) => {
      o.logger.error(`recovering interrupted sessions failed: ${errorMessage(error)}`);
      return [] as string[];
    });
    if (recovered.length > 0) o.logger.info(`sessions interrupted with their window, offered for Resume: ${recovered.join(', ')}`);
    void coordinator.sweep();
    // Each folder's first snapshot in the background now, so the first turn finds its index ready.
    if (checkpoints) for (const folder of o.windowFolders()) void checkpoints.prepare(folder);
    return services;
  }
}

/** Folds the tail of a session's transcript into the plain history a fresh built-in agent continues from. */
async function loadHistory(supervisor: TurnSupervisor, sessionId: string): Promise<ChatMessage[]> {
  const { records } = await supervisor.sessions.readTail(sessionId, historyRecords);
  return historyOfTranscript(records);
}
