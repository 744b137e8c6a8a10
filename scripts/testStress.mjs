// Runs the unit and extension-host layers N times with a CPU hog on every core, and names each flaky test
// with its failure count. A test that is red once in N loaded runs is flaky; CI is a busy 2-core machine.
//
//   npm run test:stress [-- --runs N] [-- --layers unit,suite]
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const LAYERS = {
  unit: { label: 'unit', command: path.join(root, 'node_modules', '.bin', 'mocha'), args: ['--config', '.mocharc.json', '--reporter', path.join(root, 'out', 'test', 'harness', 'countingReporter.js')] },
  suite: { label: 'extension-host', command: process.execPath, args: ['out/test/harness/runSuite.js'] },
};

function usage(message) {
  console.error(`${message}\nUsage: node scripts/testStress.mjs [--runs N] [--layers unit,suite]`);
  process.exit(2);
}

function parseArgs(argv) {
  const options = { runs: 5, layers: ['unit', 'suite'] };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split('=', 2);
    const value = () => inline ?? argv[++i] ?? usage(`${flag} needs a value`);
    if (flag === '--runs') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1 || n > 1000) usage('--runs takes a whole number from 1 to 1000');
      options.runs = n;
    } else if (flag === '--layers') {
      const layers = value().split(',').map((s) => s.trim()).filter(Boolean);
      const unknown = layers.filter((l) => !(l in LAYERS));
      if (layers.length === 0 || unknown.length > 0) usage(`unknown layer(s): ${unknown.join(', ') || '(none given)'}; known: ${Object.keys(LAYERS).join(', ')}`);
      options.layers = [...new Set(layers)];
    } else {
      usage(`unknown option ${argv[i]}`);
    }
  }
  return options;
}

/** One busy loop per core. Each hog also ends by itself if this script dies without stopping it. */
function startHogs() {
  const hog = `const parent = process.ppid; for (;;) { for (let i = 0; i < 5e7; i += 1); if (process.ppid !== parent) process.exit(0); }`;
  return os.cpus().map(() => spawn(process.execPath, ['-e', hog], { stdio: 'ignore' }));
}

function stopHogs(hogs) {
  for (const h of hogs) if (h.exitCode === null && h.signalCode === null) h.kill('SIGKILL');
}

/** Suites still running when the stress run is interrupted; stopped by process group. */
const running = new Set();

function stopSuites() {
  for (const child of running) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}

function build() {
  for (const [command, args] of [
    [path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json']],
    [process.execPath, ['scripts/build.mjs']],
  ]) {
    const r = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`build step failed: ${command} ${args.join(' ')}`);
      process.exit(1);
    }
  }
}

/** Runs one layer once; its output goes to a log file, its counts and failed titles come back. */
function runLayer(layer, run, dir) {
  const { label, command, args } = LAYERS[layer];
  const countsFile = path.join(dir, `run-${run}-${layer}.json`);
  const logFile = path.join(dir, `run-${run}-${layer}.log`);
  rmSync(countsFile, { force: true });
  return new Promise((resolve) => {
    const started = Date.now();
    const log = openSync(logFile, 'w');
    // Its own process group, so an interrupted stress run stops the suite (and what it started) too.
    const child = spawn(command, args, {
      cwd: root,
      detached: true,
      stdio: ['ignore', log, log],
      env: { ...process.env, VIGIL_COUNTS_FILE: countsFile, VIGIL_SUITE_NAME: label },
    });
    closeSync(log);
    running.add(child);
    child.on('exit', (code, signal) => {
      running.delete(child);
      let counts;
      if (existsSync(countsFile)) counts = JSON.parse(readFileSync(countsFile, 'utf8'));
      const failures = counts?.failures ?? [];
      // A crash before the suite reported counts as one failure, named by the layer.
      if (code !== 0 && (!counts || counts.failed === 0)) failures.push(`${label}: the run ended with ${signal ?? `exit ${code}`} before reporting a failed test (see ${path.relative(root, logFile)})`);
      resolve({ layer, label, code, counts, failures, seconds: Math.round((Date.now() - started) / 1000), logFile });
    });
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const dir = path.join(root, '.vscode-test', 'stress');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  build();

  const hogs = startHogs();
  const stop = () => stopHogs(hogs);
  process.on('exit', stop);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      stop();
      stopSuites();
      process.exit(130);
    });
  }
  console.log(`test:stress: ${options.runs} run(s) of ${options.layers.join(' + ')} with ${hogs.length} CPU hog(s) (one per core); logs in ${path.relative(root, dir)}/`);

  const flaky = new Map();
  const results = [];
  try {
    for (let run = 1; run <= options.runs; run += 1) {
      let green = true;
      for (const layer of options.layers) {
        const r = await runLayer(layer, run, dir);
        const c = r.counts ?? { passed: 0, failed: 0, skipped: 0 };
        console.log(`run ${run}/${options.runs} ${r.label}: ${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''} (${r.seconds} s)`);
        for (const title of r.failures) {
          console.log(`  ✗ ${title}`);
          const key = `${r.label}: ${title}`;
          flaky.set(key, (flaky.get(key) ?? 0) + 1);
        }
        if (r.failures.length > 0) green = false;
      }
      results.push(green);
    }
  } finally {
    stop();
  }

  let streak = 0;
  let longest = 0;
  for (const green of results) {
    streak = green ? streak + 1 : 0;
    longest = Math.max(longest, streak);
  }
  const passed = results.filter(Boolean).length;
  console.log('\n=== test:stress summary');
  if (flaky.size === 0) console.log('no test failed');
  else {
    console.log('failed tests (failures / runs):');
    for (const [title, n] of [...flaky].sort((a, b) => b[1] - a[1])) console.log(`  ${n}/${options.runs}  ${title}`);
  }
  console.log(`${passed} of ${options.runs} stressed runs passed; ${streak} passed in a row at the end (longest streak ${longest})`);
  process.exit(passed === options.runs ? 0 : 1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
