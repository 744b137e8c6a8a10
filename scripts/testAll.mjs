// The project's test command: build, lint, unit, extension-host and UI suites; ends with one line
// `N passed, N failed[, N skipped] (<step> <s> s, …; total <s> s)` carrying the real totals of all suites and
// the time each step took.
//
// Two lanes run side by side, never more (CI has 2 cores):
//   lane 1: typecheck → agent bundle for the unit tests      → parts of the unit and UI suites
//   lane 2: bundle → lint → package → extension-host suite   → parts of the unit and UI suites
// (the extension-host suite also waits for typecheck: tsc compiles it into out/). A part is a top-level folder of
// test/unit or one UI test file, each a mocha run of its own (a UI file has its own workbenches: no state crosses
// files); both lanes take parts from one queue, the longest first that can run (by the times of the last run, kept in
// .vscode-test/test-times.json, else those of a full run kept in scripts/testTimes.json), so both lanes end close
// together. The unit tests never read dist/ (they bundle the agent into out/agent-under-test/), so packaging may
// rewrite dist/ meanwhile. Typecheck prints live; every
// other step writes to a log file under .vscode-test/logs/ and its output is printed in one block when it ends.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const countsDir = path.join(root, '.vscode-test', 'counts');
const logsDir = path.join(root, '.vscode-test', 'logs');
rmSync(countsDir, { recursive: true, force: true });
mkdirSync(countsDir, { recursive: true });
mkdirSync(logsDir, { recursive: true });
const only = process.argv.slice(2);
const wanted = (name) => only.length === 0 || only.includes(name);
const reporter = path.join(root, 'out', 'test', 'harness', 'countingReporter.js');
const totals = { passed: 0, failed: 0, skipped: 0 };
/** Summary lines by step, printed in this order whatever order the steps end in. */
const order = ['typecheck', 'bundle', 'lint', 'agent-bundle', 'unit', 'package', 'extension-host', 'e2e'];
const lines = new Map();
/** When each step (each UI test file) started and ended, for the timings of the summary line. */
const spans = new Map();
const started = Date.now();

/**
 * Longest any one step (or part of a suite) may take: one that hangs (a handle left open, a wedged process) fails here
 * with a clear line instead of holding the run until CI's own limit ends it without a summary.
 */
const stepLimitMs = 15 * 60_000;

/** Process groups and markers of the steps now running, each stopped on an interrupt. */
const running = new Set();
const runningMarkers = new Set();
/**
 * Every process a step starts carries a marker of its step in its environment, also those that leave the step's
 * process group (a workbench, its extension host, agents, background tasks): a step stopped at its limit or by an
 * interrupt takes them along instead of leaving them to load the machine.
 */
const markerName = 'VIGIL_TEST_ALL_STEP';
const markerOf = (label) => `${process.pid}-${label}`;

/** Kills every process whose environment carries one of `values` as its step marker. */
function killMarked(values) {
  const wanted = new Set([...values].map((v) => `${markerName}=${v}`));
  if (wanted.size === 0) return;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').some((v) => wanted.has(v))) process.kill(Number(entry), 'SIGKILL');
    } catch {
      // Ended meanwhile, or not ours to read.
    }
  }
}

// Steps run in process groups of their own, which an interrupt of this script does not reach: stop them here.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const killGroup of running) killGroup();
    killMarked(runningMarkers);
    process.exit(130);
  });
}

const seconds = (since) => Math.round((Date.now() - since) / 1000);

/**
 * Runs one step in a process group of its own, so a step past its limit is stopped with everything it started.
 * `logged`: the step runs beside another one; its output goes to a file and is printed when it ends.
 */
