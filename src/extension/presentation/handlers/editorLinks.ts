// Links from the transcript into the editor: a workspace file a markdown link names (the path is the view's claim:
// checked to be inside the workspace before it opens), and an edit the host recorded, by its id, in the diff editor.

import type { IntentHandlers } from '../viewHandlers';

export interface EditorLinkPorts {
  openFile(path: string, line: number | undefined): Promise<void>;
  /** Unknown ids get a plain message (vscode/editDiffs.ts). */
  openDiff(editId: string): Promise<void>;
}

/** `ports` is read when a message arrives. */
export function editorLinkHandlers(ports: () => EditorLinkPorts) {
  return {
    openFile: (m) => ports().openFile(m.path, m.line),
    openDiff: (m) => ports().openDiff(m.editId),
  } satisfies Partial<IntentHandlers>;
}
