// Another browser page on the same code-server: a second window with its own extension host, sharing
// the first one's globalStorage (sessions, leases, the cross-window mailbox). Closing its page leaves
// its extension host running, as code-server does for a disconnected window.

import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CodeServer } from './codeServer';
import { extensionId, Workbench } from './workbench';

/** Opens one more window on `server` and waits until Vigil is active in it. */
export async function openAnotherWindow(server: CodeServer): Promise<Workbench> {
  const workbench = await Workbench.open(server);
  try {
    await workbench.statusItem().waitFor({ timeout: 90_000 });
  } catch (error) {
    await workbench.close();
    throw error;
  }
  return workbench;
}

/** Vigil's globalStorage folder of a run (shared by every window of that server). */
export function globalStorageOf(server: CodeServer): string {
  return path.join(server.runDir, 'user-data', 'User', 'globalStorage', extensionId);
}

/** The process holding a session's turn lease (an extension host), from the lease file. */
export function leaseHolderPid(server: CodeServer, sessionId: string): number | undefined {
  try {
    const lease = JSON.parse(readFileSync(path.join(globalStorageOf(server), 'sessions', sessionId, 'lease.json'), 'utf8')) as { holder?: { pid?: number } | null };
    return lease.holder?.pid ?? undefined;
  } catch {
    return undefined;
  }
}
