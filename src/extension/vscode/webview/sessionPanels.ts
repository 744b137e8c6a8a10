// Sessions in editor tabs: one WebviewPanel per session, each a full session view over the same channel and
// protocol as the side bar's (SessionViewChannel), fed by the same model of the session (SessionModels.watch),
// so the view and every tab of a session stay in step. A session opened again reveals its tab.

import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../../core/common/disposable';
import { errorMessage } from '../../core/common/errors';
import type { Redactor } from '../../core/common/redactor';
import { tagged, type Logger } from '../../core/ports/logger';
import type { MentionItem } from '../../../shared/promptContext';
import type { WebviewMessage } from '../../../shared/webviewProtocol';
import { SessionViewChannel } from '../../presentation/sessionViewChannel';
import type { IntentHandlers } from '../../presentation/viewHandlers';
import type { ModelWatcher } from '../../presentation/sessionModels';
import type { SessionSnapshot } from '../../../shared/sessionView';
import { tabSurface } from '../../presentation/viewSurface';
import { copyToClipboard, renderSessionWebview, sessionWebviewOptions } from './sessionWebview';

/** What the tabs need of the session controller (sessionController.ts). */
export interface TabSessions {
  watch(sessionId: string, watcher: ModelWatcher): Promise<() => void>;
  snapshotOf(sessionId: string): SessionSnapshot;
}

export interface SessionPanelsOptions {
  extensionUri: vscode.Uri;
  sessions: TabSessions;
  /** The side bar's handlers: a tab's messages do what the side bar's do, aimed at the tab's session (viewSurface.ts). */
  handlers: IntentHandlers;
  logger: Logger;
  redactor?: Redactor;
}

/** One session's editor tab. Disposing it closes the tab; closing the tab disposes it. */
export class SessionPanel extends Disposable {
  readonly channel: SessionViewChannel;
  private panel: vscode.WebviewPanel | undefined;

  constructor(
    readonly sessionId: string,
    o: SessionPanelsOptions,
    private readonly hooks: { message(message: WebviewMessage): void; closed(): void },
  ) {
    super();
    const redact = o.redactor ? <T>(value: T) => o.redactor!.redactValue(value) : undefined;
    const surface = tabSurface(sessionId, () => o.sessions.snapshotOf(sessionId));
    this.channel = new SessionViewChannel((m) => this.panel?.webview.postMessage(m), surface, o.handlers, o.logger, { onAccepted: (m) => hooks.message(m) }, redact, (text) => copyToClipboard(text));
  }

  /**
   * Follows the session's model, then opens the tab (or takes the one VS Code restored after a reload); the model
   * is held before the tab asks for it.
   */
  async show(o: SessionPanelsOptions, where: { column: vscode.ViewColumn } | { restored: vscode.WebviewPanel }): Promise<void> {
    const unwatch = await o.sessions.watch(this.sessionId, {
      event: (event) => {
        this.channel.postEvent(event);
        if (event.type === 'sessionMetaChanged') this.title(event.session.title, o.redactor);
      },
      snapshot: (snapshot) => this.channel.postSnapshot(snapshot),
    });
    this._register(toDisposable(unwatch));
    if (this.isDisposed) return;
    const distUri = vscode.Uri.joinPath(o.extensionUri, 'dist');
    const options = sessionWebviewOptions(distUri);
    const panel = 'restored' in where ? where.restored : vscode.window.createWebviewPanel(SessionPanels.viewType, 'Vigil', { viewColumn: where.column }, options);
    if ('restored' in where) panel.webview.options = options;
    this.panel = panel;
    panel.iconPath = vscode.Uri.joinPath(o.extensionUri, 'media', 'vigil.svg');
    this.title(o.sessions.snapshotOf(this.sessionId).session?.title, o.redactor);
    this._register(panel.webview.onDidReceiveMessage((raw: unknown) => void this.channel.receive(raw)));
    // Hidden tabs are torn down (no retainContextWhenHidden): a shown one says `ready` again and gets a snapshot.
    this._register(panel.onDidChangeViewState(() => panel.visible || this.channel.reset()));
    this._register(panel.onDidDispose(() => {
      this.panel = undefined;
      this.dispose();
    }));
    renderSessionWebview(panel.webview, distUri);
    o.logger.debug(`session ${this.sessionId} opened in a tab`);
  }

  get active(): boolean {
    return this.panel?.active === true;
  }

  /** A person can see it: the tab is the visible one of its group and its webview answered. */
  get showing(): boolean {
    return this.panel?.visible === true && this.channel.isReady;
  }

  reveal(preserveFocus = false): void {
    this.panel?.reveal(undefined, preserveFocus);
  }

  private title(title: string | undefined, redactor: Redactor | undefined): void {
    if (this.panel && title) this.panel.title = redactor ? redactor.redact(title) : title;
  }

  get closed(): boolean {
    return this.isDisposed;
  }

  override dispose(): void {
    if (this.isDisposed) return;
    const panel = this.panel;
    this.panel = undefined;
    try {
      super.dispose();
    } finally {
      panel?.dispose();
      this.hooks.closed();
    }
  }
}

