// The running extension: status bar, views and commands up front; the heavy services
// (store, supervisor, registry, agents) are created on first use.

import * as vscode from 'vscode';
import { Disposable } from '../core/common/disposable';
import type { Logger } from '../core/ports/logger';
import { StatusBarController } from './statusBar';
import { SessionViewProvider } from './webview/sessionViewProvider';
import type { StatusModel } from './statusPresentation';

export class VigilApp extends Disposable {
  readonly statusBar: StatusBarController;
  readonly sessionView: SessionViewProvider;

  constructor(
    readonly context: vscode.ExtensionContext,
    readonly logChannel: vscode.LogOutputChannel,
    readonly logger: Logger,
  ) {
    super();
    this.statusBar = this._register(new StatusBarController(() => this.statusModel()));
    this.sessionView = this._register(
      new SessionViewProvider({
        extensionUri: context.extensionUri,
        logger,
        controller: {
          onPrompt: () => undefined,
          onStop: () => undefined,
          onResume: () => undefined,
          onApproval: () => undefined,
          onShowTaskOutput: () => undefined,
          onKillTask: () => undefined,
          onOpenSession: () => undefined,
        },
      }),
    );
    this.registerCommands();
  }

  statusModel(): StatusModel {
    return { phase: 'idle', runningTasks: 0 };
  }

  private registerCommands(): void {
    const later = (what: string) => () =>
      vscode.window.showInformationMessage(`Vigil: ${what} is not available in this build yet.`);
    const commands: Record<string, (...args: unknown[]) => unknown> = {
      'vigil.newSession': () => this.sessionView.reveal(),
      'vigil.focusSession': () => this.sessionView.reveal(),
      'vigil.showLog': () => this.logChannel.show(),
      'vigil.openSession': later('Open Session'),
      'vigil.abortTurn': later('Abort Turn'),
      'vigil.resumeSession': later('Resume Session'),
      'vigil.showBackgroundTasks': later('Show Background Tasks'),
      'vigil.killBackgroundTask': later('Kill Background Task'),
      'vigil.restartAgent': later('Restart Agent'),
      'vigil.selectAgent': later('Select Agent'),
      'vigil.selectModel': later('Select Model'),
      'vigil.setApiKey': later('Set API Key'),
      'vigil.renameSession': later('Rename Session'),
      'vigil.deleteSession': later('Delete Session'),
    };
    for (const [id, handler] of Object.entries(commands)) {
      this._register(vscode.commands.registerCommand(id, handler));
    }
  }
}