function run(label, command, args, { env = {}, logged = false } = {}) {
  console.log(`\n=== ${label}: ${command} ${args.join(' ')}${logged ? ' (alongside; output follows when it ends)' : ''}`);
  const limit = stepLimitMs;
  const logFile = path.join(logsDir, `${label}.log`);
  const fd = logged ? openSync(logFile, 'w') : undefined;
  const stepStarted = Date.now();
  return new Promise((resolve) => {
    const stdio = logged ? ['ignore', fd, fd] : 'inherit';
    const marker = markerOf(label);
    const child = spawn(command, args, { cwd: root, stdio, env: { ...process.env, ...env, [markerName]: marker }, detached: true });
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    };
    running.add(killGroup);
    runningMarkers.add(marker);
    let stopped = false;
    const timer = setTimeout(() => {
      stopped = true;
      console.log(`\n=== ${label}: stopped after ${limit / 60_000} min without finishing`);
      killGroup();
      killMarked([marker]);
    }, limit);
    const finish = (code) => {
      clearTimeout(timer);
      running.delete(killGroup);
      runningMarkers.delete(marker);
      if (fd !== undefined) {
        closeSync(fd);
        console.log(`\n=== ${label} (ran alongside, ${seconds(stepStarted)} s): output`);
        process.stdout.write(readFileSync(logFile, 'utf8'));
        if (stopped) console.log(`=== ${label}: was stopped after ${limit / 60_000} min without finishing`);
      }
      console.log(`=== ${label}: ended in ${seconds(stepStarted)} s`);
      spans.set(label, { from: stepStarted, to: Date.now() });
      resolve(code);
    };
    child.on('error', (error) => {
      console.log(`${label}: could not start: ${error.message}`);
      finish(1);
    });
    child.on('exit', (code, signal) => {
      // Whatever the step left behind in its group would hold the run's output open; outside it, load the machine.
      killGroup();
      killMarked([marker]);
      finish(code ?? (signal ? 1 : 0));
    });
  });
}

