// Tells the person, in a VS Code notification with "Open Session", when a session needs them while they look
// elsewhere: the window is not focused or the session view does not show that session (attentionPolicy.ts decides).

import * as vscode from 'vscode';
import { errorMessage } from '../core/common/errors';
import { Disposable, toDisposable } from '../core/common/disposable';
import type { Logger } from '../core/ports/logger';
import type { SupervisorEvent } from '../core/supervisor/supervisorEvents';
import { AttentionPolicy, type Attention } from '../presentation/attentionPolicy';
import type { AttentionSettings } from '../core/settings/settingsValidation';

export const OPEN_SESSION = 'Open Session';

export interface AttentionNotifierDeps {
  subscribe(listener: (event: SupervisorEvent) => void): () => void;
  /** The session view is visible and shows this session. */
  showing(sessionId: string): boolean;
  /** Whether the approval prompter asks in a notification of its own for this session. */
  approvalPrompterNotifies(sessionId: string): boolean;
  title(sessionId: string): Promise<string | undefined>;
  redact(text: string): string;
  /** `vigil.notifications.*`, validated (VigilConfiguration). */
  settings(): AttentionSettings;
  logger: Logger;
  /** Tests: a window-state source other than `vscode.window.state`. */
  windowFocused?(): boolean;
  /** Tests: how a notification is shown (default: VS Code's, by severity). */
  show?(attention: Attention, text: string, action: string): Thenable<string | undefined>;
}

export class AttentionNotifier extends Disposable {
  private readonly policy = new AttentionPolicy();

  constructor(private readonly d: AttentionNotifierDeps) {
    super();
    this._register(toDisposable(d.subscribe((event) => this.onEvent(event))));
  }

  private onEvent(event: SupervisorEvent): void {
    if (this.isDisposed) return;
    const settings = this.d.settings();
    const attention = this.policy.decide(event, settings, {
      windowFocused: this.d.windowFocused?.() ?? vscode.window.state.focused,
      sessionShowing: (id) => this.d.showing(id),
      approvalPrompterNotifies: (id) => this.d.approvalPrompterNotifies(id),
    });
    if (attention) void this.notify(attention);
  }

  private async notify(attention: Attention): Promise<void> {
    try {
      const title = await this.d.title(attention.sessionId).catch(() => undefined);
      const text = this.d.redact(attention.text(title));
      const show = this.d.show ?? showBySeverity;
      const choice = await show(attention, text, OPEN_SESSION);
      if (choice === OPEN_SESSION) await vscode.commands.executeCommand('vigil.openSession', attention.sessionId);
    } catch (error) {
      this.d.logger.warn(`[notifications] ${attention.kind} for session ${attention.sessionId}: ${errorMessage(error)}`);
    }
  }
}

function showBySeverity(attention: Attention, text: string, action: string): Thenable<string | undefined> {
  switch (attention.severity) {
    case 'error':
      return vscode.window.showErrorMessage(text, action);
    case 'warning':
      return vscode.window.showWarningMessage(text, action);
    default:
      return vscode.window.showInformationMessage(text, action);
  }
}
