// The project's test command: build, lint, unit, extension-host and UI suites; ends with one line
// `N passed, N failed[, N skipped]` carrying the real totals of all suites.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const countsDir = path.join(root, '.vscode-test', 'counts');
rmSync(countsDir, { recursive: true, force: true });
mkdirSync(countsDir, { recursive: true });
const only = process.argv.slice(2);
const wanted = (name) => only.length === 0 || only.includes(name);
const reporter = path.join(root, 'out', 'test', 'harness', 'countingReporter.js');
const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];
const started = Date.now();

/**
 * Longest any one step may take: a suite that hangs (a handle left open, a wedged process) fails here
 * with a clear line instead of holding the run until CI's own limit ends it without a summary.
 */
const stepLimitMs = { e2e: 40 * 60_000, unit: 20 * 60_000 };
const defaultStepLimitMs = 15 * 60_000;

let running;
// The steps run in groups of their own, outside the terminal's: pass on an interrupt.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (running) running.kill();
    process.exit(130);
  });
}

/** Runs one step in a process group of its own, so a step past its limit is stopped with everything it started. */
function run(label, command, args, env = {}) {
  console.log(`\n=== ${label}: ${command} ${args.join(' ')}`);
  const limit = stepLimitMs[label] ?? defaultStepLimitMs;
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env }, detached: true });
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    };
    running = { kill: killGroup };
    const timer = setTimeout(() => {
      console.log(`\n=== ${label}: stopped after ${limit / 60_000} min without finishing`);
      killGroup();
    }, limit);
    child.on('error', (error) => {
      clearTimeout(timer);
      console.log(`${label}: could not start: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      running = undefined;
      // Whatever the step left behind in its group would hold the run's output open.
      killGroup();
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** A step that is one check (build, lint, package): counts as one test. */
async function check(label, command, args) {
  const code = await run(label, command, args);
  if (code === 0) totals.passed += 1;
  else totals.failed += 1;
  lines.push(`${label}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`}`);
  return code === 0;
}

/** A suite that reports its own counts; a crash before it reports counts as one failure. */
async function suite(name, command, args) {
  const countsFile = path.join(countsDir, `${name}.json`);
  const code = await run(name, command, args, { VIGIL_COUNTS_FILE: countsFile, VIGIL_SUITE_NAME: name });
  let counts = { passed: 0, failed: 0, skipped: 0 };
  if (existsSync(countsFile)) counts = JSON.parse(readFileSync(countsFile, 'utf8'));
  if (code !== 0 && counts.failed === 0) counts.failed = 1;
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
  lines.push(`${name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${code !== 0 ? ` (exit ${code})` : ''}`);
}

const npx = (...args) => ['npx', args];
// tsc emits even with type errors: a type error fails the run, but the suites still report.
await check('typecheck', ...npx('tsc', '-p', 'tsconfig.json'));
const built = await check('bundle', 'node', ['scripts/build.mjs']);
if (wanted('lint')) await check('lint', ...npx('eslint', '.', '--max-warnings', '0'));
if (built) {
  if (wanted('unit')) await suite('unit', ...npx('mocha', '--config', '.mocharc.json', '--reporter', reporter));
  const packaged = (wanted('suite') || wanted('e2e')) && (await check('package', 'npm', ['run', '--silent', 'package']));
  if (wanted('suite')) await suite('extension-host', 'node', ['out/test/harness/runSuite.js']);
  if (wanted('e2e') && packaged) await suite('e2e', ...npx('mocha', '--config', '.mocharc.e2e.json', '--reporter', reporter));
}

console.log(`\n=== summary (${Math.round((Date.now() - started) / 1000)} s)`);
for (const line of lines) console.log(line);
const skipped = totals.skipped > 0 ? `, ${totals.skipped} skipped` : '';
console.log(`${totals.passed} passed, ${totals.failed} failed${skipped}`);
process.exit(totals.failed > 0 ? 1 : 0);
