// Keeps, in memory and within a size budget, what files looked like before and after the agent's writes, so that
// each write (and all of one turn's writes to a file) can be shown as a diff later. The oldest contents go first when
// the budget is spent: such an edit keeps its counts in the transcript but its diff can no longer be opened.

import { randomUUID } from 'node:crypto';
import { isAbsolute, relative, sep } from 'node:path';
import { approvalPreviewChars, type FileEditView } from '../../../shared/fileEdits';
import { countLineChanges } from '../../../shared/lineDiff';

/** One side of a diff as captured: text, or why there is none. */
export type EditSide = { kind: 'text'; text: string } | { kind: 'missing' } | { kind: 'binary' } | { kind: 'tooLarge'; bytes: number };

export interface EditJournalLimits {
  /** Largest side (in UTF-16 units) that is kept and compared; larger ones are `tooLarge`. */
  maxSideChars: number;
  /** All kept sides together; the oldest entries are dropped beyond it. */
  maxTotalChars: number;
}

export const defaultEditLimits: EditJournalLimits = { maxSideChars: 2_000_000, maxTotalChars: 32_000_000 };

/** Both sides of a kept edit, for the diff editor. */
export interface KeptEdit {
  editId: string;
  sessionId: string;
  /** Absolute path written (a symlink's target when written through one). */
  abs: string;
  view: FileEditView;
  before: EditSide;
  after: EditSide;
}

/** A write that is about to happen (or waits for the person's review). */
export interface EditProposal {
  readonly edit: KeptEdit;
  /** The approval's inline diff, when both sides are small text. */
  readonly preview?: { oldText: string; newText: string };
}

export class EditJournal {
  /** Insertion order is age: the first entries are dropped first. */
  private readonly kept = new Map<string, KeptEdit>();
  private total = 0;
  /** Entries that sum up several edits of one file in one turn (no tool card names them). */
  private readonly sums = new Set<string>();
  /** Per turn (an opaque scope object) and file: the id of the entry that sums up that turn's edits of it. */
  private readonly turnFiles = new WeakMap<object, Map<string, string>>();

  constructor(
    private readonly limits: EditJournalLimits = defaultEditLimits,
    private readonly newId: () => string = randomUUID,
  ) {}

  /** Side from written text: what the agent sends is already in memory, but only a bounded one is kept. */
  sideOf(text: string): EditSide {
    if (text.length > this.limits.maxSideChars) return { kind: 'tooLarge', bytes: Buffer.byteLength(text) };
    if (text.includes('\u0000')) return { kind: 'binary' };
    return { kind: 'text', text };
  }

  /** Keeps a write's two sides under a new id (the approval of `ask` mode opens its diff by that id). */
  /** `root`: the session's workspace folder, against which the path is shown. */
  propose(sessionId: string, root: string, abs: string, before: EditSide, after: string): EditProposal {
    const edit = this.keep(sessionId, abs, shownPath(root, abs), before, this.sideOf(after));
    const preview =
      edit.before.kind !== 'binary' && edit.before.kind !== 'tooLarge' && edit.after.kind === 'text'
        ? { oldText: textOf(edit.before), newText: edit.after.text }
        : undefined;
    return preview && preview.oldText.length + preview.newText.length <= approvalPreviewChars ? { edit, preview } : { edit };
  }

  /**
   * The write was made: returns its view and the view of all of `turn`'s edits of that file so far (the first edit's
   * own entry while there is one; then one summing entry, replaced in place as later edits come).
   */
  commit(proposal: EditProposal, turn: object): { edit: FileEditView; file: FileEditView } {
    const { edit } = proposal;
    let files = this.turnFiles.get(turn);
    if (!files) this.turnFiles.set(turn, (files = new Map()));
    const earlierId = files.get(edit.abs);
    if (!earlierId) {
      files.set(edit.abs, edit.editId);
      return { edit: edit.view, file: edit.view };
    }
    const earlier = this.kept.get(earlierId);
    if (!earlier) {
      // The turn's first contents were dropped for space: its sum can no longer be compared.
      return { edit: edit.view, file: { ...edit.view, editId: earlierId, added: 0, removed: 0, noDiff: 'tooLarge' } };
    }
    const replacing = this.sums.has(earlierId);
    if (replacing) this.drop(earlierId);
    const sum = this.keep(edit.sessionId, edit.abs, edit.view.path, earlier.before, edit.after, replacing ? earlierId : this.newId());
    this.sums.add(sum.editId);
    files.set(edit.abs, sum.editId);
    return { edit: edit.view, file: sum.view };
  }

  /** A rejected or failed write: nothing of it is kept. */
  discard(proposal: EditProposal): void {
    this.drop(proposal.edit.editId);
  }

  get(editId: string): KeptEdit | undefined {
    return this.kept.get(editId);
  }

  get keptChars(): number {
    return this.total;
  }

  private keep(sessionId: string, abs: string, path: string, before: EditSide, after: EditSide, editId = this.newId()): KeptEdit {
    const entry: KeptEdit = { editId, sessionId, abs, view: viewOf(editId, path, before, after), before, after };
    this.kept.set(editId, entry);
    this.total += sizeOf(before) + sizeOf(after);
    for (const [id] of this.kept) {
      if (this.total <= this.limits.maxTotalChars || id === editId) break;
      this.drop(id);
    }
    return entry;
  }

  private drop(editId: string): void {
    const entry = this.kept.get(editId);
    if (!entry) return;
    this.kept.delete(editId);
    this.sums.delete(editId);
    this.total -= sizeOf(entry.before) + sizeOf(entry.after);
  }

}

function shownPath(root: string, abs: string): string {
  const rel = relative(root, abs);
  return rel && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel) ? rel : abs;
}

function viewOf(editId: string, path: string, before: EditSide, after: EditSide): FileEditView {
  const created = before.kind === 'missing';
  if (before.kind === 'binary' || after.kind === 'binary') return { editId, path, added: 0, removed: 0, created, noDiff: 'binary' };
  if (before.kind === 'tooLarge' || after.kind === 'tooLarge') return { editId, path, added: 0, removed: 0, created, noDiff: 'tooLarge' };
  return { editId, path, created, ...countLineChanges(textOf(before), after.kind === 'text' ? after.text : '') };
}

function textOf(side: EditSide): string {
  return side.kind === 'text' ? side.text : '';
}

function sizeOf(side: EditSide): number {
  return side.kind === 'text' ? side.text.length : 0;
}
