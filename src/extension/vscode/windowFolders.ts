// The window's folders and active file as sessions see them (shared by the app and Restricted Mode's consent).

import * as vscode from 'vscode';
import { canonicalFolder } from '../core/folders/sessionFolder';

/**
 * This window's folders a session can belong to: those on the local file system (a virtual folder
 * cannot be an agent's cwd), canonical, in the window's order.
 */
export function windowFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => canonicalFolder(f.uri.fsPath));
}

export function activeFile(): string | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  return uri?.scheme === 'file' ? uri.fsPath : undefined;
}
