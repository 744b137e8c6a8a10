// Shows an agent's write in VS Code's diff editor: both sides come from the host's edit journal through a read-only
// `vigil-diff:` document provider, looked up by the id the view sends (the view never names a file).

import { basename } from 'node:path';
import * as vscode from 'vscode';
import { editIdPattern } from '../../shared/fileEdits';
import type { EditJournal, EditSide } from '../core/acp/editJournal';
import { Disposable } from '../core/common/disposable';
import type { Logger } from '../core/ports/logger';

export const editDiffScheme = 'vigil-diff';

type Which = 'before' | 'after';

export class EditDiffs extends Disposable implements vscode.TextDocumentContentProvider {
  constructor(
    private readonly journal: EditJournal,
    private readonly logger: Logger,
  ) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(editDiffScheme, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const [editId, which] = uri.path.split('/').filter(Boolean);
    const kept = editIdPattern.test(editId ?? '') ? this.journal.get(editId) : undefined;
    if (!kept) return gone;
    return textOf(which === 'before' ? kept.before : kept.after);
  }

  /** Opens the diff editor on one kept edit; says plainly why when it cannot. */
  async open(editId: string): Promise<void> {
    const kept = editIdPattern.test(editId) ? this.journal.get(editId) : undefined;
    if (!kept) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: {0}', gone));
      return;
    }
    const { view } = kept;
    if (view.noDiff) {
      const why = view.noDiff === 'binary' ? 'it is a binary file' : 'the file is too large to compare';
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: no diff of {0} can be shown: {1}.', view.path, why));
      return;
    }
    const name = basename(kept.abs);
    const side = (which: Which) => vscode.Uri.from({ scheme: editDiffScheme, path: `/${editId}/${which}/${name}` });
    const title = `${name} (agent's edit)`;
    this.logger.debug(`[edits] diff of ${view.path} opened`);
    await vscode.commands.executeCommand('vscode.diff', side('before'), side('after'), title, { preview: true });
  }
}

const gone = 'The contents of this edit are no longer kept. Vigil keeps recent edits in memory while the window is open; use the file\'s history (Timeline, or git) to compare older versions.';

function textOf(side: EditSide): string {
  switch (side.kind) {
    case 'text':
      return side.text;
    case 'missing':
      return '';
    case 'binary':
      return '(binary content not shown)';
    case 'tooLarge':
      return `(${side.bytes} bytes: too large to show)`;
  }
}
