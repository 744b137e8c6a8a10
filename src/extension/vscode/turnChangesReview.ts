// A turn's changes in VS Code's diff editor, from its checkpoint trees, for every agent whatever tool wrote: one file
// (**Open diff** on the turn's list) or the whole turn in one multi-file review (`vscode.changes`). The side before
// the turn is the stored file (read-only, bounded: checkpointCommands.ts); the side after is the file on disk while
// it is still a regular file as the turn left it (so it can be edited there), else the stored one.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';
import type { PlannedFile, RestorePlan } from '../core/checkpoints/restore';
import type { TurnCheckpoints } from '../core/checkpoints/turnCheckpoints';
import type { VigilServices } from '../services';
import { storedUri } from './checkpointCommands';

export interface TurnChangesReviewDeps {
  services(): Promise<VigilServices>;
  currentSessionId(): string | undefined;
  logger: Logger;
}

/** The multi-file review shows at most this many files (and says so). */
export const reviewedFiles = 200;
const REGULAR = new Set(['100644', '100755']);

export class TurnChangesReview {
  constructor(private readonly d: TurnChangesReviewDeps) {}

  /** `path`: that file of the turn; none: the whole turn. Says plainly why when it cannot show it. */
  async open(sessionId?: string, turnId?: string, file?: string): Promise<void> {
    const checkpoints = (await this.d.services()).checkpoints;
    if (!checkpoints) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: checkpoints are off (setting "vigil.checkpoints.enabled"), so no turn\'s changes can be shown.'));
      return;
    }
    const session = sessionId ?? this.d.currentSessionId();
    if (!session) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: open a session first; its turns\' changes are listed then.'));
      return;
    }
    const turn = turnId ?? (await pickTurn(checkpoints, session));
    if (!turn) return;
    let plan: RestorePlan;
    try {
      plan = await checkpoints.preview(session, turn, file === undefined ? undefined : [file]);
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Vigil: the changes of this turn cannot be shown: {0}', errorMessage(error)));
      return;
    }
    if (file !== undefined) return this.openOne(checkpoints, session, turn, plan, file);
    return this.openAll(plan);
  }

  private async openOne(checkpoints: TurnCheckpoints, session: string, turn: string, plan: RestorePlan, file: string): Promise<void> {
    const planned = plan.files.find((f) => f.path === file);
    if (!planned) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: {0} is not among the files this turn changed.', shown(file)));
      return;
    }
    const listed = (await checkpoints.recordOf(session, turn))?.changes?.files.find((f) => f.path === file);
    if (listed?.noDiff === 'tooLarge' && listed.added === undefined && planned.change === 'deleted') {
      // Left out of the after-checkpoint for its size: the turn did not delete it.
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: no diff of {0} can be shown: it grew larger than checkpoints keep (5 MB).', shown(file)));
      return;
    }
    const [, before, after] = sides(plan.folder, planned);
    this.d.logger.debug(`[checkpoints] diff of a file of turn ${turn} opened`);
    await vscode.commands.executeCommand('vscode.diff', before, after, `${shown(path.posix.basename(file))} (this turn's change)`, { preview: true });
  }

  private async openAll(plan: RestorePlan): Promise<void> {
    if (plan.files.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: this turn changed no file that its checkpoint holds.'));
      return;
    }
    const files = plan.files.slice(0, reviewedFiles);
    // The multi-file editor adds the count of files it shows to the title.
    const title = plan.files.length > files.length ? `Changes of the turn: the first ${files.length} of ${plan.files.length.toLocaleString('en-US')} files` : 'Changes of the turn';
    await vscode.commands.executeCommand('vscode.changes', title, files.map((f) => sides(plan.folder, f)));
    if (plan.files.length > files.length) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: this turn changed {0} files; the review shows the first {1}. Restore to before this turn still covers them all.', plan.files.length, files.length));
    }
  }
}

/** (the file, before the turn, after it): a side without the file is an empty document. */
function sides(folder: string, f: PlannedFile): [vscode.Uri, vscode.Uri, vscode.Uri] {
  const abs = path.join(folder, ...f.path.split('/'));
  const inside = !path.relative(folder, abs).startsWith('..') && !path.isAbsolute(path.relative(folder, abs));
  const label = inside ? vscode.Uri.file(abs) : storedUri(folder, f.path, f.afterId);
  const before = storedUri(folder, f.path, f.beforeId);
  const live = inside && !f.changedSince && REGULAR.has(f.afterMode);
  return [label, before, live ? vscode.Uri.file(abs) : storedUri(folder, f.path, f.afterId)];
}

async function pickTurn(checkpoints: TurnCheckpoints, sessionId: string): Promise<string | undefined> {
  const turns = await checkpoints.restorable(sessionId);
  if (turns.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: no turn of this session changed files with a checkpoint.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    turns.map((t) => ({ label: shown((t.prompt ?? 'A turn').replace(/\s+/g, ' ').slice(0, 80)), description: new Date(t.at).toLocaleString(), turnId: t.turnId })),
    { placeHolder: vscode.l10n.t('Review the changes of which turn?') },
  );
  return picked?.turnId;
}

/** A name from the folder as a title or message shows it: no control character, no `$(icon)`, bounded. */
export function shown(name: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '�').replace(/\$\(/g, '$\u200b(');
  return plain.length > 120 ? `${plain.slice(0, 60)}…${plain.slice(-59)}` : plain;
}
