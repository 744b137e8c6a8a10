// The native session list (`vigil.sessions`): status, last activity and running tasks per session. A row whose
// state changed is drawn again at once; the whole list is read again when VigilApp signals a change (debounced).
// Plus the rename and delete commands that act on its rows.

import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../core/common/disposable';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';
import type { SessionMeta } from '../core/store/sessionStore';
import { orderByFolder, presentSession, rowStatus, validateSessionTitle, type FolderRow } from '../presentation/sessionPresentation';
import type { TurnPhase } from '../../shared/sessionView';
import { isTurnLive } from '../../shared/sessionViewReducer';

export interface SessionStoreLike {
  list(): Promise<SessionMeta[]>;
  get(id: string): Promise<SessionMeta | undefined>;
  rename(id: string, title: string): Promise<SessionMeta>;
  delete(id: string): Promise<void>;
}

/** The registry's `list` (TaskRegistry fits); only running tasks are counted. */
export interface TaskLister {
  list(filter?: { sessionId?: string }): ReadonlyArray<{ sessionId: string; status: string }>;
}

export interface SessionTreeDeps {
  /** The store; a getter so VigilApp can create it lazily on the first view render. */
  store(): Promise<SessionStoreLike>;
  /** Live phase of this window's turn of the session (from the supervisor); undefined or 'idle' when none. */
  statusOf(sessionId: string): TurnPhase | undefined;
  /** Whether the session's turn runs in another window (shown as such); default never. */
  elsewhere?(sessionId: string): boolean;
  /** The task registry, or undefined while it is not open yet (counts read as 0). */
  tasks(): TaskLister | undefined;
  /** Whether a turn of the session runs anywhere (e.g. a lease held by another window); default: from `statusOf`. */
  isTurnActive?(sessionId: string): boolean | Promise<boolean>;
  /** Where each session belongs as seen from this window; default: every session is this window's. */
  folderOf?(meta: SessionMeta): Promise<FolderRow>;
  logger: Logger;
  now?: () => number;
  debounceMs?: number;
  /** Create the `vigil.sessions` tree view (default true); tests drive the provider without one. */
  createView?: boolean;
}

/** One row; also what menu commands receive as their first argument. */
export class SessionNode {
  /** The live state the row was last drawn with (`redrawChanged` draws it again when it differs). */
  drawn: string | undefined;

  constructor(
    /** Read again when the row is redrawn after its turn ended: the stored state speaks then. */
    public meta: SessionMeta,
    readonly folder: FolderRow = { here: true },
  ) {}
}

