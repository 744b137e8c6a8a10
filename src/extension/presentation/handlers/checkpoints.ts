// A turn's checkpoint in the view: Restore (all of the turn, or one file) and its changes in the diff editor. The
// work lives with the commands (vscode/checkpointCommands.ts, vscode/turnChangesReview.ts), which the palette runs too.

import type { IntentHandlers } from '../viewHandlers';

export interface CheckpointPorts {
  command(id: 'vigil.restoreCheckpoint' | 'vigil.reviewTurnChanges', target: { sessionId: string | undefined; turnId: string; path: string | undefined }): Promise<unknown>;
}

/** `ports` is read when a message arrives. */
export function checkpointHandlers(ports: () => CheckpointPorts) {
  return {
    restoreCheckpoint: async (m, view) => {
      await ports().command('vigil.restoreCheckpoint', { sessionId: view.aim(m.sessionId), turnId: m.turnId, path: m.path });
    },
    openTurnChanges: async (m, view) => {
      await ports().command('vigil.reviewTurnChanges', { sessionId: view.aim(m.sessionId), turnId: m.turnId, path: m.path });
    },
  } satisfies Partial<IntentHandlers>;
}
