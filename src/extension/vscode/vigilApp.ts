// The running extension: status bar, views and commands up front; the services (store, supervisor,
// registry, agents, wakeups) start right after activation, off its critical path.

import * as vscode from 'vscode';
import { randomBytes, randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Disposable, toDisposable } from '../core/common/disposable';
import { errorMessage } from '../core/common/errors';
import { Redactor } from '../core/common/redactor';
import type { Logger } from '../core/ports/logger';
import type { LaunchSpec } from '../core/acp/agentLaunch';
import { SessionSecrets } from '../core/mcp/sessionSecrets';
import { agentLabel } from './agentLabel';
import { mcpSecrets } from '../core/acp/mcpSettings';
import { envSecrets } from '../core/common/secretValues';
import { McpSettingsSource } from '../core/acp/mcpSettingsSource';
import { ApprovalBroker } from '../presentation/approvalBroker';
import { ElicitationBroker } from '../presentation/elicitationBroker';
import { MentionSource } from './mentionSource';
import type { VigilServices } from '../services';
import { ApprovalPrompter, SettingsApprovalPolicy } from './acpHostPorts';
import { VigilConfiguration } from './configuration';
import { folderForNewSession } from '../core/folders/sessionFolder';
import { VscodeLanguageModelBridge } from './languageModelBridge';
import { ModelCommands } from './modelCommands';
import { AgentSignIn } from './agentSignIn';
import { CheckpointCommands } from './checkpointCommands';
import { TurnChangesReview } from './turnChangesReview';
import { AgentOptionPicks } from './agentOptionPicks';
import { SecretStorageSource } from './secrets';
import { registerCommands } from './commands';
import { loadServices } from '../servicesLoader';
import { AttentionNotifier } from './attentionNotifier';
import { SessionController } from './sessionController';
import { folderRow } from '../presentation/sessionPresentation';
import { SessionTreeProvider } from './sessionTree';
import { StatusBarController } from './statusBar';
import type { StatusModel } from '../presentation/statusPresentation';
import type { TurnPhase } from '../../shared/sessionView';
import { TaskTerminals } from './taskTerminal';
import { RestrictedAgentConsent } from './restrictedAgentConsent';
import { SessionViewProvider } from './webview/sessionViewProvider';
import { SessionPanels } from './webview/sessionPanels';
import { viewHandlers } from './webview/viewHandlers';
import { sideBarSurface } from '../presentation/viewSurface';
import { EditorContext } from './editorContext';
import { EditJournal } from '../core/acp/editJournal';
import { EditDiffs } from './editDiffs';
import { ContextKeys } from './contextKeys';
import { activeFile, windowFolders } from './windowFolders';

/** The view's heartbeat comes every 4 s while a person can see it; a little slack for a busy host. */
const viewSeenForMs = 12_000;

export class VigilApp extends Disposable {
  readonly config: VigilConfiguration;
  readonly broker = new ApprovalBroker();
  /** What the agent's writes replaced (bounded, in memory), for their diffs and `ask` review. */
  private readonly edits = new EditJournal();
  readonly editDiffs: EditDiffs;
  readonly elicitations = new ElicitationBroker();
  readonly statusBar: StatusBarController;
  readonly sessionView: SessionViewProvider;
  /** Sessions in editor tabs, each a full session view in step with the side bar's. */
  readonly panels: SessionPanels;
  readonly editorContext: EditorContext;
  readonly sessions: SessionController;
  readonly tree: SessionTreeProvider;
  readonly terminals: TaskTerminals;
  readonly secrets: SecretStorageSource;
  readonly models: ModelCommands;
  readonly signIn: AgentSignIn;
  readonly agentOptions: AgentOptionPicks;
  readonly checkpoints: CheckpointCommands;
  readonly turnChanges: TurnChangesReview;
  /** Restricted Mode: whether the person's own agent may work in a session's folder. */
  readonly restricted: RestrictedAgentConsent;
  private servicesPromise: Promise<VigilServices> | undefined;
  private started: VigilServices | undefined;
  private contextTimer: NodeJS.Timeout | undefined;
  private readonly contextKeys = new ContextKeys();
  /** When the session view last said a person can see it (its heartbeat; a closed tab stops it). */
  private viewSeenAt = 0;
  private readonly titles = new Map<string, string>();
  /** The task server's socket name and session secrets: kept while this extension host lives (a restarted service reuses them). */
  private readonly taskServerIdentity = { name: randomBytes(8).toString('hex'), secrets: SessionSecrets.generate() };

