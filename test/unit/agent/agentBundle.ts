// Tests run the agent as it ships: src/agent/main.ts bundled with the same esbuild options as
// scripts/build.mjs, into out/agent-under-test/ (not dist/, which other builds may be rewriting).

import * as path from 'node:path';
import * as esbuild from 'esbuild';

const repoRoot = path.resolve(__dirname, '../../../..');
export const agentBundlePath = path.join(repoRoot, 'out', 'agent-under-test', 'agent.js');
let building: Promise<string> | undefined;

export function ensureAgentBundle(): Promise<string> {
  building ??= esbuild
    .build({
      entryPoints: [path.join(repoRoot, 'src/agent/main.ts')],
      outfile: agentBundlePath,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      sourcemap: true,
      logLevel: 'warning',
    })
    .then(() => agentBundlePath);
  return building;
}

export { repoRoot };
