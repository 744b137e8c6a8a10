// Composition root of the extension host: builds the long-lived services and registers the UI.

import type * as vscode from 'vscode';

export function activateVigil(_context: vscode.ExtensionContext): void {
  // Filled in by the foundation work.
}
