// The packaged extension in a real workbench: it activates, shows its status bar item, opens the
// session view from the palette, talks to it, and locks the view down with a nonce-based CSP.

import * as assert from 'node:assert';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';

describe('foundation (real workbench, packaged VSIX)', function () {
  let session: E2eSession;

  before(async function () {
    session = await openE2eSession({ name: 'foundation' });
  });

  after(async function () {
    await session?.close();
  });

  it('shows the idle status bar item', async () => {
    const item = session.workbench.statusItem();
    await item.waitFor({ timeout: 60_000 });
    assert.match(await session.workbench.statusText(), /^Vigil$/);
    assert.match(await item.innerHTML(), /codicon-hubot/);
  });

  it('reveals the session view from the palette and completes the ready round trip', async () => {
    await session.workbench.runCommand('Vigil: New Session');
    const view = session.workbench.sessionWebview();
    // data-painted-seq is set only after the webview posted `ready` and painted the host's answer.
    await view.locator('#app[data-painted-seq]').waitFor({ timeout: 60_000 });
    await session.workbench.screenshot('foundation-session-view');
  });

  it('gives the session most of the side bar and the Sessions list the rest, on a first start', async () => {
    // Split evenly, the transcript of a stopped turn had a few pixels between its header, notice and composer.
    const heights = await session.workbench.page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.part.sidebar .pane')].map((pane) => [pane.querySelector('.pane-header .title')?.textContent?.trim().toLowerCase() ?? '?', pane.getBoundingClientRect().height])));
    assert.ok(heights.session > 2.5 * heights.sessions, `the session view ${heights.session} px, the Sessions list ${heights.sessions} px`);
  });

  it('allows nothing in the webview but its own nonce-stamped bundle', async () => {
    const view = session.workbench.sessionWebview();
    const csp = await view.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    assert.ok(csp, 'the webview declares a CSP');
    assert.match(csp, /default-src 'none'/);
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    assert.ok(nonce, `script-src is nonce-based: ${csp}`);
    assert.doesNotMatch(csp, /unsafe-eval/);
    assert.doesNotMatch(/script-src[^;]*/.exec(csp)![0], /unsafe-inline|https?:|\*/);
    const scripts = await view
      .locator('script')
      .evaluateAll((nodes) => nodes.map((n) => ({ nonce: (n as HTMLScriptElement).nonce, src: (n as HTMLScriptElement).src, text: (n as HTMLScriptElement).text })));
    // VS Code itself injects the acquireVsCodeApi shim; every other script must be our nonce-stamped bundle.
    const ours = scripts.filter((s) => !/globalThis\.acquireVsCodeApi = /.test(s.text));
    assert.strictEqual(ours.length, 1, `exactly one script of ours: ${JSON.stringify(ours.map((s) => s.src))}`);
    assert.strictEqual(ours[0].nonce, nonce, 'the bundle carries the render\'s nonce');
    assert.match(ours[0].src, /\/dist\/webview\.js$/);
  });

  it('saves a screenshot of the workbench and made no request off the machine', async () => {
    await session.workbench.screenshot('foundation-workbench');
    session.workbench.assertStayedOnMachine();
  });
});
