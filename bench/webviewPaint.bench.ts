// First paint of a 10,000-message session in Chromium: the built dist/webview.js in a page with the
// provider's own HTML and CSP, and a fake host that answers `ready` with the snapshot. No VS Code:
// this isolates the webview's share of "open a 10,000-message session ≤ 300 ms to first paint".
// Two cases: a view opening on the session (the snapshot answers the page's `ready` while the page is
// still starting), and an open view switching to it (the snapshot posted once the page is idle, as
// when a session is picked in the palette). Nothing of the harness runs in the page between
// "posted" and "painted": the page reports its own marks, and the bench waits for a console line.

import { existsSync, readFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import { renderSessionViewHtml } from '../src/extension/presentation/sessionViewHtml';
import { snapshotTailEntries } from '../src/shared/webviewProtocol';
import { loadNote } from './support/cpuHogs';

const root = path.resolve(__dirname, '..', '..');
/** VIGIL_BENCH_DIST: another build's dist/ (e.g. a copy of the code before a change), for side-by-side runs. */
const dist = process.env.VIGIL_BENCH_DIST ? path.resolve(process.env.VIGIL_BENCH_DIST) : path.join(root, 'dist');
const chromiumPath = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium';
/** VIGIL_BENCH_MESSAGES=10 gives the baseline: what first paint costs whatever the session's length. */
const messages = Number(process.env.VIGIL_BENCH_MESSAGES ?? 10_000);
const runs = Number(process.env.VIGIL_BENCH_RUNS ?? 5);
const doneLine = 'vigil-bench: done';

/**
 * Runs in the page before the bundle: stands in for acquireVsCodeApi and the extension host,
 * answering as SessionViewChannel does (the tail first, the rest on request).
 */
function fakeHost(n: number, tail: number, doneLine: string): void {
  const now = Date.now();
  const entries: unknown[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) entries.push({ kind: 'user', id: `u${i}`, text: `Question ${i}: can you fix the failing test in src/foo.ts?`, at: now });
    else if (i % 3 === 1) entries.push({ kind: 'agent', id: `a${i}`, markdown: `Here is **answer ${i}**:\n\n\`\`\`ts\nexport const x = ${i};\n\`\`\`\n\n- one\n- [two](https://example.com)`, streaming: false, at: now });
    else entries.push({ kind: 'toolCall', id: `tool:t${i}`, at: now, toolCall: { toolCallId: `t${i}`, title: 'run_command npm test', kind: 'execute', status: 'completed', rawInput: { command: 'npm test' }, content: [{ type: 'text', text: 'ok 12 passed' }], startedAt: now - 4000, endedAt: now } });
  }
  const snapshot = { session: { id: 's1', title: 'bench' }, entries, turn: { phase: 'idle', silenceSeconds: 0 }, notices: [], tasks: [], approvals: [] };
  const w = window as unknown as Record<string, unknown>;
  const split = Math.max(0, n - tail);
  // `?switch`: the view is open and idle (its first `ready` answered with an empty snapshot) when
  // the session is shown, as when a person picks it in an open view.
  const switching = location.search.includes('switch');
  const post = () => {
    w.postedAt = performance.now();
    const message = { type: 'snapshot', seq: 2, snapshot: { ...snapshot, entries: entries.slice(split) }, ...(split > 0 ? { omitted: split } : {}) };
    window.postMessage(message, '*');
  };
  w.acquireVsCodeApi = () => ({
    postMessage(m: { type: string; id: string }) {
      if (m.type === 'ready') {
        if (!switching) return post();
        window.postMessage({ type: 'snapshot', seq: 1, snapshot: { ...snapshot, session: null, entries: [] } }, '*');
        // Idle: two frames painted and the page's start-up work done.
        requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(post, 50)));
      } else if (m.type === 'history') {
        w.historyAskedAt = performance.now();
        window.postMessage({ type: 'history', requestId: m.id, snapshotSeq: 2, entries: entries.slice(0, split) }, '*');
      }
    },
    getState: () => undefined,
    setState: () => undefined,
  });
  // Tells the bench when the snapshot is painted and the whole history is in place (the "loading
  // earlier entries" edge gave way); watches only #app's attribute until the tail is painted.
  const app = document.getElementById('app')!;
  const finished = () => {
    w.mergedAt = performance.now();
    console.log(doneLine);
  };
  const merged = new MutationObserver(() => {
    if (/Loading/.test(document.querySelector('#older-edge')?.textContent ?? '')) return;
    merged.disconnect();
    finished();
  });
  const painted = new MutationObserver(() => {
    if (app.dataset.paintedSeq !== '2') return;
    painted.disconnect();
    if (split === 0) return finished();
    merged.observe(app, { childList: true, subtree: true, characterData: true });
  });
  painted.observe(app, { attributes: true, attributeFilter: ['data-painted-seq'] });
}

