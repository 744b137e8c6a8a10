// TurnRedo (presentation/turnRedo.ts) wired to the workbench: the session's model from the controller, the restore
// question as a modal with both answers spelled out, and the restore itself through Restore Checkpoint (which
// shows the files and asks before overwriting any changed since).

import * as vscode from 'vscode';
import type { PromptMention } from '../../shared/promptContext';
import type { RedoHow } from '../../shared/lastExchange';
import type { SessionSnapshot } from '../../shared/sessionView';
import { TurnRedo, type RestoreChoice } from '../presentation/turnRedo';
import type { VigilServices } from '../services';

export interface TurnRedoHost {
  snapshotOf(sessionId: string): SessionSnapshot;
  readonly currentSessionId: string | undefined;
}

export interface TurnRedoPortDeps {
  services(): Promise<VigilServices>;
  workFolder(sessionId: string): Promise<string | undefined>;
}

const what: Record<RedoHow, string> = { edit: 'sending your edited message', retry: 'retrying', regenerate: 'regenerating the answer' };

export function turnRedoFor(
  host: TurnRedoHost,
  d: TurnRedoPortDeps,
  send: (sessionId: string, text: string, mentions: PromptMention[], redo: { how: RedoHow; replaced: boolean }) => Promise<void>,
): TurnRedo {
  return new TurnRedo({
    snapshotOf: (sessionId) => host.snapshotOf(sessionId),
    shownSessionId: () => host.currentSessionId,
    hasActiveTurn: async (sessionId) => (await d.services()).supervisor.hasActiveTurn(sessionId),
    workFolder: (sessionId) => d.workFolder(sessionId),
    askRestore: (files, how) => askRestore(files, how),
    restore: async (sessionId, turnId) => (await vscode.commands.executeCommand<boolean>('vigil.restoreCheckpoint', { sessionId, turnId })) === true,
    send,
  });
}

async function askRestore(files: number, how: RedoHow): Promise<RestoreChoice | undefined> {
  const restore = vscode.l10n.t('Restore Files, Then Send');
  const keep = vscode.l10n.t('Send Without Restoring');
  const choice = await vscode.window.showWarningMessage(
    files === 1
      ? vscode.l10n.t('The turn you are replacing changed 1 file. Restore it to before that turn before {0}?', what[how])
      : vscode.l10n.t('The turn you are replacing changed {0} files. Restore them to before that turn before {1}?', files, what[how]),
    { modal: true, detail: vscode.l10n.t('Restoring shows the files and what it does to each before it writes. Without restoring, the agent starts from the files as they are now.') },
    restore,
    keep,
  );
  return choice === restore ? 'restore' : choice === keep ? 'keep' : undefined;
}
