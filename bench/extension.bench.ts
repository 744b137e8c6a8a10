// Extension figures: VSIX size and activation time measured inside a real extension host.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CodeServer, repoRoot } from '../test/harness/codeServer';
import { runInExtensionHost } from '../test/harness/extensionHostRun';
import { loadNote } from './support/cpuHogs';

interface Activation {
  activationMs: number;
  loadAndActivateMs: number;
}

async function activationOnce(): Promise<Activation> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'vigil-bench-'));
  const resultFile = path.join(tmp, 'activation.json');
  const server = await CodeServer.start({ workspace: path.join(repoRoot, 'sample'), name: 'bench', env: { VIGIL_BENCH_FILE: resultFile } });
  try {
    const code = await runInExtensionHost(server, { testsEntry: path.join(repoRoot, 'out', 'bench', 'support', 'activationProbe.js') });
    if (code !== 0) throw new Error(`activation probe exited with ${code}`);
    return JSON.parse(readFileSync(resultFile, 'utf8')) as Activation;
  } finally {
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const packaged = spawnSync('npm', ['run', '--silent', 'package'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  if (packaged.status !== 0) throw new Error('npm run package failed');
  console.log(`vsix size: ${statSync(path.join(repoRoot, 'dist', 'vigil.vsix')).size} bytes (${loadNote()})`);
  const samples: Activation[] = [];
  for (let i = 0; i < 3; i += 1) samples.push(await activationOnce());
  const median = (pick: (a: Activation) => number) => samples.map(pick).sort((a, b) => a - b)[1];
  console.log(`extension activation, activate() (median of 3, in the extension host): ${median((a) => a.activationMs).toFixed(1)} ms (${loadNote()})`);
  console.log(`extension activation, bundle load + activate() (median of 3): ${median((a) => a.loadAndActivateMs).toFixed(1)} ms (${loadNote()})`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