function serve(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const origin = `http://${req.headers.host}`;
    if (url.pathname === '/') {
      const nonce = `n${Date.now()}`;
      const page = renderSessionViewHtml({ nonce, cspSource: origin, scriptUri: `${origin}/dist/webview.js`, codiconsUri: `${origin}/dist/codicons/codicon.css` })
        .replace('<script type="module"', `<script nonce="${nonce}" src="${origin}/host.js"></script>\n<script type="module"`);
      res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    } else if (url.pathname === '/host.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(`(${fakeHost.toString()})(${messages}, ${snapshotTailEntries}, ${JSON.stringify(doneLine)});`);
    } else if (url.pathname.startsWith('/dist/') && !url.pathname.includes('..')) {
      const file = path.join(dist, url.pathname.slice('/dist/'.length));
      if (!existsSync(file)) return void res.writeHead(404).end();
      const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'font/ttf';
      res.writeHead(200, { 'content-type': type }).end(readFileSync(file));
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main(): Promise<void> {
  if (!existsSync(path.join(dist, 'webview.js'))) throw new Error('dist/webview.js is missing: run node scripts/build.mjs');
  if (!existsSync(chromiumPath)) throw new Error(`no Chromium at ${chromiumPath} (apt-get install chromium, or set VIGIL_CHROMIUM)`);
  const server = await serve();
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 480, height: 900 } });
    const port = (server.address() as AddressInfo).port;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const switching of [false, true]) {
      const fromPost: number[] = [];
      const fromReceipt: number[] = [];
      const historyMs: number[] = [];
      let inDom = 0;
      for (let i = 0; i < runs; i++) {
        const done = page.waitForEvent('console', { predicate: (line) => line.text() === doneLine, timeout: 60_000 });
        await page.goto(`http://127.0.0.1:${port}/${switching ? '?switch' : ''}`);
        await done;
        const m = await page.evaluate(() => ({
          posted: (window as unknown as { postedAt: number }).postedAt,
          received: performance.getEntriesByName('vigil:snapshot-received').at(-1)!.startTime,
          painted: performance.getEntriesByName('vigil:tail-painted').at(-1)!.startTime,
          inDom: document.querySelectorAll('.entry').length,
          historyAt: (window as unknown as { historyAskedAt?: number }).historyAskedAt,
          mergedAt: (window as unknown as { mergedAt: number }).mergedAt,
        }));
        if (m.historyAt !== undefined) historyMs.push(m.mergedAt - m.historyAt);
        fromPost.push(m.painted - m.posted);
        fromReceipt.push(m.painted - m.received);
        inDom = m.inDom;
      }
      const what = switching ? 'an open view switching to it' : 'a view opening on it';
      console.log(`webview first paint, ${messages.toLocaleString('en')}-message session, ${what}, snapshot posted → tail painted (median of ${runs}): ${median(fromPost).toFixed(0)} ms (max ${Math.max(...fromPost).toFixed(0)} ms) (${loadNote()})`);
      console.log(`webview first paint, ${what}, snapshot received → tail painted (validation + render + paint, median of ${runs}): ${median(fromReceipt).toFixed(0)} ms (max ${Math.max(...fromReceipt).toFixed(0)} ms) (${loadNote()})`);
      if (!switching) console.log(`webview entries in the DOM once the history is in: ${inDom} of ${messages} (${loadNote()})`);
      if (messages > snapshotTailEntries) console.log(`webview history after first paint, ${what} (${messages - snapshotTailEntries} older entries requested → merged and rendered, median of ${runs}): ${median(historyMs).toFixed(0)} ms (${loadNote()})`);
    }
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
