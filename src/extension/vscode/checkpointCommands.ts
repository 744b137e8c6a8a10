// "Restore to before this turn" (from a turn in the session view, or `Vigil: Restore Checkpoint…`): previews
// the files the turn changed, asks before overwriting any changed again since, and reports what it did.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from '../core/common/disposable';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';
import type { PlannedFile, RestorePlan, RestoreResult } from '../core/checkpoints/restore';
import type { VigilServices } from '../services';
import { storedTextShown } from '../presentation/storedTextShown';

export interface CheckpointCommandsDeps {
  services(): Promise<VigilServices>;
  currentSessionId(): string | undefined;
  logger: Logger;
}

/** Documents of a checkpoint's stored files: `vigil-checkpoint:/<path>?<folder and blob id as JSON>`. */
export const checkpointScheme = 'vigil-checkpoint';
const NO_FILE = '0'.repeat(40);

/** Quick pick labels render `$(name)` as icons: a file name must never draw one. */
const plain = (text: string) => text.replace(/\$\(/g, '$\u200b(').replace(/[\r\n]/g, '⏎');

export class CheckpointCommands extends Disposable implements vscode.TextDocumentContentProvider {
  constructor(private readonly d: CheckpointCommandsDeps) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(checkpointScheme, this));
  }

  /** The text of a stored file (a side of a diff): bounded, and a binary file says so instead (storedText.ts). */
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const { folder, id } = JSON.parse(uri.query) as { folder?: unknown; id?: unknown };
    if (typeof folder !== 'string' || typeof id !== 'string') throw new Error('Not a checkpoint document');
    if (id === NO_FILE) return '';
    const checkpoints = (await this.d.services()).checkpoints;
    if (!checkpoints) throw new Error('Checkpoints are off');
    return storedTextShown(await checkpoints.readText(folder, id));
  }

  /** `path`: restore only that file of the turn. True once files were put back (an edit waits for it before sending). */
  async restore(sessionId?: string, turnId?: string, path?: string): Promise<boolean> {
    const services = await this.d.services();
    const checkpoints = services.checkpoints;
    if (!checkpoints) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: checkpoints are off (setting "vigil.checkpoints.enabled").'));
      return false;
    }
    const session = sessionId ?? this.d.currentSessionId();
    if (!session) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: open a session first; its turns\' checkpoints are listed then.'));
      return false;
    }
    if (await services.supervisor.hasActiveTurn(session)) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: a turn of this session is running. Stop it (or let it finish) before restoring a checkpoint, so the agent does not write over the restore.'));
      return false;
    }
    const turn = turnId ?? (await this.pickTurn(session));
    if (!turn) return false;
    let plan: RestorePlan;
    try {
      plan = await checkpoints.preview(session, turn, path === undefined ? undefined : [path]);
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Vigil: cannot restore this turn: {0}', errorMessage(error)));
      return false;
    }
    if (plan.files.length === 0) {
      const left = plan.unrestorable ?? [];
      if (left.length > 0) void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: nothing to restore that Vigil can write back.'), { detail: left.map((k) => `${plain(k.path)}: ${k.why}`).join('\n'), modal: false });
      else void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: this turn changed no file that its checkpoint holds; there is nothing to restore.'));
      return false;
    }
    if (!(await this.confirmPreview(plan))) return false;
    const since = plan.files.filter((f) => f.changedSince);
    let overwrite = new Set<string>();
    if (since.length > 0) {
      const choice = await vscode.window.showWarningMessage(
        since.length === 1
          ? vscode.l10n.t('1 file was changed again after this turn. Overwrite it with the state before the turn?')
          : vscode.l10n.t('{0} files were changed again after this turn. Overwrite them with the state before the turn?', since.length),
        { modal: true, detail: list(since) },
        vscode.l10n.t('Overwrite'),
        vscode.l10n.t('Keep Them'),
      );
      if (choice === undefined) return false;
      if (choice === vscode.l10n.t('Overwrite')) overwrite = new Set(since.map((f) => f.path));
    }
    let result: RestoreResult;
    try {
      result = await checkpoints.restore(session, plan, overwrite);
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Vigil: cannot restore this turn: {0}', errorMessage(error)));
      return false;
    }
    this.d.logger.info(`[checkpoints] restored ${result.restored.length} file(s) of turn ${turn}; kept ${result.kept.length}`);
    if (result.kept.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: restored {0} to before the turn.', count(result.restored.length)));
    } else {
      void vscode.window.showWarningMessage(
        result.kept.length === 1
          ? vscode.l10n.t('Vigil: restored {0}; left {1} as it is.', count(result.restored.length), count(result.kept.length))
          : vscode.l10n.t('Vigil: restored {0}; left {1} as they are.', count(result.restored.length), count(result.kept.length)),
        { detail: result.kept.map((k) => `${plain(k.path)}: ${k.why}`).join('\n'), modal: false },
      );
    }
    return true;
  }

  private async pickTurn(sessionId: string): Promise<string | undefined> {
    const checkpoints = (await this.d.services()).checkpoints!;
    const turns = await checkpoints.restorable(sessionId);
    if (turns.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: no turn of this session changed files with a checkpoint to restore.'));
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      turns.map((t) => ({ label: plain((t.prompt ?? 'A turn').replace(/\s+/g, ' ').slice(0, 80)), description: new Date(t.at).toLocaleString(), turnId: t.turnId })),
      { placeHolder: vscode.l10n.t('Restore the files to before which turn?') },
    );
    return picked?.turnId;
  }

  private async showChanges(plan: RestorePlan): Promise<void> {
    try {
      await showChangesOf(plan);
    } catch (error) {
      this.d.logger.warn(`[checkpoints] the changes view could not open: ${errorMessage(error)}`);
      void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: the changes could not be shown ({0}); the list still says what restoring does.', errorMessage(error)));
    }
  }

  /** The preview: every file the restore would change and how; resolves true on "Restore". */
  private confirmPreview(plan: RestorePlan): Promise<boolean> {
    type Item = vscode.QuickPickItem & { restore?: boolean; show?: boolean };
    const pick = vscode.window.createQuickPick<Item>();
    // Stays open while the changes are shown beside it.
    pick.ignoreFocusOut = true;
    pick.title = `Restore to before this turn: ${count(plan.files.length)}`;
    pick.placeholder = 'Enter restores these files; Escape cancels';
    pick.matchOnDescription = true;
    pick.items = [
      { label: `$(discard) Restore ${count(plan.files.length)}`, restore: true, alwaysShow: true },
      { label: '$(diff-multiple) Show what restoring changes', show: true, alwaysShow: true },
      { label: 'Files this turn changed', kind: vscode.QuickPickItemKind.Separator },
      ...plan.files.map((f): Item => ({ label: plain(f.path), description: describe(f), ...(f.changedSince ? { detail: '$(warning) changed again after the turn: you will be asked' } : {}) })),
    ];
    return new Promise<boolean>((resolve) => {
      let accepted = false;
      pick.onDidAccept(() => {
        if (pick.selectedItems[0]?.show) void this.showChanges(plan);
        if (!pick.selectedItems[0]?.restore) return;
        accepted = true;
        pick.hide();
      });
      pick.onDidHide(() => {
        pick.dispose();
        resolve(accepted);
      });
      pick.show();
    });
  }
}

