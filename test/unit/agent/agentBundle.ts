// Tests run the agent as it ships: src/agent/main.ts bundled with the options of scripts/build.mjs
// (scripts/agentBuild.cjs), into out/agent-under-test/ (not dist/, which other builds may be rewriting).

import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const repoRoot = path.resolve(__dirname, '../../../..');
const outRoot = path.join(repoRoot, 'out', 'agent-under-test');
export const agentBundlePath = path.join(outRoot, 'agent.js');
let building: Promise<string> | undefined;

interface AgentBuild {
  agentBuildOptions(outdir: string): esbuild.BuildOptions;
  agentLoaderSource: string;
}

/**
 * Builds the bundle once per process; under the project's test command, which runs parts of the unit suite side by
 * side, once for all of them before they start (VIGIL_AGENT_BUNDLE_BUILT): a part rebuilding it would pull the
 * files from under the agents another part runs.
 */
export function ensureAgentBundle(): Promise<string> {
  if (process.env.VIGIL_AGENT_BUNDLE_BUILT === '1' && existsSync(agentBundlePath)) return Promise.resolve(agentBundlePath);
  building ??= (async () => {
    const { agentBuildOptions, agentLoaderSource } = createRequire(__filename)(path.join(repoRoot, 'scripts', 'agentBuild.cjs')) as AgentBuild;
    const chunks = path.join(outRoot, 'agent');
    rmSync(chunks, { recursive: true, force: true });
    await esbuild.build({ ...agentBuildOptions(chunks), absWorkingDir: repoRoot, sourcemap: true, logLevel: 'warning' });
    writeFileSync(agentBundlePath, agentLoaderSource);
    return agentBundlePath;
  })();
  return building;
}

export { repoRoot };
