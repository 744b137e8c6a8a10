// VS Code glue of the session webview (view id `vigil.sessionView`): renders the CSP-locked HTML,
// wires the webview to a SessionViewChannel, and offers reveal() for commands.

import * as vscode from 'vscode';
import { Disposable } from '../../core/common/disposable';
import { tagged, type Logger } from '../../core/ports/logger';
import type { Redactor } from '../../core/common/redactor';
import type { HostEvent, SessionSnapshot } from '../../../shared/sessionView';
import type { WebviewMessage } from '../../../shared/webviewProtocol';
import { SessionViewChannel } from '../../presentation/sessionViewChannel';
import type { IntentHandlers } from '../../presentation/viewHandlers';
import type { ViewSurface } from '../../presentation/viewSurface';
import type { MentionItem } from '../../../shared/promptContext';
import { copyToClipboard, renderSessionWebview, sessionWebviewOptions } from './sessionWebview';

export interface SessionViewProviderOptions {
  /** `context.extensionUri`: dist/ below it holds webview.js and codicons/. */
  extensionUri: vscode.Uri;
  /** The side bar's view: the session it shows (sessionController.ts), and which session a message is for. */
  surface: ViewSurface;
  handlers: IntentHandlers;
  logger: Logger;
  /** Cuts secrets out of everything posted to the webview. */
  redactor?: Redactor;
}

export class SessionViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewId = 'vigil.sessionView';

  private view: vscode.WebviewView | undefined;
  private readonly channel: SessionViewChannel;
  private readonly logger: Logger;
  private readonly distUri: vscode.Uri;

  private readonly _onDidRejectMessage = this._register(new vscode.EventEmitter<string>());
  /** Fires with the reason whenever an inbound message fails validation (tests assert on it). */
  readonly onDidRejectMessage = this._onDidRejectMessage.event;
  private readonly _onDidReceiveMessage = this._register(new vscode.EventEmitter<WebviewMessage>());
  readonly onDidReceiveMessage = this._onDidReceiveMessage.event;
  private readonly _onDidBecomeReady = this._register(new vscode.EventEmitter<void>());
  /** The webview finished the handshake and has been sent the current snapshot. */
  readonly onDidBecomeReady = this._onDidBecomeReady.event;

  constructor(options: SessionViewProviderOptions) {
    super();
    this.logger = tagged(options.logger, 'webview');
    this.distUri = vscode.Uri.joinPath(options.extensionUri, 'dist');
    this.channel = new SessionViewChannel((m) => this.view?.webview.postMessage(m), options.surface, options.handlers, this.logger, {
      onRejected: (reason) => this._onDidRejectMessage.fire(reason),
      onAccepted: (message) => this._onDidReceiveMessage.fire(message),
      onReady: () => this._onDidBecomeReady.fire(),
    }, options.redactor ? (message) => options.redactor!.redactValue(message) : undefined, (text) => copyToClipboard(text));
    // Hidden views are torn down (no retainContextWhenHidden): the webview holds no state that matters.
    this._register(vscode.window.registerWebviewViewProvider(SessionViewProvider.viewId, this));
  }

  get isReady(): boolean {
    return this.channel.isReady;
  }

  /** The snapshot a (re)loading webview will be sent: the last one posted with all events folded in. */
  get snapshot(): SessionSnapshot {
    return this.channel.snapshot;
  }

  postSnapshot(snapshot: SessionSnapshot): void {
    this.channel.postSnapshot(snapshot);
  }

  postEvent(event: HostEvent): void {
    this.channel.postEvent(event);
  }

  /** Chips for the composer (Add File/Selection to Vigil). */
  addMentions(items: MentionItem[], note?: string): void {
    this.channel.addMentions(items, note);
  }

  /** The keyboard goes to the composer's input (the view is revealed with focus first). */
  focusInput(): void {
    this.channel.focusInput();
  }

  /** Shows the view, resolving it first if it was never opened. */
  async reveal(preserveFocus = false): Promise<void> {
    if (this.view) {
      this.view.show(preserveFocus);
      return;
    }
    await vscode.commands.executeCommand(`${SessionViewProvider.viewId}.focus`);
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.channel.reset();
    const webview = view.webview;
    webview.options = sessionWebviewOptions(this.distUri);
    const subscriptions: vscode.Disposable[] = [
      webview.onDidReceiveMessage((raw: unknown) => void this.channel.receive(raw)),
      view.onDidDispose(() => {
        if (this.view === view) {
          this.view = undefined;
          this.channel.reset();
        }
        for (const s of subscriptions) s.dispose();
      }),
    ];
    renderSessionWebview(webview, this.distUri);
    this.logger.debug('session view resolved');
  }

  override dispose(): void {
    this.view = undefined;
    super.dispose();
  }
}
