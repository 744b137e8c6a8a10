// Builds the bundles: extension host (CJS, vscode external) and its schemas, services, built-in agent and task server (Node), webview (browser ESM).
import * as esbuild from 'esbuild';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import agentBuild from './agentBuild.cjs';
import webviewBuild from './webviewBuild.cjs';
import extensionBuild from './extensionBuild.cjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  sourcemap: true,
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

const builds = [
  // The extension host's bundle, and the schemas it loads on first use (see extensionBuild.cjs).
  { ...common, ...extensionBuild.extensionBuildOptions('dist/extension.js') },
  { ...common, ...extensionBuild.schemasBuildOptions('dist/schemas.js') },
  // The services (domain core, ACP client, schemas) load on first use, off the activation path.
  { ...common, entryPoints: ['src/extension/services.ts'], outfile: 'dist/services.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  // The built-in agent: ES modules split into chunks, so the model SDKs and the MCP client load on
  // first use instead of being parsed at every spawn (dist/agent.js is the loader, see agentBuild.cjs).
  { ...common, ...agentBuild.agentBuildOptions('dist/agent') },
  // Vigil's MCP task server, started by third-party agents from the mcpServers Vigil passes them.
  { ...common, entryPoints: ['src/taskServer/main.ts'], outfile: 'dist/taskServer.js', platform: 'node', format: 'cjs', target: 'node20' },
  // The Node task wrapper (Windows, or no /usr/bin/perl): a program of its own beside taskWrapper.pl.
  { ...common, entryPoints: ['src/extension/core/tasks/taskWrapper.ts'], outfile: 'dist/taskWrapper.js', platform: 'node', format: 'cjs', target: 'node20' },
  // The agent relay: runs each session's agent so a turn outlives its window (src/extension/core/relay).
  { ...common, entryPoints: ['src/extension/core/relay/agentRelay.ts'], outfile: 'dist/agentRelay.js', platform: 'node', format: 'cjs', target: 'node20' },
  { ...common, ...webviewBuild.webviewBuildOptions('dist/webview.js') },
];

function copyAssets() {
  mkdirSync('dist/codicons', { recursive: true });
  cpSync('node_modules/@vscode/codicons/dist/codicon.css', 'dist/codicons/codicon.css');
  cpSync('node_modules/@vscode/codicons/dist/codicon.ttf', 'dist/codicons/codicon.ttf');
  // The task wrapper where there is a /usr/bin/perl (src/extension/core/tasks/wrapperFiles.ts).
  cpSync('src/extension/core/tasks/taskWrapper.pl', 'dist/taskWrapper.pl');
}

copyAssets();
// Chunks from an earlier build would otherwise pile up (their names carry a content hash).
rmSync('dist/agent', { recursive: true, force: true });
rmSync('dist/agent.js.map', { force: true });
writeFileSync('dist/agent.js', agentBuild.agentLoaderSource);
if (watch) {
  for (const options of builds) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  }
  console.log('esbuild: watching src/ for changes');
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
