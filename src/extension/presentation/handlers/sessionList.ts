// The header's Open…: a session the view names is shown in the side bar (from a tab too: what the person picks is
// the side bar's business); without one, the person picks (Vigil: Open Session…).

import type { IntentHandlers } from '../viewHandlers';

export interface SessionListPorts {
  /** Shows the session in the side bar; without one, lets the person pick (sessionController.ts). */
  openOrPick(sessionId: string | undefined): Promise<void>;
}

/** `ports` is read when a message arrives. */
export function sessionListHandlers(ports: () => SessionListPorts) {
  return {
    openSession: (m) => ports().openOrPick(m.sessionId),
  } satisfies Partial<IntentHandlers>;
}
