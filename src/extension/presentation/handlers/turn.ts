// Stop and Resume of the session's turn (sessionController.ts runs them, as it does the palette's commands).

import type { IntentHandlers } from '../viewHandlers';

export interface TurnPorts {
  stop(sessionId: string | undefined): Promise<void>;
  resume(sessionId: string | undefined): Promise<void>;
}

/** `ports` is read when a message arrives. */
export function turnHandlers(ports: () => TurnPorts) {
  return {
    stop: (m, view) => ports().stop(view.aim(m.sessionId)),
    resume: (m, view) => ports().resume(view.aim(m.sessionId)),
  } satisfies Partial<IntentHandlers>;
}
