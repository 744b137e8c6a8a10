// `Vigil: Search Sessions…` and the search button of the session list: a quick pick that searches this folder's
// sessions (those the list shows first) as the person types (core/search). Typing again cancels the search running;
// hits show as they are found; choosing one opens it as a click in the list does (`vigil.openSession`).

import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../core/common/disposable';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';
import { SessionSearch, sessionSearchLimits, type SearchableSession, type SearchResult } from '../core/search/sessionSearch';
import type { SessionMeta } from '../core/store/sessionStore';
import { transcriptFile } from '../core/store/storePaths';
import { folderRow, type FolderRow } from '../presentation/sessionPresentation';
import { searchRow, searchStatus } from '../presentation/sessionSearchPresentation';
import type { CheckedPlacement } from '../core/folders/sessionFolders';

/** What the search needs of the running extension (vigilApp.ts's services fit). */
export interface SearchServices {
  supervisor: { sessions: { root: string; list(): Promise<SessionMeta[]> } };
  folders: { checkMeta(meta: Pick<SessionMeta, 'folder'>): Promise<CheckedPlacement> };
}

export interface SessionSearchPickDeps {
  services(): Promise<SearchServices>;
  logger: Logger;
  /** Typing pauses this long before a search starts, so each keystroke does not start one. */
  debounceMs?: number;
  /** The text kept from a search is dropped this long after the pick closes. */
  keepMs?: number;
}

type Item = vscode.QuickPickItem & { sessionId: string };

export class SessionSearchPick extends Disposable {
  private search: SessionSearch | undefined;
  private dropTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: SessionSearchPickDeps) {
    super();
    this._register(toDisposable(() => this.dropTimer && clearTimeout(this.dropTimer)));
  }

  /** Opens the pick (with `query` typed, when a script passes one); resolves when it closes. */
  async show(query = ''): Promise<void> {
    const services = await this.deps.services();
    const sessions = await this.folderSessions(services);
    if (this.dropTimer) clearTimeout(this.dropTimer);
    const search = (this.search ??= new SessionSearch({ transcriptPath: (id) => transcriptFile(services.supervisor.sessions.root, id), logger: this.deps.logger }));
    const pick = vscode.window.createQuickPick<Item>();
    pick.placeholder = vscode.l10n.t('Search the titles and transcripts of this folder\'s sessions');
    // The hit shows highlighted in its snippet; every row stays, since the search, not the pick, decides what matches.
    pick.matchOnDetail = true;
    keepOrder(pick);
    const render = (result: SearchResult | undefined, searching: boolean) => {
      pick.title = searchStatus({ sessions: sessions.length, result, searching }, sessionSearchLimits);
      if (!result) return;
      const now = Date.now();
      pick.items = result.hits.map((hit) => ({ ...searchRow(hit, now), alwaysShow: true }));
    };
    render(undefined, false);
    let controller: AbortController | undefined;
    let timer: NodeJS.Timeout | undefined;
    const run = async (value: string) => {
      controller?.abort();
      const mine = (controller = new AbortController());
      pick.busy = true;
      try {
        const result = await search.search(value, sessions, {
          signal: mine.signal,
          onProgress: (partial) => {
            if (!mine.signal.aborted) render(partial, true);
          },
        });
        if (mine.signal.aborted) return;
        render(result, false);
        pick.busy = false;
      } catch (error) {
        if (mine.signal.aborted) return;
        pick.busy = false;
        this.deps.logger.error(`[search] searching sessions failed: ${errorMessage(error)}`);
        pick.title = vscode.l10n.t('The search failed: {0}', errorMessage(error));
      }
    };
    const disposables = [
      pick.onDidChangeValue((value) => {
        if (timer) clearTimeout(timer);
        controller?.abort();
        if (value.trim() === '') {
          pick.busy = false;
          pick.items = [];
          render(undefined, false);
          return;
        }
        timer = setTimeout(() => void run(value), this.deps.debounceMs ?? 120);
      }),
      pick.onDidAccept(() => {
        // Enter opens the top result when no row is active (one replaced by the search's last update a moment ago).
        const chosen = pick.selectedItems[0] ?? pick.activeItems[0] ?? pick.items[0];
        if (!chosen) return;
        pick.hide();
        void vscode.commands.executeCommand('vigil.openSession', chosen.sessionId);
      }),
    ];
    const closed = new Promise<void>((resolve) => disposables.push(pick.onDidHide(() => resolve())));
    pick.value = query;
    pick.show();
    if (query.trim() !== '') void run(query);
    await closed;
    if (timer) clearTimeout(timer);
    controller?.abort();
    for (const d of disposables) d.dispose();
    pick.dispose();
    this.dropLater();
  }

  /** The sessions the list shows as this window's (`here`), newest first; another folder's are not searched. */
  private async folderSessions(services: SearchServices): Promise<SearchableSession[]> {
    const all = await services.supervisor.sessions.list();
    const rows = await Promise.all(all.map(async (meta) => [meta, await this.rowOf(services, meta)] as const));
    return rows.filter(([, row]) => row.here).map(([meta]) => ({ id: meta.id, title: meta.title, updatedAt: meta.updatedAt }));
  }

  private async rowOf(services: SearchServices, meta: SessionMeta): Promise<FolderRow> {
    try {
      return folderRow(await services.folders.checkMeta(meta));
    } catch (error) {
      this.deps.logger.warn(`[search] placing session ${meta.id} failed: ${errorMessage(error)}`);
      return { here: false };
    }
  }

  /** The kept text is memory: dropped a while after the pick closed, unless it opens again first. */
  private dropLater(): void {
    if (this.dropTimer) clearTimeout(this.dropTimer);
    this.dropTimer = setTimeout(() => {
      this.dropTimer = undefined;
      this.search?.clear();
    }, this.deps.keepMs ?? 120_000);
    this.dropTimer.unref?.();
  }
}

/**
 * The search ranks its hits (title hits first, newest first in each); the workbench would sort the rows whose title
 * matches by how it matches (a title starting with the query first). `sortByLabel` turns that off: proposed API
 * (microsoft/vscode#73904) whose setter the extension host runs unchecked (1.100). Where it is refused, the
 * workbench's own order of the title hits stands; they still come first.
 */
function keepOrder(pick: vscode.QuickPick<vscode.QuickPickItem>): void {
  try {
    Object.assign(pick, { sortByLabel: false });
  } catch {
    // The workbench's order, then.
  }
}
