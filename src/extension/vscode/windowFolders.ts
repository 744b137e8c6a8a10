// This window's folders and active file as the session rules see them (core/folders/sessionFolder.ts).

import * as vscode from 'vscode';
import { canonicalFolder } from '../core/folders/sessionFolder';

/**
 * This window's folders a session can belong to: those on the local file system (a virtual folder
 * cannot be an agent's cwd), canonical, in the window's order.
 */
export function windowFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => canonicalFolder(f.uri.fsPath));
}

/** The file of the active editor, when it is on the local file system. */
export function activeFile(): string | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  return uri?.scheme === 'file' ? uri.fsPath : undefined;
}
