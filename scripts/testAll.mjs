// The project's test command: build, lint, unit, extension-host and UI suites; ends with one line
// `N passed, N failed[, N skipped]` carrying the real totals of all suites.
//
// Steps that do not depend on each other run side by side, two at a time at most (CI has 2 cores):
//   typecheck ‖ bundle, then the unit suite ‖ (lint → package → extension-host suite), then the UI suite.
// The unit suite never reads dist/ (it bundles the agent into out/agent-under-test/), so packaging may
// rewrite dist/ meanwhile. A step that runs beside the one shown live writes to a log file under
// .vscode-test/logs/ and its output is printed in one block when it ends.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
// tsc emits even with type errors: a type error fails the run, but the suites still report.
// The bundle (esbuild, into dist/) is independent of tsc's output (out/).
const [, built] = await Promise.all([
  check('typecheck', ...npx('tsc', '-p', 'tsconfig.json')),
  check('bundle', 'node', ['scripts/build.mjs'], { logged: true }),
]);
let packaged = false;
// The unit suite (mostly waiting on real processes) beside the checks and the extension-host suite; the
// extension host runs the packaged build in dist/, so it comes after packaging.
const alongsideUnit = async () => {
  if (wanted('lint')) await check('lint', ...npx('eslint', '.', '--max-warnings', '0'), { logged: true });
  if (!built) return;
  packaged = (wanted('suite') || wanted('e2e')) && (await check('package', 'npm', ['run', '--silent', 'package'], { logged: true }));
  if (wanted('suite')) await suite('extension-host', 'node', ['out/test/harness/runSuite.js'], { logged: true });
};
await Promise.all([
  alongsideUnit(),
  built && wanted('unit') ? suite('unit', ...npx('mocha', '--config', '.mocharc.json', '--reporter', reporter)) : undefined,
]);
if (wanted('e2e') && packaged) await suite('e2e', ...npx('mocha', '--config', '.mocharc.e2e.json', '--reporter', reporter));

console.log(`\n=== summary (${seconds(started)} s)`);
for (const label of order) if (lines.has(label)) console.log(lines.get(label));
const skipped = totals.skipped > 0 ? `, ${totals.skipped} skipped` : '';
console.log(`${totals.passed} passed, ${totals.failed} failed${skipped}`);
process.exit(totals.failed > 0 ? 1 : 0);
