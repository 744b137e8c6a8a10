// Opens a workspace file that a link in model markdown names: only a regular file inside a workspace
// folder (checked here again, whatever the webview claims), in an editor, at the linked line.

import * as vscode from 'vscode';
import { placeLinkedFile } from '../core/acp/workspaceDir';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';

export async function openWorkspaceFile(file: string, line: number | undefined, logger: Logger): Promise<void> {
  const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const placed = roots.length > 0 ? await placeLinkedFile(roots, file) : { refused: 'No folder is open, so links to files are not opened.' };
  if ('refused' in placed) {
    logger.warn(`[links] refused to open a file link: ${placed.refused}`);
    void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: {0}', placed.refused));
    return;
  }
  try {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(placed.path));
    const at = line !== undefined ? new vscode.Position(Math.min(line, document.lineCount) - 1, 0) : undefined;
    await vscode.window.showTextDocument(document, { preview: true, selection: at ? new vscode.Range(at, at) : undefined });
  } catch (error) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: could not open {0}: {1}', placed.path, errorMessage(error)));
  }
}
