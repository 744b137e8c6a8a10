// Where the editor's context goes: Add Selection / Add File to Vigil put the same `@` mentions the composer
// makes (mentionSource.ts) into the composer a person used last (a tab's, else the side bar's), and Focus
// Chat Input puts the keyboard there. Files named by a command are checked like a drop: hostile until they
// prove to be regular files inside the session's folder.

import * as vscode from 'vscode';
import type { MentionItem } from '../../shared/promptContext';
import type { WebviewMessage } from '../../shared/webviewProtocol';
import { Disposable } from '../core/common/disposable';
import type { MentionSource } from './mentionSource';
import type { SessionPanels } from './webview/sessionPanels';
import type { SessionViewProvider } from './webview/sessionViewProvider';

export interface EditorContextDeps {
  mentions: MentionSource;
  panels: SessionPanels;
  view: SessionViewProvider;
  /** The side bar's session, if it shows one. */
  viewSessionId(): string | undefined;
  /** The folder mentions of a session are taken from (without one: the folder a new session gets). */
  root(sessionId: string | undefined): Promise<string | undefined>;
}

interface Composer {
  sessionId: string | undefined;
  add(items: MentionItem[], note?: string): void;
  /** Shows it with the keyboard in its input. */
  focus(): Promise<void>;
}

/** Messages that say a person used a composer (not the view's own heartbeat or handshake). */
const used = (message: WebviewMessage) => message.type !== 'ping' && message.type !== 'ready' && message.type !== 'history' && message.type !== 'error';

export class EditorContext extends Disposable {
  /** Whether the side bar's view was used after the last tab was. */
  private viewLast = true;

  constructor(private readonly d: EditorContextDeps) {
    super();
    this._register(d.view.onDidReceiveMessage((m) => used(m) && (this.viewLast = true)));
    this._register(d.panels.onDidReceiveMessage(({ message }) => used(message) && (this.viewLast = false)));
  }

  /** The focused Vigil tab; else the composer used last: a tab still open, or the side bar's. */
  private target(): Composer {
    const panel = this.d.panels.active ?? (this.viewLast ? undefined : this.d.panels.recent);
    if (panel) {
      return {
        sessionId: panel.sessionId,
        add: (items, note) => panel.channel.addMentions(items, note),
        focus: async () => {
          panel.reveal(false);
          panel.channel.focusInput();
        },
      };
    }
    return {
      sessionId: this.d.viewSessionId(),
      add: (items, note) => this.d.view.addMentions(items, note),
      focus: async () => {
        await this.d.view.reveal(false);
        this.d.view.focusInput();
      },
    };
  }

  focusChatInput(): Promise<void> {
    return this.target().focus();
  }

  async addSelection(): Promise<void> {
    const target = this.target();
    const selection = this.d.mentions.selection(await this.d.root(target.sessionId));
    if (typeof selection === 'string') {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: {0}', selection));
      return;
    }
    target.add([selection]);
    await target.focus();
  }

  /** `uri`, `uris`: what the Explorer or an editor's menu names; without them, the active editor's file. */
  async addFile(uri?: unknown, uris?: unknown): Promise<void> {
    const named = Array.isArray(uris) && uris.length > 0 ? uris : uri !== undefined ? [uri] : [vscode.window.activeTextEditor?.document.uri];
    const files = named.filter((u): u is vscode.Uri => u instanceof vscode.Uri);
    if (files.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: open a file in the editor (or pick one in the Explorer) to add it.'));
      return;
    }
    if (files.some((f) => f.scheme === 'untitled')) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: save the file first; only files in the session\'s folder can be added.'));
      return;
    }
    const target = this.target();
    const found = await this.d.mentions.uris(await this.d.root(target.sessionId), files.map((f) => f.toString()));
    if (found.items.length === 0) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: {0}', found.note ?? 'nothing to add.'));
      return;
    }
    target.add(found.items, found.note);
    await target.focus();
  }
}
