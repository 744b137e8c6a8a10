// Runs a `run()` entry inside the workbench's real extension host (the `payload` parameter, as
// @vscode/test-electron's contract) with this repository as the extension under development.

import * as path from 'node:path';
import { repoRoot, type CodeServer } from './codeServer';
import { type LaunchedBrowser, Workbench } from './workbench';

export interface ExtensionHostRunOptions {
  /** Compiled entry exporting `run()`, e.g. out/test/suite/index.js. */
  testsEntry: string;
  onLog?: (type: string, args: unknown[]) => void;
  timeoutMs?: number;
  /** A browser launched while the server started (`Workbench.launch`). */
  browser?: Promise<LaunchedBrowser>;
}

/** Resolves with the automation exit code (124 on timeout); fails if a request left the machine. */
export async function runInExtensionHost(server: CodeServer, options: ExtensionHostRunOptions): Promise<number> {
  const remote = (p: string) => `vscode-remote://127.0.0.1:${server.port}${p}`;
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', remote(repoRoot)],
    ['extensionTestsPath', remote(path.resolve(options.testsEntry))],
  ]);
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  const workbench = await Workbench.open(server, { query: { payload }, browser: options.browser, onAutomationExit: (code) => resolveExit(code), onAutomationLog: options.onLog });
  try {
    const timeoutMs = options.timeoutMs ?? 300_000;
    const timeout = new Promise<number>((resolve) => setTimeout(() => resolve(124), timeoutMs).unref());
    const code = await Promise.race([exited, timeout]);
    if (code === 124) console.error(`the extension-host run timed out after ${timeoutMs / 1000} s`);
    workbench.assertStayedOnMachine();
    return code;
  } finally {
    await workbench.close();
  }
}
