// The workbench context keys Vigil's menus, palette entries and keybindings read in their `when` clauses.

import * as vscode from 'vscode';

export type VigilContextKey = 'vigil.turnRunning' | 'vigil.hasResumable' | 'vigil.hasRunningTasks' | 'vigil.canRetry';

export class ContextKeys {
  private readonly shown = new Map<VigilContextKey, boolean>();

  /** Tells the workbench a key's value, only when it changed (each is a round trip to the window). */
  set(key: VigilContextKey, value: boolean): this {
    if (this.shown.get(key) === value) return this;
    this.shown.set(key, value);
    void vscode.commands.executeCommand('setContext', key, value);
    return this;
  }
}
