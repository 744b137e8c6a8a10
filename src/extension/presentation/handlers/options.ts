// The header's agent options (vscode/agentOptionPicks.ts, through its command) and a notice's remedy buttons (Open
// Log, Open Settings, Sign in…: vscode/agentSignIn.ts).

import type { NoticeAction } from '../../../shared/sessionView';
import type { IntentHandlers } from '../viewHandlers';

export interface OptionPorts {
  command(id: 'vigil.agentOptions', target: { sessionId: string | undefined; configId: string | undefined }): Promise<unknown>;
  remedy(action: NoticeAction, sessionId: string | undefined): Promise<void>;
}

/** `ports` is read when a message arrives. */
export function optionHandlers(ports: () => OptionPorts) {
  return {
    agentOption: async (m, view) => {
      await ports().command('vigil.agentOptions', { sessionId: view.aim(m.sessionId), configId: m.configId });
    },
    noticeAction: (m, view) => ports().remedy(m.action, view.aim(m.sessionId)),
  } satisfies Partial<IntentHandlers>;
}