export class SessionPanels extends Disposable {
  static readonly viewType = 'vigil.sessionPanel';

  private readonly panels = new Map<string, SessionPanel>();
  /** Tabs being opened: a second open of the same session waits for the first and reveals it. */
  private readonly opening = new Map<string, Promise<SessionPanel>>();
  private lastUsed: SessionPanel | undefined;
  private readonly _onDidReceiveMessage = this._register(new vscode.EventEmitter<{ sessionId: string; message: WebviewMessage }>());
  /** Every message a tab's webview sent (a person uses it: the last one used takes Add File/Selection). */
  readonly onDidReceiveMessage = this._onDidReceiveMessage.event;

  private readonly o: SessionPanelsOptions;

  constructor(options: SessionPanelsOptions) {
    super();
    this.o = { ...options, logger: tagged(options.logger, 'tabs') };
    this._register(toDisposable(() => {
      for (const panel of [...this.panels.values()]) panel.dispose();
    }));
    // Registered during activation: VS Code hands over the tabs of the last window's layout after a reload.
    this._register(vscode.window.registerWebviewPanelSerializer(SessionPanels.viewType, { deserializeWebviewPanel: (panel, state) => this.restore(panel, state) }));
  }

  /**
   * A tab VS Code restored: its webview saved which session it showed. One that names none (its view never got
   * a session), a session that is gone or not this folder's, or a session that has a tab already, is closed.
   */
  private async restore(restored: vscode.WebviewPanel, state: unknown): Promise<void> {
    const saved = (state as { sessionId?: unknown } | null | undefined)?.sessionId;
    // The webview's own words: an id longer than any session's names none (and is never logged in full).
    const sessionId = typeof saved === 'string' && saved.length <= 100 ? saved : undefined;
    if (sessionId === undefined || sessionId === '' || this.panels.has(sessionId) || this.opening.has(sessionId)) {
      this.o.logger.info(sessionId ? `a second restored tab of session ${sessionId} is closed` : 'a restored tab that showed no session is closed');
      restored.dispose();
      return;
    }
    const opening = this.create(sessionId, { restored }).finally(() => this.opening.delete(sessionId));
    this.opening.set(sessionId, opening);
    await opening.catch((error: unknown) => this.o.logger.warn(`a tab of session ${sessionId} was not restored: ${errorMessage(error)}`));
  }

  /** Opens the session in a tab (beside a Vigil tab that has the focus), or reveals the tab it has. */
  async open(sessionId: string, options: { preserveFocus?: boolean } = {}): Promise<SessionPanel> {
    const open = this.panels.get(sessionId) ?? (await this.opening.get(sessionId));
    if (open && !open.closed) {
      open.reveal(options.preserveFocus);
      return open;
    }
    const beside = [...this.panels.values()].some((p) => p.active);
    const opening = this.create(sessionId, { column: beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active }).finally(() => this.opening.delete(sessionId));
    this.opening.set(sessionId, opening);
    return opening;
  }

  private async create(sessionId: string, where: Parameters<SessionPanel['show']>[1]): Promise<SessionPanel> {
    const panel: SessionPanel = new SessionPanel(sessionId, this.o, {
      message: (message) => {
        if (message.type !== 'ping' && message.type !== 'ready' && message.type !== 'history') this.lastUsed = panel;
        this._onDidReceiveMessage.fire({ sessionId, message });
      },
      closed: () => {
        if (this.panels.get(sessionId) === panel) this.panels.delete(sessionId);
        if (this.lastUsed === panel) this.lastUsed = undefined;
      },
    });
    try {
      await panel.show(this.o, where);
    } catch (error) {
      if ('restored' in where) where.restored.dispose();
      panel.dispose();
      throw new Error(`Session ${sessionId} cannot be opened in an editor: ${errorMessage(error)}`);
    }
    // Vigil went away while the tab opened: it closes with the rest.
    if (this.isDisposed) panel.dispose();
    if (panel.closed) throw new Error('The tab was closed while it opened.');
    this.panels.set(sessionId, panel);
    this.lastUsed = panel;
    return panel;
  }

  get(sessionId: string): SessionPanel | undefined {
    return this.panels.get(sessionId);
  }

  /** The Vigil tab that has the focus, if one has. */
  get active(): SessionPanel | undefined {
    return [...this.panels.values()].find((p) => p.active);
  }

  /** The tab a person used last (a message from it, or opening it), while it is open. */
  get recent(): SessionPanel | undefined {
    return this.lastUsed;
  }

  /** Whether a person can see a tab of the session. */
  isShowing(sessionId: string): boolean {
    return this.panels.get(sessionId)?.showing === true;
  }

  /** The session of the focused tab, while a person can see it. */
  get activeSessionId(): string | undefined {
    const active = this.active;
    return active?.showing ? active.sessionId : undefined;
  }

  /** The session was deleted: its tab closes. */
  close(sessionId: string): void {
    this.panels.get(sessionId)?.dispose();
  }

  addMentions(panel: SessionPanel, items: MentionItem[], note?: string): void {
    panel.channel.addMentions(items, note);
  }
}
