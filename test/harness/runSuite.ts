// Starts a workbench with this repository as the extension under development and runs
// test/suite inside its extension host; the exit code comes from `codeAutomationExit`.

import * as path from 'node:path';
import { format } from 'node:util';
import { cpSync, mkdtempSync } from 'node:fs';
import { CodeServer, repoRoot } from './codeServer';
import { runInExtensionHost } from './extensionHostRun';
import { Workbench } from './workbench';

// The workbench's own chatter about sockets and the (disabled) gallery, not the suite's output.
const workbenchNoise = /^(Ignoring fetching|Creating a socket|Resolved connection token|\[Service Worker\]|Updating additional builtin|ChatSessionStore|Creation of workbench contribution|Started local extension host|Extension host)/;

async function main(): Promise<number> {
  const countsFile = process.env.VIGIL_COUNTS_FILE;
  const workspace = mkdtempSync(path.join(repoRoot, '.vscode-test', 'suite-ws-'));
  cpSync(path.join(repoRoot, 'sample'), workspace, { recursive: true });
  // The browser launches while code-server starts: neither needs the other until the page loads.
  const browser = Workbench.launch(path.join(repoRoot, '.vscode-test', 'runs'));
  const server = await CodeServer.start({
    workspace,
    name: 'suite',
    env: { ...(countsFile ? { VIGIL_COUNTS_FILE: countsFile } : {}), VIGIL_TEST_MODE: '1' },
    settings: { 'vigil.model.provider': 'demo' },
  }).catch(async (error: unknown) => {
    await Workbench.discard(browser);
    throw error;
  });
  try {
    return await runInExtensionHost(server, {
      browser,
      testsEntry: path.join(repoRoot, 'out', 'test', 'suite', 'index.js'),
      onLog: (_type, args) => {
        const line = format(...args);
        if (!workbenchNoise.test(line)) process.stdout.write(`${line}\n`);
      },
    });
  } finally {
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
