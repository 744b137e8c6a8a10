// Keeps, in memory and within a size budget, what files looked like before and after the agent's writes, so that
// each write (and all of one turn's writes to a file) can be shown as a diff later. The oldest contents go first when
// the budget is spent: such an edit keeps its counts in the transcript but its diff can no longer be opened.
// Writes waiting for the person's review (`vigil.edits.review: "ask"`) are bounded too, in number and in what they
// hold; one beyond the bound is refused unwritten, and the diffs of those waiting are never dropped.

import { randomUUID } from 'node:crypto';
import { isAbsolute, relative, sep } from 'node:path';
import { approvalPreviewChars, type FileEditView } from '../../../shared/fileEdits';
import { countLineChanges } from '../../../shared/lineDiff';
import { VigilError } from '../common/errors';

/** One side of a diff as captured: text, or why there is none. */
export type EditSide = { kind: 'text'; text: string } | { kind: 'missing' } | { kind: 'binary' } | { kind: 'tooLarge'; bytes: number };

export interface EditJournalLimits {
  /** Largest side (in UTF-16 units) that is kept and compared; larger ones are `tooLarge`. */
  maxSideChars: number;
  /** All kept sides together; the oldest entries are dropped beyond it. */
  maxTotalChars: number;
  /** Writes waiting for review at once; more are refused until the person answered some. */
  maxPendingReviews: number;
  /**
   * What the writes waiting for review hold together: each one's new content (held whole, kept or not) and its
   * content before. At most half of `maxTotalChars`, so the entries waiting are never dropped for room.
   */
  maxPendingChars: number;
}

export const defaultEditLimits: EditJournalLimits = { maxSideChars: 2_000_000, maxTotalChars: 32_000_000, maxPendingReviews: 32, maxPendingChars: 16_000_000 };

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
  /** Entries of writes waiting for review, with what each holds; they are never dropped for room. */
  private readonly reviewing = new Map<string, number>();
  private reviewingChars = 0;

  private readonly limits: EditJournalLimits;

  /** `limits`: each one left out is its default. */
  constructor(
    limits: Partial<EditJournalLimits> = {},
    private readonly newId: () => string = randomUUID,
  ) {
    this.limits = { ...defaultEditLimits, ...limits };
  }

  /** Side from written text: what the agent sends is already in memory, but only a bounded one is kept. */
  sideOf(text: string): EditSide {
    if (text.length > this.limits.maxSideChars) return { kind: 'tooLarge', bytes: Buffer.byteLength(text) };
    if (text.includes('\u0000')) return { kind: 'binary' };
    return { kind: 'text', text };
  }

  /**
   * Keeps a write's two sides under a new id (the approval of `ask` mode opens its diff by that id); `root`: the
   * session's workspace folder, against which the path is shown. `review`: the write waits for the person until it
   * is committed or discarded, and is refused (nothing kept) when the writes waiting already fill their bound.
   */
  propose(sessionId: string, root: string, abs: string, before: EditSide, after: string, options: { review?: boolean } = {}): EditProposal {
    const path = shownPath(root, abs);
    const held = sizeOf(before) + after.length;
    if (options.review) this.checkReviewRoom(path, held);
    const edit = this.keep(sessionId, abs, path, before, this.sideOf(after));
    if (options.review) {
      this.reviewing.set(edit.editId, held);
      this.reviewingChars += held;
    }
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
    this.endReview(edit.editId);
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
    this.endReview(proposal.edit.editId);
    this.drop(proposal.edit.editId);
  }

  /** Writes waiting for review now, and what they hold (UTF-16 units). */
  get pendingReviews(): { count: number; chars: number } {
    return { count: this.reviewing.size, chars: this.reviewingChars };
  }

  /** Refuses, with what to do, a write for review beyond the bound: the agent may write it again once some are answered. */
  private checkReviewRoom(path: string, held: number): void {
    const { maxPendingReviews, maxPendingChars } = this.limits;
    const waiting = this.reviewing.size;
    const why =
      waiting >= maxPendingReviews
        ? `${waiting} writes already wait for the person's review, the most Vigil holds at once`
        : // One write alone always may wait: its request holds its content anyway.
          waiting > 0 && this.reviewingChars + held > maxPendingChars
          ? `the writes waiting for the person's review already hold ${millions(this.reviewingChars)} million characters, and this one would add ${millions(held)} million, beyond the ${millions(maxPendingChars)} million Vigil holds at once`
          : undefined;
    if (!why) return;
    throw new VigilError('SESSION_BUSY', `Did not write ${path}: ${why}. The file is unchanged, and the writes already made or waiting are kept. Wait until the person has answered the edits waiting for review, then write this file again.`);
  }

  private endReview(editId: string): void {
    const held = this.reviewing.get(editId);
    if (held === undefined) return;
    this.reviewing.delete(editId);
    this.reviewingChars -= held;
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
      if (this.total <= this.limits.maxTotalChars) break;
      // The diff a person is reviewing stays openable; the pending bound leaves room enough without it.
      if (id !== editId && !this.reviewing.has(id)) this.drop(id);
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

function millions(chars: number): string {
  return (chars / 1_000_000).toFixed(1);
}

function textOf(side: EditSide): string {
  return side.kind === 'text' ? side.text : '';
}

function sizeOf(side: EditSide): number {
  return side.kind === 'text' ? side.text.length : 0;
}
