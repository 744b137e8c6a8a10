// The session view's HTML shell with its Content Security Policy. Pure (no vscode import), so the
// e2e harness and a plain browser page can render exactly what VS Code shows.

import { randomBytes } from 'node:crypto';

export interface SessionViewHtmlOptions {
  nonce: string;
  /** `webview.cspSource`: the origin VS Code serves local resources from. */
  cspSource: string;
  scriptUri: string;
  codiconsUri: string;
}

/** A fresh nonce per render: a script injected into one render cannot reuse it in the next. */
export function createNonce(): string {
  return randomBytes(18).toString('base64');
}

export function contentSecurityPolicy(nonce: string, cspSource: string): string {
  // Styles come from adoptedStyleSheets (lit) and the codicon stylesheet; no inline style is needed.
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
  ].join('; ');
}

export function renderSessionViewHtml(options: SessionViewHtmlOptions): string {
  const { nonce, cspSource, scriptUri, codiconsUri } = options;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(nonce, cspSource))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(codiconsUri)}" nonce="${escapeAttr(nonce)}">
<title>Vigil session</title>
</head>
<body>
<div id="app"></div>
<script type="module" nonce="${escapeAttr(nonce)}" src="${escapeAttr(scriptUri)}"></script>
</body>
</html>`;
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
