// First paint of a 10,000-message session in Chromium: the webview bundle as `npm run package` ships
// it (minified; built here from src/), in a page with the provider's own HTML and CSP, and a fake host
// that answers `ready` with the snapshot. No VS Code: this isolates the webview's share of "open a
// 10,000-message session ≤ 300 ms to first paint".
// Two cases: a view opening on the session (the snapshot answers the page's `ready` while the page is
// still starting), and an open view switching to it (the snapshot posted once the page is idle, as
// when a session is picked in the palette). Each is measured cold, in a browser of its own (nothing
// compiled or cached yet: the first time a person opens the view in a window), and warm, reloading
// the page in one browser. Nothing of the harness runs in the page between "posted" and "painted":
// the page reports its own marks, and the bench waits for a console line.
// VIGIL_BENCH_PROFILE=<folder> writes a Chromium CPU profile of each cold run there (open it in
// DevTools' Performance panel), from a bundle that keeps its names; profiling slows the run, so its
// figures are not reported. VIGIL_BENCH_TRACE=<file.json> writes a Chromium trace of the first run
// (style, layout and paint as well as script) for the same panel; VIGIL_BENCH_CASES=open or switch
// runs only that case.

import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { renderSessionViewHtml } from '../src/extension/presentation/sessionViewHtml';
import { snapshotTailEntries } from '../src/shared/webviewProtocol';
import { loadNote } from './support/cpuHogs';

const root = path.resolve(__dirname, '..', '..');
/**
 * VIGIL_BENCH_DIST: another build's dist/ (e.g. a copy of the code before a change, built with
 * --production), whose webview.js is measured as it is, for side-by-side runs.
 */
const otherDist = process.env.VIGIL_BENCH_DIST ? path.resolve(process.env.VIGIL_BENCH_DIST) : undefined;
const dist = otherDist ?? path.join(root, 'dist');
const profileDir = process.env.VIGIL_BENCH_PROFILE ? path.resolve(process.env.VIGIL_BENCH_PROFILE) : undefined;
const chromiumPath = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium';
/** VIGIL_BENCH_MESSAGES=10 gives the baseline: what first paint costs whatever the session's length. */
const messages = Number(process.env.VIGIL_BENCH_MESSAGES ?? 10_000);
const runs = Number(process.env.VIGIL_BENCH_RUNS ?? 5);
const coldRuns = Number(process.env.VIGIL_BENCH_COLD_RUNS ?? 5);
const doneLine = 'vigil-bench: done';
const cases = process.env.VIGIL_BENCH_CASES;
const traceFile = process.env.VIGIL_BENCH_TRACE;
const traceCategories = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'blink.user_timing', 'v8.execute', 'loading'];

/**
 * Runs in the page before the bundle: stands in for acquireVsCodeApi and the extension host,
 * answering as SessionViewChannel does (the tail first, the rest on request).
 */
function fakeHost(n: number, tail: number, doneLine: string): void {
  const built = performance.now();
  const now = Date.now();
  const entries: unknown[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) entries.push({ kind: 'user', id: `u${i}`, text: `Question ${i}: can you fix the failing test in src/foo.ts?`, at: now });
    else if (i % 3 === 1) entries.push({ kind: 'agent', id: `a${i}`, markdown: `Here is **answer ${i}**:\n\n\`\`\`ts\nexport const x = ${i};\n\`\`\`\n\n- one\n- [two](https://example.com)`, streaming: false, at: now });
    else entries.push({ kind: 'toolCall', id: `tool:t${i}`, at: now, toolCall: { toolCallId: `t${i}`, title: 'run_command npm test', kind: 'execute', status: 'completed', rawInput: { command: 'npm test' }, content: [{ type: 'text', text: 'ok 12 passed' }], startedAt: now - 4000, endedAt: now } });
  }
  const snapshot = { session: { id: 's1', title: 'bench' }, entries, turn: { phase: 'idle', silenceSeconds: 0 }, notices: [], tasks: [], approvals: [] };
  const w = window as unknown as Record<string, unknown>;
  // The host's own work (building the session, serializing the message) runs in this page only
  // because the host is faked here: it is left out of "page start → painted".
  w.hostMs = performance.now() - built;
  const split = Math.max(0, n - tail);
  // `?switch`: the view is open and idle (its first `ready` answered with an empty snapshot) when
  // the session is shown, as when a person picks it in an open view.
  const switching = location.search.includes('switch');
  const post = () => {
    w.postedAt = performance.now();
    const message = { type: 'snapshot', seq: 2, snapshot: { ...snapshot, entries: entries.slice(split) }, ...(split > 0 ? { omitted: split } : {}) };
    window.postMessage(message, '*');
    w.hostMs = (w.hostMs as number) + performance.now() - (w.postedAt as number);
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
    w.firstPaintEntries = document.querySelectorAll('.entry').length;
    if (split === 0) return finished();
    merged.observe(app, { childList: true, subtree: true, characterData: true });
  });
  painted.observe(app, { attributes: true, attributeFilter: ['data-painted-seq'] });
}

