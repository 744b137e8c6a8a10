// Entry point of the extension host bundle: construct, register, return. Heavy parts start lazily.

import type * as vscode from 'vscode';
import { activateVigil } from './vscode/activation';

export function activate(context: vscode.ExtensionContext) {
  return activateVigil(context);
}

export function deactivate(): void {
  // Everything long-lived is registered on context.subscriptions and disposed by VS Code.
}
