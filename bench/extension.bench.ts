// Extension figures: VSIX size and activation time measured inside a real extension host.
//
// The bar ("bundle load + activate") is VS Code's own activation figure, codeLoadingTime +
// activateCallTime: see support/activationProbe.ts for how each part is measured.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CodeServer, repoRoot } from '../test/harness/codeServer';
import { runInExtensionHost } from '../test/harness/extensionHostRun';
import type { ActivationSample } from './support/activationProbe';
import { loadNote } from './support/cpuHogs';

const runs = Number(process.env.VIGIL_BENCH_RUNS ?? 3);

async function activationOnce(): Promise<ActivationSample> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'vigil-bench-'));
  const resultFile = path.join(tmp, 'activation.json');
  const env = {
    VIGIL_BENCH_FILE: resultFile,
    VIGIL_BENCH_BUNDLE: path.join(repoRoot, 'dist', 'extension.js'),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${path.join(repoRoot, 'out', 'bench', 'support', 'bundleLoadHook.js')}`.trim(),
  };
  const server = await CodeServer.start({ workspace: path.join(repoRoot, 'sample'), name: 'bench', env });
  try {
    const code = await runInExtensionHost(server, { testsEntry: path.join(repoRoot, 'out', 'bench', 'support', 'activationProbe.js') });
    if (code !== 0) throw new Error(`activation probe exited with ${code}`);
    return JSON.parse(readFileSync(resultFile, 'utf8')) as ActivationSample;
  } finally {
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

function summary(samples: ActivationSample[], pick: (a: ActivationSample) => number): string {
  const sorted = samples.map(pick).sort((a, b) => a - b);
  const median = sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return `median ${median.toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`;
}

async function main(): Promise<void> {
  const packaged = spawnSync('npm', ['run', '--silent', 'package'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  if (packaged.status !== 0) throw new Error('npm run package failed');
  console.log(`vsix size: ${statSync(path.join(repoRoot, 'dist', 'vigil.vsix')).size} bytes (${loadNote()})`);
  const samples: ActivationSample[] = [];
  for (let i = 0; i < runs; i += 1) samples.push(await activationOnce());
  const note = `${runs} workbench starts, ${loadNote()}`;
  console.log(`extension activation (bundle load + activate(), as VS Code counts it): ${summary(samples, (a) => a.loadMs + a.activateMs)} (${note})`);
  console.log(`  bundle load (require of dist/extension.js: read, compile, evaluate): ${summary(samples, (a) => a.loadMs)}; of which evaluation: ${summary(samples, (a) => a.evaluateMs)}`);
  console.log(`  activate(): ${summary(samples, (a) => a.activateMs)}`);
  const vscodeLoad = samples.map((a) => a.vscodeLoadMs);
  console.log(`  the same load by VS Code's own marks (whole ms): ${vscodeLoad.every((v) => v !== undefined) ? vscodeLoad.join(', ') + ' ms' : 'not set by this VS Code'}; this probe: ${samples.map((a) => a.loadMs.toFixed(1)).join(', ')} ms`);
  console.log(`extension activation, bundle's first line → end of activate(), the host's context wait included: ${summary(samples, (a) => a.bannerToActivatedMs)} (${note})`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
