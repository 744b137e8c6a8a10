// What the side bar's view and each editor tab of a session share about their webview: its options, the
// CSP-locked HTML that loads the session app, and Copy's clipboard.

import * as vscode from 'vscode';
import { createNonce, renderSessionViewHtml } from '../../presentation/sessionViewHtml';

/** Scripts on, local files only from dist/ (webview.js, codicons). */
export function sessionWebviewOptions(distUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [distUri] };
}

/** Loads the session app into the webview, with a fresh nonce. */
export function renderSessionWebview(webview: vscode.Webview, distUri: vscode.Uri): void {
  webview.html = renderSessionViewHtml({
    nonce: createNonce(),
    cspSource: webview.cspSource,
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(distUri, 'webview.js')).toString(),
    codiconsUri: webview.asWebviewUri(vscode.Uri.joinPath(distUri, 'codicons', 'codicon.css')).toString(),
  });
}

export async function copyToClipboard(text: string): Promise<void> {
  await vscode.env.clipboard.writeText(text);
  vscode.window.setStatusBarMessage('$(check) Vigil: message copied as Markdown', 3_000);
}