export class SessionTreeProvider extends Disposable implements vscode.TreeDataProvider<SessionNode> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<SessionNode | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly _onDidDeleteSession = this._register(new vscode.EventEmitter<string>());
  /** Fired after a session was deleted from the list, so VigilApp can release its agent and close its view. */
  readonly onDidDeleteSession = this._onDidDeleteSession.event;
  private readonly view: vscode.TreeView<SessionNode> | undefined;
  private pending: NodeJS.Timeout | undefined;
  private redraw: NodeJS.Immediate | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private sessions: SessionMeta[] = [];
  /** The rows of the last listing, by session id. */
  private nodes = new Map<string, SessionNode>();
  private readonly now: () => number;

  constructor(private readonly deps: SessionTreeDeps) {
    super();
    this.now = deps.now ?? Date.now;
    if (deps.createView !== false) {
      const view = this._register(vscode.window.createTreeView('vigil.sessions', { treeDataProvider: this, showCollapseAll: false }));
      this.view = view;
      // "5 min ago" goes stale while nothing happens: re-render each minute, but only while the list is visible.
      this._register(view.onDidChangeVisibility(() => this.updateTicker()));
      this.updateTicker();
    }
    this._register(toDisposable(() => {
      if (this.pending) clearTimeout(this.pending);
      if (this.redraw) clearImmediate(this.redraw);
      if (this.ticker) clearInterval(this.ticker);
    }));
  }

  /** Re-reads the store and re-renders; calls within the debounce window coalesce into one. */
  refresh(): void {
    if (this.isDisposed || this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this._onDidChangeTreeData.fire(undefined);
    }, this.deps.debounceMs ?? 150);
  }

  /**
   * Draws again each row whose live state is not the one it shows, as soon as the events of this tick are in:
   * the view and the status bar change on the same events, so the list must not wait for a listing of every
   * stored session (debounced, `refresh`). One pass per tick: a stall and the stop it leads to, milliseconds
   * apart, are one change to draw, not two that VS Code's own debounce of tree changes would hold back.
   * A row no live state speaks for any more (its turn ended) reads its session's stored state first.
   */
  redrawChanged(): void {
    if (this.isDisposed || this.redraw) return;
    this.redraw = setImmediate(() => {
      this.redraw = undefined;
      if (this.isDisposed) return;
      for (const node of this.nodes.values()) {
        if (node.drawn === this.liveKey(node.meta.id)) continue;
        if (this.deps.statusOf(node.meta.id) === undefined) void this.reread(node);
        else this._onDidChangeTreeData.fire(node);
      }
    });
  }

  private liveKey(sessionId: string): string {
    return `${this.deps.statusOf(sessionId) ?? ''}|${this.deps.elsewhere?.(sessionId) === true}`;
  }

  private async reread(node: SessionNode): Promise<void> {
    try {
      const meta = await (await this.deps.store()).get(node.meta.id);
      if (!meta || this.isDisposed || this.nodes.get(meta.id) !== node) return;
      node.meta = meta;
      this._onDidChangeTreeData.fire(node);
    } catch (error) {
      this.deps.logger.warn(`[sessions] reading session ${node.meta.id} failed: ${errorMessage(error)}`);
    }
  }

  /** The sessions of the last render, newest first (for quick picks without another disk read). */
  get lastListed(): readonly SessionMeta[] {
    return this.sessions;
  }

  async getChildren(element?: SessionNode): Promise<SessionNode[]> {
    if (element) return [];
    try {
      this.sessions = await (await this.deps.store()).list();
    } catch (error) {
      this.deps.logger.error(`[sessions] listing sessions failed: ${errorMessage(error)}`);
      if (this.view) this.view.message = `Sessions could not be read: ${errorMessage(error)}`;
      return [];
    }
    if (this.view) this.view.message = undefined;
    this.updateBadge();
    const nodes = await Promise.all(this.sessions.map(async (meta) => new SessionNode(meta, await this.folderOf(meta))));
    this.nodes = new Map(nodes.map((node) => [node.meta.id, node]));
    return orderByFolder(nodes, (node) => node.folder);
  }

  private async folderOf(meta: SessionMeta): Promise<FolderRow> {
    if (!this.deps.folderOf) return { here: true };
    try {
      return await this.deps.folderOf(meta);
    } catch (error) {
      this.deps.logger.warn(`[sessions] placing session ${meta.id} failed: ${errorMessage(error)}`);
      return { here: false, label: 'folder unknown' };
    }
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    node.drawn = this.liveKey(node.meta.id);
    const row = presentSession(node.meta, this.deps.statusOf(node.meta.id), this.runningTasks(node.meta.id), this.now(), this.deps.elsewhere?.(node.meta.id));
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.id = node.meta.id;
    const { folder } = node;
    item.description = folder.label ? `${row.description} · ${folder.label}` : row.description;
    item.tooltip = folder.detail ? `${row.tooltip}\n${folder.detail}` : row.tooltip;
    item.iconPath = new vscode.ThemeIcon(row.icon, row.iconColor ? new vscode.ThemeColor(row.iconColor) : undefined);
    item.contextValue = row.contextValue;
    item.accessibilityInformation = { label: `${row.label}, ${folder.label ? `${row.accessibleDescription} · ${folder.label}` : row.accessibleDescription}` };
    item.command = { command: 'vigil.openSession', title: vscode.l10n.t('Open Session'), arguments: [node.meta.id] };
    return item;
  }

  /** `vigil.renameSession`: a row, a session id, or nothing (then a quick pick). */
  async rename(target?: SessionNode | string): Promise<void> {
    const meta = await this.resolveTarget(target, 'Rename which session?');
    if (!meta) return;
    const title = await vscode.window.showInputBox({
      title: vscode.l10n.t('Rename Session'),
      prompt: vscode.l10n.t('New title of the session'),
      value: meta.title,
      valueSelection: [0, meta.title.length],
      validateInput: validateSessionTitle,
    });
    if (title === undefined || title.trim() === meta.title) return;
    try {
      await (await this.deps.store()).rename(meta.id, title.trim());
      this.refresh();
    } catch (error) {
      this.deps.logger.error(`[sessions] renaming ${meta.id} failed: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Vigil: could not rename “{0}”: {1}', meta.title, errorMessage(error)));
    }
  }

  /** `vigil.deleteSession`: asks first (modal, naming the session) and refuses while a turn runs. */
  async delete(target?: SessionNode | string): Promise<void> {
    const meta = await this.resolveTarget(target, 'Delete which session?');
    if (!meta) return;
    if (await this.turnActive(meta.id)) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: “{0}” has a turn running. Stop it first (Vigil: Abort Turn), then delete the session.', meta.title));
      return;
    }
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Delete the session “{0}”?', meta.title),
      { modal: true, detail: 'Its transcript is deleted for good. Background tasks it started keep running until they end or you kill them.' },
      vscode.l10n.t('Delete'),
    );
    if (choice !== vscode.l10n.t('Delete')) return;
    // The answer may have taken a while: a turn could have started meanwhile (a wakeup).
    if (await this.turnActive(meta.id)) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: “{0}” started a turn meanwhile; it was not deleted.', meta.title));
      return;
    }
    try {
      await (await this.deps.store()).delete(meta.id);
      this.deps.logger.info(`[sessions] deleted session ${meta.id}`);
      this._onDidDeleteSession.fire(meta.id);
      this.refresh();
    } catch (error) {
      this.deps.logger.error(`[sessions] deleting ${meta.id} failed: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Vigil: could not delete “{0}”: {1}', meta.title, errorMessage(error)));
    }
  }

  private async turnActive(id: string): Promise<boolean> {
    if (this.deps.isTurnActive) return this.deps.isTurnActive(id);
    const phase = this.deps.statusOf(id);
    return phase !== undefined && isTurnLive(rowStatus({ state: 'idle' }, phase));
  }

  private async resolveTarget(target: SessionNode | string | undefined, placeHolder: string): Promise<SessionMeta | undefined> {
    const store = await this.deps.store();
    if (target instanceof SessionNode) target = target.meta.id;
    if (typeof target === 'string') {
      const meta = await store.get(target);
      if (!meta) void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: session {0} no longer exists.', target));
      return meta;
    }
    const sessions = await store.list();
    if (sessions.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: there are no sessions yet.'));
      return undefined;
    }
    const now = this.now();
    const picked = await vscode.window.showQuickPick(
      sessions.map((meta) => {
        const row = presentSession(meta, this.deps.statusOf(meta.id), this.runningTasks(meta.id), now);
        return { label: `$(${row.icon.replace('~spin', '')}) ${row.label}`, description: row.description, meta };
      }),
      { placeHolder, matchOnDescription: true },
    );
    return picked?.meta;
  }

  private runningTasks(sessionId: string): number {
    return this.deps.tasks()?.list({ sessionId }).filter((t) => t.status === 'running').length ?? 0;
  }

  private updateBadge(): void {
    if (!this.view) return;
    const running = this.deps.tasks()?.list().filter((t) => t.status === 'running').length ?? 0;
    this.view.badge = running > 0 ? { value: running, tooltip: `${running} background task${running === 1 ? '' : 's'} running` } : undefined;
  }

  private updateTicker(): void {
    const visible = this.view?.visible === true;
    if (visible && !this.ticker) {
      this.ticker = setInterval(() => this._onDidChangeTreeData.fire(undefined), 60_000);
    } else if (!visible && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }
}
