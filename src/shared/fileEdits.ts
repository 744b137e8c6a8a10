// What the view shows of the files an agent changed through Vigil, and of an approval: counts, a reason when no diff
// can be shown, and an id the host maps to the contents it kept (the view never names a file to compare).

/** One edit of one file, or all of a turn's edits of it: lines added and removed, and the id of the kept contents. */
export interface FileEditView {
  editId: string;
  /** As the person reads it: relative to the workspace folder when inside it. */
  path: string;
  added: number;
  removed: number;
  /** The file did not exist before. */
  created: boolean;
  /** Set when the counts and the diff are not available: a binary file, or one too large to compare. */
  noDiff?: 'binary' | 'tooLarge';
}

/** What an approval is about, in readable form (the raw input stays available beside it). */
export type ApprovalDetails =
  | { type: 'command'; command: string; cwd?: string; background: boolean }
  /**
   * `preview`: both sides, when small enough to show in the approval itself. `review`: the write itself waits (it is
   * accepted or rejected); otherwise an agent's permission request carried the diff.
   */
  | { type: 'edit'; edit: FileEditView; preview?: { oldText: string; newText: string }; review?: boolean };

/** Host-made ids: what the webview may send back to open a diff. */
export const editIdPattern = /^[A-Za-z0-9-]{1,64}$/;

/** Both sides of an approval's inline diff stay below this; larger edits are opened in the diff editor. */
export const approvalPreviewChars = 20_000;

/** "+3 −1", "new file, +12", "binary file". */
export function describeCounts(edit: FileEditView): string {
  if (edit.noDiff === 'binary') return edit.created ? 'new binary file' : 'binary file';
  if (edit.noDiff === 'tooLarge') return 'too large to compare';
  return `${edit.created ? 'new file, ' : ''}+${edit.added} −${edit.removed}`;
}

/**
 * The `sessionUpdate` of Vigil's own transcript record of a write it made for the agent (never sent by an agent):
 * `{ sessionUpdate, toolCallId?, edit, file }`, `file` being all of the turn's edits of that file so far.
 */
export const fileEditedUpdate = '_vigil/file_edited';