/**
 * A file of a checkpoint as a read-only document (the all-zero id: no file on that side). Its path is the file's own,
 * so a diff editor names both sides alike (not as a rename); its content comes only from the id.
 */
export function storedUri(folder: string, rel: string, id: string): vscode.Uri {
  const own = vscode.Uri.file(path.join(folder, ...rel.split('/'))).path;
  return vscode.Uri.from({ scheme: checkpointScheme, path: own, query: JSON.stringify({ folder, id: /^0+$/.test(id) ? NO_FILE : id }) });
}

/** Each file as it is now beside what restoring makes of it, in one multi-file diff editor. */
async function showChangesOf(plan: RestorePlan): Promise<void> {
  const stored = (f: PlannedFile) => storedUri(plan.folder, f.path, f.beforeId);
  const empty = (f: PlannedFile) => storedUri(plan.folder, f.path, NO_FILE);
  const resources = plan.files.map((f) => {
    const onDisk = vscode.Uri.file(path.join(plan.folder, f.path));
    return [onDisk, f.change === 'deleted' ? empty(f) : onDisk, f.change === 'added' ? empty(f) : stored(f)];
  });
  await vscode.commands.executeCommand('vscode.changes', 'Restoring to before the turn', resources);
}

function describe(f: PlannedFile): string {
  const lines = f.added !== undefined ? ` (+${f.added} −${f.removed})` : '';
  switch (f.change) {
    case 'added':
      return `added by the turn${lines}: will be deleted`;
    case 'deleted':
      return `deleted by the turn: will be brought back`;
    default:
      return `changed by the turn${lines}: will be put back`;
  }
}

function count(n: number): string {
  return n === 1 ? '1 file' : `${n} files`;
}

function list(files: PlannedFile[]): string {
  const shown = files.slice(0, 15).map((f) => plain(f.path));
  return shown.join('\n') + (files.length > shown.length ? `\n… and ${files.length - shown.length} more` : '');
}
