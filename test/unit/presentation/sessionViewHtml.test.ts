// The session view's HTML shell: a strict CSP with a fresh nonce per render.

import * as assert from 'node:assert/strict';
import { contentSecurityPolicy, createNonce, renderSessionViewHtml } from '../../../src/extension/presentation/sessionViewHtml';

describe('session view HTML', () => {
  const cspSource = 'https://file+.vscode-resource.vscode-cdn.net';

  it('locks the page down: nothing by default, scripts only by nonce, no inline styles or eval', () => {
    const csp = contentSecurityPolicy('abc', cspSource);
    assert.match(csp, /^default-src 'none'/);
    assert.match(csp, /script-src 'nonce-abc'(;|$)/);
    assert.match(csp, new RegExp(`font-src ${cspSource.replace(/[.+]/g, '\\$&')}`));
    assert.match(csp, /img-src \S+ data:/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  });

  it('loads the bundle and codicons with the nonce', () => {
    const html = renderSessionViewHtml({ nonce: 'n1', cspSource, scriptUri: `${cspSource}/dist/webview.js`, codiconsUri: `${cspSource}/dist/codicons/codicon.css` });
    assert.match(html, /<script type="module" nonce="n1" src="[^"]+\/dist\/webview.js"><\/script>/);
    assert.match(html, /<link rel="stylesheet" href="[^"]+codicon.css"/);
    assert.equal((html.match(/<script/g) ?? []).length, 1, 'no inline script');
  });

  it('makes a new unguessable nonce each time', () => {
    const nonces = new Set(Array.from({ length: 100 }, createNonce));
    assert.equal(nonces.size, 100);
    for (const n of nonces) assert.match(n, /^[A-Za-z0-9+/]{24}$/);
  });
});
