// First paint of a 10,000-message session in Chromium: the built dist/webview.js in a page with the
// provider's own HTML and CSP, and a fake host that answers `ready` with the snapshot. No VS Code:
// this isolates the webview's share of "open a 10,000-message session ≤ 300 ms to first paint".

import { existsSync, readFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import { renderSessionViewHtml } from '../src/extension/presentation/sessionViewHtml';
import { snapshotTailEntries } from '../src/shared/webviewProtocol';
import { loadNote } from './support/cpuHogs';

const root = path.resolve(__dirname, '..', '..');
const dist = path.join(root, 'dist');
const chromiumPath = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium';
/** VIGIL_BENCH_MESSAGES=10 gives the baseline: what first paint costs whatever the session's length. */
const messages = Number(process.env.VIGIL_BENCH_MESSAGES ?? 10_000);
const runs = 5;

/**
 * Runs in the page before the bundle: stands in for acquireVsCodeApi and the extension host,
 * answering as SessionViewChannel does (the tail first, the rest on request).
 */
function fakeHost(n: number, tail: number): void {
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
  w.acquireVsCodeApi = () => ({
    postMessage(m: { type: string; id: string }) {
      if (m.type === 'ready') {
        w.postedAt = performance.now();
        const message = { type: 'snapshot', seq: 1, snapshot: { ...snapshot, entries: entries.slice(split) }, ...(split > 0 ? { omitted: split } : {}) };
        window.postMessage(message, '*');
      } else if (m.type === 'history') {
        w.historyAskedAt = performance.now();
        window.postMessage({ type: 'history', requestId: m.id, snapshotSeq: 1, entries: entries.slice(0, split) }, '*');
      }
    },
    getState: () => undefined,
    setState: () => undefined,
  });
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
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(`(${fakeHost.toString()})(${messages}, ${snapshotTailEntries});`);
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
    const fromPost: number[] = [];
    const fromReceipt: number[] = [];
    const historyMs: number[] = [];
    let inDom = 0;
    for (let i = 0; i < runs; i++) {
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.waitForSelector('#app[data-painted-seq]', { timeout: 60_000 });
      // The whole history is in place once the "loading earlier entries" edge gives way.
      await page.waitForFunction(() => !/Loading/.test(document.querySelector('#older-edge')?.textContent ?? ''), undefined, { timeout: 60_000 });
      const m = await page.evaluate(() => ({
        posted: (window as unknown as { postedAt: number }).postedAt,
        received: performance.getEntriesByName('vigil:snapshot-received')[0].startTime,
        painted: performance.getEntriesByName('vigil:tail-painted')[0].startTime,
        inDom: document.querySelectorAll('.entry').length,
        historyAt: (window as unknown as { historyAskedAt: number }).historyAskedAt,
        mergedAt: performance.now(),
      }));
      if (m.historyAt !== undefined) historyMs.push(m.mergedAt - m.historyAt);
      fromPost.push(m.painted - m.posted);
      fromReceipt.push(m.painted - m.received);
      inDom = m.inDom;
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`webview first paint, ${messages.toLocaleString('en')}-message session, snapshot posted → tail painted (median of ${runs}): ${median(fromPost).toFixed(0)} ms (max ${Math.max(...fromPost).toFixed(0)} ms) (${loadNote()})`);
    console.log(`webview first paint, snapshot received → tail painted (validation + render + paint, median of ${runs}): ${median(fromReceipt).toFixed(0)} ms (${loadNote()})`);
    console.log(`webview entries in the DOM after first paint: ${inDom} of ${messages} (${loadNote()})`);
    if (messages > snapshotTailEntries) console.log(`webview history after first paint (${messages - snapshotTailEntries} older entries requested → merged, median of ${runs}): ${median(historyMs).toFixed(0)} ms (${loadNote()})`);
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
