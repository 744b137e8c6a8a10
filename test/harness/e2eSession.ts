// Shared set-up of a UI test file: a fresh workbench with the packaged VSIX installed.

import * as path from 'node:path';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { CodeServer, repoRoot } from './codeServer';
import { Workbench } from './workbench';

export interface E2eOptions {
  name: string;
  settings?: Record<string, unknown>;
  env?: Record<string, string>;
}

export interface E2eSession {
  server: CodeServer;
  workbench: Workbench;
  workspace: string;
  close(): Promise<void>;
}

/** The packaged extension; VIGIL_E2E_VSIX may name a copy, so a rebuild of dist/ meanwhile changes nothing under test. */
export const vsixPath = process.env.VIGIL_E2E_VSIX ?? path.join(repoRoot, 'dist', 'vigil.vsix');

export async function openE2eSession(options: E2eOptions): Promise<E2eSession> {
  if (!existsSync(vsixPath)) throw new Error(`${vsixPath} is missing: run "npm run package" first`);
  const workspace = mkdtempSync(path.join(repoRoot, '.vscode-test', `ws-${options.name}-`));
  cpSync(path.join(repoRoot, 'sample'), workspace, { recursive: true });
  const server = await CodeServer.start({
    workspace,
    vsix: vsixPath,
    name: options.name,
    settings: { 'vigil.model.provider': 'demo', ...options.settings },
    env: options.env,
  });
  let workbench: Workbench;
  try {
    workbench = await Workbench.open(server);
    // The status item appears once the extension host has loaded and activated Vigil.
    await workbench.statusItem().waitFor({ timeout: 90_000 });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    server,
    workbench,
    workspace,
    async close() {
      await workbench.close();
      await server.stop();
    },
  };
}
