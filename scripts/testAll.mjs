// The project's test command: build, lint, unit, extension-host and UI suites; ends with one line
// `N passed, N failed[, N skipped]` carrying the real totals of all suites.
import { spawnSync } from 'node:child_process';
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

function run(label, command, args, env = {}) {
  console.log(`\n=== ${label}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

/** A step that is one check (build, lint, package): counts as one test. */
function check(label, command, args) {
  const code = run(label, command, args);
  if (code === 0) totals.passed += 1;
  else totals.failed += 1;
  lines.push(`${label}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`}`);
  return code === 0;
}

/** A suite that reports its own counts; a crash before it reports counts as one failure. */
function suite(name, command, args) {
  const countsFile = path.join(countsDir, `${name}.json`);
  const code = run(name, command, args, { VIGIL_COUNTS_FILE: countsFile, VIGIL_SUITE_NAME: name });
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
check('typecheck', ...npx('tsc', '-p', 'tsconfig.json'));
const built = check('bundle', 'node', ['scripts/build.mjs']);
if (wanted('lint')) check('lint', ...npx('eslint', '.', '--max-warnings', '0'));
if (built) {
  if (wanted('unit')) suite('unit', ...npx('mocha', '--config', '.mocharc.json', '--reporter', reporter));
  const packaged = (wanted('suite') || wanted('e2e')) && check('package', 'npm', ['run', '--silent', 'package']);
  if (wanted('suite')) suite('extension-host', 'node', ['out/test/harness/runSuite.js']);
  if (wanted('e2e') && packaged) suite('e2e', ...npx('mocha', '--config', '.mocharc.e2e.json', '--reporter', reporter));
}

console.log(`\n=== summary (${Math.round((Date.now() - started) / 1000)} s)`);
for (const line of lines) console.log(line);
const skipped = totals.skipped > 0 ? `, ${totals.skipped} skipped` : '';
console.log(`${totals.passed} passed, ${totals.failed} failed${skipped}`);
process.exit(totals.failed > 0 ? 1 : 0);
