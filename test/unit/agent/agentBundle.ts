// Tests run the agent as it ships: src/agent/main.ts bundled with the options of scripts/build.mjs
// (scripts/agentBuild.cjs), into out/agent-under-test/ (not dist/, which other builds may be rewriting).

import { rmSync, writeFileSync } from 'node:fs';
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

export function ensureAgentBundle(): Promise<string> {
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
