// The project's test command: build, lint, unit, extension-host and UI suites; ends with one line
// `N passed, N failed[, N skipped] (<step> <s> s, …; total <s> s)` carrying the real totals of all suites and
// the time each step took.
//
// Two lanes run side by side, never more (CI has 2 cores):
//   lane 1: typecheck → unit suite                        → UI test files
//   lane 2: bundle → lint → package → extension-host suite → UI test files
// (the extension-host suite and the UI files also wait for typecheck: tsc compiles them into out/).
// The unit suite never reads dist/ (it bundles the agent into out/agent-under-test/), so packaging may rewrite
// dist/ meanwhile. The UI suite is split by file: each file is a mocha run of its own (its own workbenches, so no
// state crosses files), taken from one queue by whichever lane is free, longest first (by the times of the last
// run, kept in .vscode-test/e2e-times.json), so both lanes end close together. The unit suite's output is shown
// live; every other step writes to a log file under .vscode-test/logs/ and its output is printed in one block
// when it ends.
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
const order = ['typecheck', 'bundle', 'lint', 'unit', 'package', 'extension-host', 'e2e'];
const lines = new Map();
/** When each step (each UI test file) started and ended, for the timings of the summary line. */
const spans = new Map();
const started = Date.now();

/**
 * Longest any one step may take: a suite that hangs (a handle left open, a wedged process) fails here
 * with a clear line instead of holding the run until CI's own limit ends it without a summary.
 */
const stepLimitMs = { e2e: 40 * 60_000, unit: 20 * 60_000 };
const defaultStepLimitMs = 15 * 60_000;

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
  const limit = stepLimitMs[label] ?? defaultStepLimitMs;
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
/** mocha itself, without npx's start-up for each of the UI test files. */
const mocha = path.join(root, 'node_modules', '.bin', 'mocha');

/** Each UI test file's time in the last run, so the longest start first and the two lanes end together. */
const e2eTimesFile = path.join(root, '.vscode-test', 'e2e-times.json');
function readE2eTimes() {
  try {
    return JSON.parse(readFileSync(e2eTimesFile, 'utf8'));
  } catch {
    return {};
  }
}

/** The UI test files, longest (or not timed yet) first. */
function e2eQueue() {
  const dir = path.join(root, 'out', 'test', 'e2e');
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.e2e.js')).sort() : [];
  const times = readE2eTimes();
  const time = (f) => times[f] ?? Number.POSITIVE_INFINITY;
  return files.sort((a, b) => time(b) - time(a));
}

/** The UI suite's totals over its files; a file whose run crashes before it reports counts as one failure. */
const e2e = { passed: 0, failed: 0, skipped: 0, files: 0, failedFiles: [], times: {} };

async function e2eFile(file) {
  const name = path.basename(file, '.e2e.js');
  const label = `e2e-${name}`;
  const countsFile = path.join(countsDir, `${label}.json`);
  // The config names no files (.mocharc.e2e.json has no `spec`), so this runs `file` alone.
  const code = await run(label, mocha, ['--config', '.mocharc.e2e.json', '--reporter', reporter, path.join('out', 'test', 'e2e', file)], {
    logged: true,
    env: { VIGIL_COUNTS_FILE: countsFile, VIGIL_SUITE_NAME: 'e2e' },
  });
  let counts = { passed: 0, failed: 0, skipped: 0 };
  if (existsSync(countsFile)) counts = JSON.parse(readFileSync(countsFile, 'utf8'));
  if (code !== 0 && counts.failed === 0) counts.failed = 1;
  e2e.passed += counts.passed;
  e2e.failed += counts.failed;
  e2e.skipped += counts.skipped;
  e2e.files += 1;
  if (counts.failed > 0) e2e.failedFiles.push(name);
  const span = spans.get(label);
  e2e.times[file] = Math.round((span.to - span.from) / 1000);
}

/** One lane's share of the UI suite: files from the shared queue until it is empty. */
async function e2eLane(queue, packaged) {
  if (!(await packaged)) return;
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) await e2eFile(file);
}

// tsc emits even with type errors: a type error fails the run, but the suites still report.
// The bundle (esbuild, into dist/) is independent of tsc's output (out/), and so are lint and packaging.
const typechecked = check('typecheck', ...npx('tsc', '-p', 'tsconfig.json'));
const bundled = check('bundle', 'node', ['scripts/build.mjs'], { logged: true });
/** The UI test files (compiled by tsc) not taken by a lane yet. */
const queue = typechecked.then(async () => ((await bundled) && wanted('e2e') ? e2eQueue() : []));
let announcePackaged;
const packaged = new Promise((resolve) => (announcePackaged = resolve));
const laneOne = async () => {
  await typechecked;
  if ((await bundled) && wanted('unit')) await suite('unit', ...npx('mocha', '--config', '.mocharc.json', '--reporter', reporter));
  await e2eLane(await queue, packaged);
};
// The extension host runs the packaged build in dist/ and the suite tsc compiled into out/.
const laneTwo = async () => {
  try {
    const built = await bundled;
    if (wanted('lint')) await check('lint', ...npx('eslint', '.', '--max-warnings', '0'), { logged: true });
    const needed = built && (wanted('suite') || wanted('e2e'));
    announcePackaged(needed && (await check('package', 'npm', ['run', '--silent', 'package'], { logged: true })));
  } finally {
    announcePackaged(false);
  }
  await typechecked;
  if (wanted('suite') && (await packaged)) await suite('extension-host', 'node', ['out/test/harness/runSuite.js'], { logged: true });
  await e2eLane(await queue, packaged);
};
await Promise.all([laneOne(), laneTwo()]);
if (e2e.files > 0) {
  totals.passed += e2e.passed;
  totals.failed += e2e.failed;
  totals.skipped += e2e.skipped;
  const failedIn = e2e.failedFiles.length > 0 ? ` (failed in ${e2e.failedFiles.join(', ')})` : '';
  lines.set('e2e', `e2e: ${e2e.passed} passed, ${e2e.failed} failed, ${e2e.skipped} skipped in ${e2e.files} files${failedIn}`);
  writeFileSync(e2eTimesFile, JSON.stringify({ ...readE2eTimes(), ...e2e.times }, null, 2));
}

/** Wall time of each step, the UI suite from its first file's start to its last file's end. */
function timings() {
  const parts = [];
  for (const label of order) {
    const own = [...spans].filter(([l]) => l === label || (label === 'e2e' && l.startsWith('e2e-'))).map(([, s]) => s);
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