  // eslint-disable-next-line max-lines-per-function -- the window's composition, to be split with the services (issue 27, item 1)
  constructor(
    readonly context: vscode.ExtensionContext,
    readonly logChannel: vscode.LogOutputChannel,
    readonly logger: Logger,
    /** Every secret Vigil knows; cuts them out of what is stored, logged or shown. */
    readonly redactor: Redactor = new Redactor(),
  ) {
    super();
    this.editDiffs = this._register(new EditDiffs(this.edits, logger));
    this.config = this._register(VigilConfiguration.forWindow(context, logger));
    void this.config.noteAgentChoiceAtStart();
    this.restricted = RestrictedAgentConsent.forApp(this, () => this.restartIdleAgents());
    this.learnAgentEnv();
    this.learnMcpSecrets();
    const mentions = new MentionSource();
    this.sessions = this._register(
      new SessionController({
        services: () => this.services(),
        broker: this.broker,
        elicitations: this.elicitations,
        mentions,
        workFolder: async (sessionId) => (await this.services()).folders.workFolder(sessionId),
        logger,
        memento: context.workspaceState,
        post: (event) => this.sessionView.postEvent(event),
        postSnapshot: (snapshot) => this.sessionView.postSnapshot(snapshot),
        reveal: () => this.sessionView.reveal(true),
        changed: (statusOnly) => this.changed(statusOnly),
        metaExtra: (sessionId) => this.restricted.labelled(sessionId, agentLabel(this.config, (id) => this.started?.taskServer?.unavailable(id), sessionId)),
        folderForNewSession: () => folderForNewSession(windowFolders(), activeFile()),
        windowKey: () => windowFolders()[0] ?? '',
        onTurnFailed: (ended, text) => this.signIn.turnFailed(ended, text),
        agentChoiceSettled: (hooks) => this.config.agentChoiceSettled(hooks),
      }),
    );
    const handlers = viewHandlers(this);
    this.sessionView = this._register(new SessionViewProvider({ extensionUri: context.extensionUri, logger, surface: sideBarSurface(this.sessions), handlers, redactor }));
    this.panels = this._register(new SessionPanels({ extensionUri: context.extensionUri, logger, sessions: this.sessions, handlers, redactor }));
    this.editorContext = this._register(new EditorContext({
      mentions, panels: this.panels, view: this.sessionView, viewSessionId: () => this.sessions.currentSessionId,
      root: async (sessionId) => (sessionId ? (await this.services()).folders.workFolder(sessionId) : folderForNewSession(windowFolders(), activeFile())),
    }));
    this.statusBar = this._register(new StatusBarController(() => this.statusModel()));
    this._register(this.sessionView.onDidReceiveMessage(() => (this.viewSeenAt = Date.now())));
    this.tree = this._register(
      new SessionTreeProvider({
        store: async () => (await this.services()).supervisor.sessions,
        statusOf: (id) => this.phaseOf(id),
        elsewhere: (id) => this.started?.crossWindow.elsewhere(id) !== undefined,
        tasks: () => this.started?.registry,
        isTurnActive: async (id) => (await this.services()).supervisor.hasActiveTurn(id),
        folderOf: async (meta) => folderRow(await (await this.services()).folders.checkMeta(meta)),
        logger,
      }),
    );
    this.terminals = this._register(
      new TaskTerminals({ tasks: async () => (await this.services()).registry, logger, redactor }),
    );
    this.secrets = this._register(new SecretStorageSource(context.secrets, logger, redactor));
    this.signIn = new AgentSignIn({
      agent: async (sessionId) => (await this.services()).agents.handle(sessionId),
      secrets: context.secrets,
      redactor,
      logger,
      showLog: () => this.logChannel.show(),
      currentSessionId: () => this.sessions.currentSessionId,
      send: (sessionId, text) => this.sessions.prompt({ sessionId, text }),
      unpause: async (sessionId) => (await this.services()).supervisor.unpause(sessionId),
      cwd: () => windowFolders()[0],
    });
    this.agentOptions = new AgentOptionPicks({
      services: () => this.services(),
      currentSessionId: () => this.sessions.currentSessionId,
      turnLive: (id) => (id === this.sessions.currentSessionId ? this.sessions.turnLive : this.started?.supervisor.getSnapshot(id) !== undefined),
      thirdPartyAgent: () => this.config.customAgent() !== undefined,
      logger,
      redact: (text) => redactor.redact(text),
    });
    this.checkpoints = this._register(new CheckpointCommands({ services: () => this.services(), currentSessionId: () => this.sessions.currentSessionId, logger }));
    this.turnChanges = new TurnChangesReview({ services: () => this.services(), currentSessionId: () => this.sessions.currentSessionId, logger });
    this.models = new ModelCommands({ globalState: context.globalState, secrets: this.secrets, config: this.config, logger, agentModel: () => this.agentOptions.selectAgentModel() });
    this._register(this.tree.onDidDeleteSession((id) => {
      this.panels.close(id);
      void this.started?.agents.forget(id);
    }));
    // Which sessions are this window's depends on its folders: re-sort the list when they change.
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.tree.refresh()));
    // A new agent, model or key applies from the next agent process: stop the idle ones now.
    this._register(this.config.onDidChange((change) => {
      if (change.affects('vigil.agent')) this.learnAgentEnv();
      if (change.affects('vigil.mcpServers')) this.learnMcpSecrets();
      if (change.affects('vigil.agent') || change.affects('vigil.model') || change.affects('vigil.mcpServers') || change.affects('vigil.tasks.offerToAgents')) void this.restartIdleAgents();
      if (change.affects('vigil.agent') || change.affects('vigil.tasks.offerToAgents')) this.sessions.refreshMeta();
    }));
    this._register(this.secrets.onDidChange(() => void this.restartIdleAgents()));
    registerCommands(this);
    this._register(toDisposable(() => this.contextTimer && clearTimeout(this.contextTimer)));
    // Start the services soon, but not inside activate: a reloaded window re-attaches its
    // background tasks, recovers interrupted sessions and delivers pending wakeups from here.
    setImmediate(() => {
      if (this.isDisposed) return;
      void this.services()
        .then(() => this.sessions.restoreLast())
        .catch((error: unknown) => logger.error(`Vigil could not start its services: ${errorMessage(error)}`));
    });
  }

  /** The services, started once; a failure is reported and retried on the next use. */
  services(): Promise<VigilServices> {
    this.servicesPromise ??= this.startServices().catch((error: unknown) => {
      this.servicesPromise = undefined;
      const showLog = vscode.l10n.t('Show Log');
      void vscode.window.showErrorMessage(this.redactor.redact(vscode.l10n.t('Vigil could not start: {0}', errorMessage(error))), showLog).then((c) => c === showLog && this.logChannel.show());
      throw error;
    });
    return this.servicesPromise;
  }

  private async startServices(): Promise<VigilServices> {
    const storageRoot = this.context.globalStorageUri.fsPath;
    // Stored keys are known before the first write: recovery and re-attached tasks write at start.
    await this.secrets.learned;
    const services = await loadServices().VigilServices.start({
      storageRoot,
      redactor: this.redactor,
      windowId: randomUUID(),
      logger: this.logger,
      windowFolders,
      liveness: () => this.config.settings.liveness,
      maxWakeupsPerTurn: () => this.config.settings.wakeups.maxPerTurn,
      detachedGraceSeconds: () => this.config.settings.turns.detachedGraceSeconds,
      outputByteLimit: () => this.config.settings.tasks.outputByteLimit,
      taskCaps: () => ({ perSession: this.config.settings.tasks.maxRunningPerSession, perWindow: this.config.settings.tasks.maxRunningPerWindow }),
      launchFor: (sessionId, purpose) => this.launch(sessionId, purpose),
      policy: new SettingsApprovalPolicy(this.config),
      edits: this.edits,
      prompter: new ApprovalPrompter({
        surface: () => ({
          ask: (question, signal) => this.broker.ask(question, signal),
          isShowing: (sessionId) => this.showsSession(sessionId),
        }),
        sessionTitle: (sessionId) => (sessionId === this.sessions.currentSessionId ? this.sessions.currentSnapshot?.session?.title : undefined),
        logger: this.logger,
        redact: (text) => this.redactor.redact(text),
      }),
      lm: new VscodeLanguageModelBridge(),
      elicitations: this.elicitations,
      approvalTimeoutMs: () => this.config.settings.approvals.timeoutSeconds * 1000,
      taskServer: {
        identity: this.taskServerIdentity,
        program: { command: process.execPath, args: [path.join(this.context.extensionPath, 'dist', 'taskServer.js')] },
        offer: () => this.config.settings.tasks.offerToAgents,
        onChoice: (sessionId) => this.sessions.refreshMeta(sessionId),
      },
      // Read at each session open: the effective (trust-resolved, validated) value of vigil.mcpServers then.
      mcpServers: [new McpSettingsSource(() => this.mcpServers(), this.logger, () => this.config.isTrusted())],
      showing: () => this.visibleSessionId(),
      checkpoints: { enabled: () => this.config.settings.checkpoints.enabled },
    });
    if (this.isDisposed) {
      services.dispose();
      throw new Error('Vigil was deactivated while starting');
    }
    this._register(services);
    this.started = services;
    this.sessions.attach(services);
    this._register(new AttentionNotifier({
      subscribe: (listener) => services.supervisor.subscribe(listener),
      showing: (sessionId) => this.visibleSessionId() === sessionId || this.panels.isShowing(sessionId),
      // The same test as the prompter's `isShowing` above: when it fails, the prompter asks in a notification.
      approvalPrompterNotifies: (sessionId) => !this.showsSession(sessionId),
      title: async (sessionId) => (await services.supervisor.sessions.get(sessionId))?.title,
      redact: (text) => this.redactor.redact(text),
      settings: () => this.config.settings.notifications,
      logger: this.logger,
    }));
    this._register(toDisposable(services.crossWindow.onWaitingChanged((waiting) => {
      void this.learnTitles(services, waiting.map((w) => w.request.sessionId));
      this.changed();
    })));
    this.logger.info(`Vigil services started (storage: ${storageRoot})`);
    this.changed();
    return services;
  }

  /** The session the view shows while a person can see it (its heartbeat is recent), else the focused tab's. */
  private visibleSessionId(): string | undefined {
    return (this.sessionView.isReady && Date.now() - this.viewSeenAt < viewSeenForMs ? this.sessions.currentSessionId : undefined) ?? this.panels.activeSessionId;
  }

  /** Whether the view or a tab of the session can show an approval (else the prompter asks in a notification). */
  private showsSession(sessionId: string): boolean {
    return (this.sessionView.isReady && this.sessions.currentSessionId === sessionId) || this.panels.isShowing(sessionId);
  }

  /** `vigil.agent`'s secret env values (by name, or listed in `secretEnv`): secrets as soon as they are configured, before any launch. */
  private learnAgentEnv(): void {
    const custom = this.config.customAgent();
    if (!custom) return;
    // The launch adds the same (customLaunch); here they are known before it, and before the services load.
    this.redactor.add(envSecrets(custom.env ?? {}, custom.secretEnv));
    this.redactor.add((custom.secretEnv ?? []).map((name) => process.env[name]));
  }

  /** `vigil.mcpServers`' secret env and header values: secrets as soon as they are configured. */
  private learnMcpSecrets(): void {
    this.redactor.add(mcpSecrets(this.config.settings.mcpServers));
  }

  /** The servers for the session being opened; a workspace value confirmed just now brings secrets no change event announced. */
  private mcpServers() {
    const servers = this.config.settings.mcpServers;
    this.redactor.add(mcpSecrets(servers));
    return servers;
  }

  /** How the next agent process of a session is started: settings (a workspace's agent or endpoint only once confirmed) and keys as they are now. */
  private async launch(sessionId: string, purpose: { takingBack?: boolean } = {}): Promise<LaunchSpec> {
    const { builtinLaunch, customLaunch } = loadServices();
    const { agent, model } = await this.config.launchSettings(purpose);
    // In Restricted Mode the person's own agent starts only with their consent (a turn taken back was admitted); else the built-in serves.
    const { agent: custom, readOnlyMode } = purpose.takingBack ? { agent, readOnlyMode: undefined } : await this.restricted.admit(sessionId, agent);
    if (custom) return this.signIn.withStoredCredentials({ ...customLaunch(custom), readOnlyMode });
    const apiKey = await this.secrets.apiKeyFor(model);
    return builtinLaunch({ agentScript: path.join(this.context.extensionPath, 'dist', 'agent.js'), execPath: process.execPath, model, apiKey });
  }

  private async restartIdleAgents(): Promise<void> {
    const services = this.started;
    if (!services) return;
    for (const session of await services.supervisor.sessions.list()) {
      if (!services.supervisor.getSnapshot(session.id)) await services.agents.release(session.id);
    }
  }

  /** The status bar's click: the session of an approval nobody sees, if there is one; else the open session. */
  async focusSession(): Promise<void> {
    const unseen = this.started?.crossWindow.waiting.find((w) => !w.shown);
    if (unseen && unseen.request.sessionId !== this.sessions.currentSessionId) await this.sessions.open(unseen.request.sessionId);
    await this.sessionView.reveal();
  }

  /** The state the session list shows: the view's own (its model, or the turn this window runs), else another window's. */
  phaseOf(sessionId: string): TurnPhase | undefined {
    const here = this.sessions.phaseOf(sessionId);
    if (here !== undefined) return here;
    if (this.started?.supervisor.getSnapshot(sessionId)) return 'running';
    const remote = this.started?.crossWindow.elsewhere(sessionId);
    return remote ? (remote.phase === 'awaitingApproval' ? 'awaitingApproval' : remote.phase === 'stalled' ? 'stalled' : 'running') : undefined;
  }

  statusModel(): StatusModel {
    const snapshot = this.sessions.currentSnapshot;
    const runningTasks = this.started?.registry.list().filter((t) => t.status === 'running').length ?? 0;
    const unseen = (this.started?.crossWindow.waiting ?? []).filter((w) => !w.shown);
    const unseenApproval = unseen.length > 0
      ? { sessionTitle: this.titles.get(unseen[0].request.sessionId) ?? 'a session', question: unseen[0].request.title, count: unseen.length }
      : undefined;
    if (!snapshot?.session) return { phase: 'idle', runningTasks, unseenApproval };
    const live = this.started?.supervisor.getSnapshot(snapshot.session.id);
    const now = Date.now();
    const stop = snapshot.notices.find((n) => n.kind === 'abort' || n.kind === 'interrupted');
    return {
      phase: snapshot.turn.phase,
      why: stop?.text,
      sessionTitle: snapshot.session.title,
      elapsedMs: snapshot.turn.startedAt !== undefined ? now - snapshot.turn.startedAt : undefined,
      silenceMs: live?.silenceMs ?? (snapshot.turn.lastActivityAt !== undefined ? now - snapshot.turn.lastActivityAt : undefined),
      waitingOn: snapshot.turn.waitingOn,
      runningTasks,
      elsewhere: snapshot.turn.where !== undefined,
      unseenApproval,
    };
  }

  private async learnTitles(services: VigilServices, sessionIds: string[]): Promise<void> {
    for (const id of sessionIds) {
      if (this.titles.has(id)) continue;
      const meta = await services.supervisor.sessions.get(id).catch(() => undefined);
      if (meta) this.titles.set(id, meta.title);
    }
    this.changed(true);
  }

  /**
   * Status bar, the list's rows whose state changed and whether a turn runs or can be retried (Abort Turn, Retry Last Turn) now, on
   * the same event as the view; the other context keys and a listing of the stored sessions a moment later
   * (bursts coalesce). Mere activity (`statusOnly`) does not list the sessions again.
   */
  private changed(statusOnly = false): void {
    this.statusBar.render();
    this.tree.redrawChanged();
    this.contextKeys.set('vigil.turnRunning', this.sessions.turnLive).set('vigil.canRetry', this.sessions.redo.canRetry());
    if (statusOnly || this.contextTimer) return;
    this.contextTimer = setTimeout(() => {
      this.contextTimer = undefined;
      void this.updateContext();
      this.tree.refresh();
    }, 100);
  }

  private async updateContext(): Promise<void> {
    const services = this.started;
    const phase = this.sessions.currentSnapshot?.turn.phase;
    const resumable = phase === 'aborted' || phase === 'interrupted' || (services ? (await services.supervisor.listResumable()).length > 0 : false);
    this.contextKeys.set('vigil.hasResumable', resumable);
    this.contextKeys.set('vigil.hasRunningTasks', (services?.registry.list().some((t) => t.status === 'running')) ?? false);
  }
}