/** The webview bundle to measure: another build's as it is, else this source's, minified as `npm run package` builds it. */
async function webviewBundle(): Promise<{ file: string; cleanup: () => void }> {
  if (otherDist) return { file: path.join(otherDist, 'webview.js'), cleanup: () => undefined };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-webview-bench-'));
  const file = path.join(dir, 'webview.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { webviewBuildOptions } = require(path.join(root, 'scripts', 'webviewBuild.cjs')) as { webviewBuildOptions(outfile: string): esbuild.BuildOptions };
  await esbuild.build({ ...webviewBuildOptions(file), absWorkingDir: root, legalComments: 'none', logLevel: 'warning', ...(profileDir ? { minifyWhitespace: true, minifySyntax: true } : { minify: true }) });
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function serve(webviewFile: string): Promise<http.Server> {
  const webviewDir = path.dirname(webviewFile);
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
      const name = url.pathname.slice('/dist/'.length);
      // The bundle (and any chunk beside it) from the build measured; codicons from dist/.
      const file = name.endsWith('.js') ? path.join(webviewDir, name) : path.join(dist, name);
      if (!existsSync(file)) return void res.writeHead(404).end();
      const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'font/ttf';
      res.writeHead(200, { 'content-type': type }).end(readFileSync(file));
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Sample {
  /** Snapshot posted → tail painted. */
  fromPost: number;
  /** Snapshot received → tail painted (validation + render + paint). */
  fromReceipt: number;
  /**
   * The page's navigation start → tail painted, less the fake host's own work in the page: what a
   * person waits for when the view opens on the session, with a host that answers at once.
   */
  fromStart: number;
  /** History requested → merged and rendered, when the snapshot omitted some. */
  history?: number;
  inDom: number;
  /** Entries in the DOM when the tail was painted. */
  atPaint: number;
}

function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

let traced = false;
/** Opens the view (`switching`: open and idle first) in `page` and reads the page's own marks. */
async function measure(page: Page, url: string, profile?: string): Promise<Sample> {
  const done = page.waitForEvent('console', { predicate: (line) => line.text() === doneLine, timeout: 60_000 });
  const tracing = traceFile !== undefined && !traced;
  traced ||= tracing;
  if (tracing) await page.context().browser()!.startTracing(page, { path: traceFile, categories: traceCategories });
  const cdp = profile ? await page.context().newCDPSession(page) : undefined;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
  }
  await page.goto(url);
  await done;
  if (tracing) await page.context().browser()!.stopTracing();
  if (cdp && profile) {
    const { profile: data } = await cdp.send('Profiler.stop');
    writeFileSync(profile, JSON.stringify(data));
  }
  const m = await page.evaluate(() => ({
    posted: (window as unknown as { postedAt: number }).postedAt,
    received: performance.getEntriesByName('vigil:snapshot-received').at(-1)!.startTime,
    painted: performance.getEntriesByName('vigil:tail-painted').at(-1)!.startTime,
    inDom: document.querySelectorAll('.entry').length,
    atPaint: (window as unknown as { firstPaintEntries: number }).firstPaintEntries,
    historyAt: (window as unknown as { historyAskedAt?: number }).historyAskedAt,
    mergedAt: (window as unknown as { mergedAt: number }).mergedAt,
    hostMs: (window as unknown as { hostMs: number }).hostMs,
  }));
  return { fromPost: m.painted - m.posted, fromReceipt: m.painted - m.received, fromStart: m.painted - m.hostMs, history: m.historyAt !== undefined ? m.mergedAt - m.historyAt : undefined, inDom: m.inDom, atPaint: m.atPaint };
}

const viewport = { width: 480, height: 900 };

async function main(): Promise<void> {
  if (!existsSync(chromiumPath)) throw new Error(`no Chromium at ${chromiumPath} (apt-get install chromium, or set VIGIL_CHROMIUM)`);
  const bundle = await webviewBundle();
  if (!existsSync(bundle.file)) throw new Error(`${bundle.file} is missing: build that copy with node scripts/build.mjs --production`);
  if (!existsSync(path.join(dist, 'codicons', 'codicon.css'))) throw new Error('dist/codicons is missing: run node scripts/build.mjs');
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const server = await serve(bundle.file);
  const port = (server.address() as AddressInfo).port;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const figure = (xs: number[]) => `${median(xs).toFixed(0)} ms (max ${Math.max(...xs).toFixed(0)} ms)`;
  const bytes = readFileSync(bundle.file).length;
  console.log(`webview bundle measured: ${otherDist ? bundle.file : 'this source'}, ${(bytes / 1024).toFixed(0)} KB${otherDist ? '' : ' (minified, as packaged)'}`);
  try {
    for (const switching of [false, true].filter((x) => !cases || cases === (x ? 'switch' : 'open'))) {
      const url = `http://127.0.0.1:${port}/${switching ? '?switch' : ''}`;
      const what = switching ? 'an open view switching to it' : 'a view opening on it';
      // Cold: a browser of its own per run, so nothing of the page is compiled or cached.
      const cold: Sample[] = [];
      for (let i = 0; i < coldRuns; i++) {
        const browser = await launch();
        try {
          const page = await browser.newPage({ viewport });
          const profile = profileDir ? path.join(profileDir, `${switching ? 'switch' : 'open'}-cold-${i + 1}.cpuprofile`) : undefined;
          cold.push(await measure(page, url, profile));
        } finally {
          await browser.close();
        }
      }
      // Warm: the page reloaded in one browser (its compiled code and caches reused), the first load not counted.
      const warm: Sample[] = [];
      const browser = await launch();
      try {
        const page = await browser.newPage({ viewport });
        await measure(page, url);
        for (let i = 0; i < runs; i++) warm.push(await measure(page, url));
      } finally {
        await browser.close();
      }
      if (profileDir) continue;
      for (const [label, samples] of [['cold', cold], ['warm', warm]] as const) {
        console.log(`webview first paint, ${messages.toLocaleString('en')}-message session, ${what}, ${label}, snapshot posted → tail painted (median of ${samples.length}): ${figure(samples.map((x) => x.fromPost))} (${loadNote()})`);
        console.log(`webview first paint, ${what}, ${label}, snapshot received → tail painted (validation + render + paint, median of ${samples.length}): ${figure(samples.map((x) => x.fromReceipt))} (${loadNote()})`);
        if (!switching) console.log(`webview first paint, ${what}, ${label}, page start → tail painted (page, bundle, start-up, snapshot; the fake host's own work left out; median of ${samples.length}): ${figure(samples.map((x) => x.fromStart))} (${loadNote()})`);
      }
      if (!switching) console.log(`webview entries in the DOM at first paint: ${warm.at(-1)!.atPaint}; once the history is in: ${warm.at(-1)!.inDom} of ${messages} (${loadNote()})`);
      const history = [...cold, ...warm].flatMap((x) => (x.history !== undefined ? [x.history] : []));
      if (history.length > 0) console.log(`webview history after first paint, ${what} (${messages - snapshotTailEntries} older entries requested → merged and rendered, median of ${history.length}, cold and warm): ${figure(history)} (${loadNote()})`);
    }
    if (profileDir) console.log(`webview cold-run CPU profiles written to ${profileDir}`);
  } finally {
    server.close();
    bundle.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
