// Stop for a turn that another window of the same storage root runs: asked through the store, taken over
// by this window when that one does not answer (core/crosswindow).

import * as vscode from 'vscode';
import type { Logger } from '../core/ports/logger';
import { summaries } from '../../shared/turnWords';
import type { VigilServices } from '../services';

/**
 * Stop for a turn another window runs: that window is asked through the store; if it does not
 * acknowledge within the bound (frozen, or its host hangs), this window takes the turn over.
 */
export async function stopTurnElsewhere(services: VigilServices, sessionId: string, logger: Logger): Promise<void> {
  if (!(await services.crossWindow.control.remoteHolder(sessionId))) return;
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Vigil: asking the window that runs this turn to stop…') },
    () => services.crossWindow.control.abort(sessionId, summaries.stoppedFromAnotherWindow),
  );
  logger.info(`remote abort of session ${sessionId}: ${JSON.stringify(result)}`);
  if (result.kind === 'takenOver') {
    void vscode.window.showWarningMessage(
      result.killedAgent
        ? vscode.l10n.t('Vigil: the window running this turn did not answer, so this window stopped the turn and its agent. Resume to continue.')
        : vscode.l10n.t('Vigil: the window running this turn did not answer, so this window stopped the turn. Resume to continue.'),
    );
  }
  await services.crossWindow.kick();
}