/** A step that is one check (build, lint, package): counts as one test. */
async function check(label, command, args, options) {
  const code = await run(label, command, args, options);
  if (code === 0) totals.passed += 1;
  else totals.failed += 1;
  lines.set(label, `${label}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`}`);
  return code === 0;
}

/** A suite that reports its own counts; a crash before it reports counts as one failure. */
async function suite(name, command, args, options = {}) {
  const countsFile = path.join(countsDir, `${name}.json`);
  const code = await run(name, command, args, { ...options, env: { VIGIL_COUNTS_FILE: countsFile, VIGIL_SUITE_NAME: name } });
  let counts = { passed: 0, failed: 0, skipped: 0 };
  if (existsSync(countsFile)) counts = JSON.parse(readFileSync(countsFile, 'utf8'));
  if (code !== 0 && counts.failed === 0) counts.failed = 1;
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
  lines.set(name, `${name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${code !== 0 ? ` (exit ${code})` : ''}`);
}

const npx = (...args) => ['npx', args];
/** mocha itself, without npx's start-up for each part of the suites. */
const mocha = path.join(root, 'node_modules', '.bin', 'mocha');

/** A mocha config's options as flags, without its `spec` (a config's `spec` is added to the files named). */
function mochaOptions(configFile) {
  const args = ['--no-config'];
  for (const [key, value] of Object.entries(JSON.parse(readFileSync(path.join(root, configFile), 'utf8')))) {
    if (key === 'spec') continue;
    for (const v of Array.isArray(value) ? value : [value]) args.push(...(v === true ? [`--${key}`] : [`--${key}`, String(v)]));
  }
  return args;
}

/** Files under `dir` (relative to the repository) whose names end with `suffix`, sorted. */
function filesUnder(dir, suffix) {
  if (!existsSync(path.join(root, dir))) return [];
  return readdirSync(path.join(root, dir), { recursive: true })
    .filter((f) => f.endsWith(suffix))
    .map((f) => path.join(dir, f))
    .sort();
}

/**
 * The parts the two lanes share: the unit suite by top-level folder of test/unit (its top-level files one more part),
 * the UI suite by file. Every test file is in exactly one part; each part is a mocha run of its own.
 */
function parts() {
  const list = [];
  if (wanted('unit')) {
    const byFolder = new Map();
    for (const file of filesUnder(path.join('out', 'test', 'unit'), '.test.js')) {
      const [first, ...rest] = path.relative(path.join('out', 'test', 'unit'), file).split(path.sep);
      const key = rest.length > 0 ? first : '(top)';
      byFolder.set(key, [...(byFolder.get(key) ?? []), file]);
    }
    for (const [key, files] of byFolder) list.push({ suite: 'unit', name: `unit-${key.replace(/[()]/g, '')}`, files, options: mochaOptions('.mocharc.json') });
  }
  if (wanted('e2e')) {
    for (const file of filesUnder(path.join('out', 'test', 'e2e'), '.e2e.js')) {
      list.push({ suite: 'e2e', name: `e2e-${path.basename(file, '.e2e.js')}`, files: [file], options: mochaOptions('.mocharc.e2e.json') });
    }
  }
  const times = readTimes();
  const time = (p) => times[p.name] ?? Number.POSITIVE_INFINITY;
  return list.sort((a, b) => time(b) - time(a));
}

/** Each part's time in the last run, so the longest start first and the two lanes end together. */
const timesFile = path.join(root, '.vscode-test', 'test-times.json');
/**
 * The parts' times of a full run, kept in the repository: a fresh clone (CI) has no last run, and took the parts in
 * the order of their names (the unit suite's, then the UI files alphabetically), which left the longest UI files for
 * last and one lane working alone at the end. The last run's own times, once there, replace these.
 */
const seedTimesFile = path.join(root, 'scripts', 'testTimes.json');
function readTimes() {
  return { ...readJson(seedTimesFile), ...readJson(timesFile) };
}
function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

/** Totals of the unit and UI suites over their parts; a part whose run crashes before it reports counts as one failure. */
const split = new Map(['unit', 'e2e'].map((s) => [s, { passed: 0, failed: 0, skipped: 0, parts: 0, failedParts: [] }]));
const partTimes = {};

async function runPart(part, env) {
  const countsFile = path.join(countsDir, `${part.name}.json`);
  const code = await run(part.name, mocha, [...part.options, '--reporter', reporter, ...part.files], {
    logged: true,
    env: { ...env, VIGIL_COUNTS_FILE: countsFile, VIGIL_SUITE_NAME: part.suite },
  });
  let counts = { passed: 0, failed: 0, skipped: 0 };
  if (existsSync(countsFile)) counts = JSON.parse(readFileSync(countsFile, 'utf8'));
  if (code !== 0 && counts.failed === 0) counts.failed = 1;
  const total = split.get(part.suite);
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
  total.parts += 1;
  if (counts.failed > 0) total.failedParts.push(part.name);
  const span = spans.get(part.name);
  partTimes[part.name] = Math.round((span.to - span.from) / 1000);
}

/**
 * One lane's share of the parts: from the shared queue until it is empty, the longest part whose suite is ready
 * (a UI part needs the package, a unit part the agent bundle), so that a lane never idles waiting for one suite's
 * fixtures while parts of the other could run.
 */
async function lane(queue, ready) {
  const settled = {};
  for (const [suite, fixtures] of Object.entries(ready)) fixtures.then(() => (settled[suite] = true));
  while (queue.length > 0) {
    const index = queue.findIndex((p) => settled[p.suite]);
    if (index === -1) {
      await Promise.race(queue.map((p) => ready[p.suite]));
      // The callbacks above ran first (registered first): the next look finds the suite that is ready.
      await Promise.resolve();
      continue;
    }
    const [part] = queue.splice(index, 1);
    const fixtures = await ready[part.suite];
    if (fixtures) await runPart(part, fixtures);
  }
}

// tsc emits even with type errors: a type error fails the run, but the suites still report.
// The bundle (esbuild, into dist/) is independent of tsc's output (out/), and so are lint and packaging.
// Incremental: a run after a small change re-checks what the change can reach (the whole program on the first run);
// its record lives in out/, so removing out/ starts afresh.
const typechecked = check('typecheck', ...npx('tsc', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', path.join('out', '.tsbuildinfo')));
const bundled = check('bundle', 'node', ['scripts/build.mjs'], { logged: true });
/** The parts (compiled by tsc) not taken by a lane yet. */
const queue = typechecked.then(async () => ((await bundled) ? parts() : []));
let announcePackaged;
const packaged = new Promise((resolve) => (announcePackaged = resolve));
/**
 * The agent as it ships, bundled once for every unit part (test/unit/agent/agentBundle.ts): parts running side
 * by side would otherwise rebuild it under each other's running agents.
 */
const agentBundled = typechecked.then(async () => {
  if (!wanted('unit') || !(await bundled)) return undefined;
  const build = "require('./out/test/unit/agent/agentBundle').ensureAgentBundle().catch((e) => { console.error(e); process.exit(1); })";
  return (await check('agent-bundle', 'node', ['-e', build])) ? { VIGIL_AGENT_BUNDLE_BUILT: '1' } : {};
});
const ready = { unit: agentBundled, e2e: packaged.then((ok) => (ok ? {} : undefined)) };
const laneOne = async () => {
  await agentBundled;
  await lane(await queue, ready);
};
// The extension host runs the packaged build in dist/ and the suite tsc compiled into out/.
const laneTwo = async () => {
  try {
    const built = await bundled;
    // Cached by content: no rule in eslint.config.mjs reads another file (none is type-aware), so a file that did not
    // change keeps its result; a change of the config or of ESLint starts afresh.
    const lintCache = ['--cache', '--cache-strategy', 'content', '--cache-location', path.join('.vscode-test', 'eslintcache')];
    if (wanted('lint')) await check('lint', ...npx('eslint', '.', '--max-warnings', '0', ...lintCache), { logged: true });
    const needed = built && (wanted('suite') || wanted('e2e'));
    announcePackaged(needed && (await check('package', 'npm', ['run', '--silent', 'package'], { logged: true })));
  } finally {
    announcePackaged(false);
  }
  await typechecked;
  if (wanted('suite') && (await packaged)) await suite('extension-host', 'node', ['out/test/harness/runSuite.js'], { logged: true });
  await lane(await queue, ready);
};
await Promise.all([laneOne(), laneTwo()]);
for (const [name, total] of split) {
  if (total.parts === 0) continue;
  totals.passed += total.passed;
  totals.failed += total.failed;
  totals.skipped += total.skipped;
  const failedIn = total.failedParts.length > 0 ? ` (failed in ${total.failedParts.join(', ')})` : '';
  lines.set(name, `${name}: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped in ${total.parts} parts${failedIn}`);
}
if (Object.keys(partTimes).length > 0) writeFileSync(timesFile, JSON.stringify({ ...readJson(timesFile), ...partTimes }, null, 2));

/** Wall time of each step; of a split suite from its first part's start to its last part's end. */
function timings() {
  const parts = [];
  for (const label of order) {
    const own = [...spans].filter(([l]) => l === label || (split.has(label) && l.startsWith(`${label}-`))).map(([, s]) => s);
    if (own.length === 0) continue;
    const from = Math.min(...own.map((s) => s.from));
    const to = Math.max(...own.map((s) => s.to));
    parts.push(`${label} ${Math.round((to - from) / 1000)} s`);
  }
  return `${parts.join(', ')}; total ${seconds(started)} s`;
}

console.log(`\n=== summary (${seconds(started)} s)`);
for (const label of order) if (lines.has(label)) console.log(lines.get(label));
const skipped = totals.skipped > 0 ? `, ${totals.skipped} skipped` : '';
console.log(`${totals.passed} passed, ${totals.failed} failed${skipped} (${timings()})`);
process.exit(totals.failed > 0 ? 1 : 0);
