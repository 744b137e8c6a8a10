// The one status bar item (`vigil.status`): always truthful, re-rendered from a model getter on the same
// events as the session view and the session list, so the three never say different states.

import * as vscode from 'vscode';
import { Disposable } from '../core/common/disposable';
import { presentStatus, type StatusModel } from '../presentation/statusPresentation';

export class StatusBarController extends Disposable {
  private readonly item: vscode.StatusBarItem;
  private ticker: NodeJS.Timeout | undefined;

  constructor(private readonly model: () => StatusModel) {
    super();
    this.item = this._register(vscode.window.createStatusBarItem('vigil.status', vscode.StatusBarAlignment.Left, 100));
    this.item.name = 'Vigil';
    this.item.command = 'vigil.focusSession';
    this.render();
    this.item.show();
    this._register({ dispose: () => this.stopTicking() });
  }

  /** Re-renders now; while a turn is live, also once a second (elapsed and silence counters move). */
  render(): void {
    const model = this.model();
    const view = presentStatus(model);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.background ? new vscode.ThemeColor(`statusBarItem.${view.background}Background`) : undefined;
    this.item.color =
      view.color === 'warning' ? new vscode.ThemeColor('statusBarItem.warningForeground')
      : view.color === 'prominent' ? new vscode.ThemeColor('statusBarItem.prominentForeground')
      : undefined;
    this.item.accessibilityInformation = { label: view.label, role: 'button' };
    const live = model.phase !== 'idle' && model.phase !== 'aborted' && model.phase !== 'interrupted';
    if (live && !this.ticker) {
      this.ticker = setInterval(() => this.render(), 1000);
    } else if (!live) {
      this.stopTicking();
    }
  }

  private stopTicking(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }
}
