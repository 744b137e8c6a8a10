// Shared set-up of a UI test file: a fresh workbench with the packaged VSIX installed.

import * as path from 'node:path';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { CodeServer, repoRoot } from './codeServer';
import { Workbench } from './workbench';
import { answerWorkspaceTrust, type TrustAnswer } from './workspaceTrust';

export interface E2eOptions {
  name: string;
  settings?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Start with workspace trust enabled and answer its prompt as a person would, before anything else. */
  workspaceTrust?: TrustAnswer;
  /** Adds to (or replaces parts of) the copied sample workspace before the server starts, e.g. a .vscode/settings.json. */
  prepareWorkspace?(workspace: string): void;
}

export interface E2eSession {
  server: CodeServer;
  workbench: Workbench;
  workspace: string;
  close(): Promise<void>;
}

/** The packaged extension; VIGIL_E2E_VSIX may name a copy, so a rebuild of dist/ meanwhile changes nothing under test. */
export const vsixPath = process.env.VIGIL_E2E_VSIX ?? path.join(repoRoot, 'dist', 'vigil.vsix');

/** Sessions opened and not closed yet: a test file that fails before its own `after` still gets them closed. */
const openSessions = new Set<E2eSession>();

/**
 * Closes what a test file left open (a failed `before` that never handed its session to an `after`), so the
 * workbench, code-server and their agents cannot keep mocha, and the run, alive.
 */
export async function closeLeftoverSessions(): Promise<number> {
  const left = [...openSessions];
  for (const session of left) await session.close().catch(() => undefined);
  return left.length;
}

export async function openE2eSession(options: E2eOptions): Promise<E2eSession> {
  if (!existsSync(vsixPath)) throw new Error(`${vsixPath} is missing: run "npm run package" first`);
  const workspace = mkdtempSync(path.join(repoRoot, '.vscode-test', `ws-${options.name}-`));
  cpSync(path.join(repoRoot, 'sample'), workspace, { recursive: true });
  options.prepareWorkspace?.(workspace);
  // The browser launches while code-server starts: neither needs the other until the page loads.
  const browser = Workbench.launch(path.join(repoRoot, '.vscode-test', 'runs'));
  const server = await CodeServer.start({
    workspace,
    vsix: vsixPath,
    name: options.name,
    settings: { 'vigil.model.provider': 'demo', ...options.settings },
    env: options.env,
    workspaceTrust: options.workspaceTrust !== undefined,
  }).catch(async (error: unknown) => {
    await Workbench.discard(browser);
    throw error;
  });
  let workbench: Workbench;
  try {
    workbench = await Workbench.open(server, { browser });
    if (options.workspaceTrust) await answerWorkspaceTrust(workbench.page, options.workspaceTrust);
    // The status item appears once the extension host has loaded and activated Vigil.
    await workbench.statusItem().waitFor({ timeout: 90_000 });
  } catch (error) {
    await server.stop();
    throw error;
  }
  const session: E2eSession = {
    server,
    workbench,
    workspace,
    async close() {
      openSessions.delete(session);
      try {
        await workbench.close();
      } finally {
        await server.stop();
      }
    },
  };
  openSessions.add(session);
  return session;
}
