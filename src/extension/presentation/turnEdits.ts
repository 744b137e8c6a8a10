// Folds Vigil's records of the writes it made for the agent into the view: each write on the card of the tool call
// that made it, and at the turn's end one list of the files the turn changed (each file once, with its latest sum).

import { editIdPattern, fileEditedUpdate, type FileEditView } from '../../shared/fileEdits';
import type { HostEvent } from '../../shared/sessionView';

/** A tool that writes more files than this shows the first ones; the turn's list is bounded the same way. */
const maxEditsShown = 1_000;

export class TurnEdits {
  private readonly byTool = new Map<string, FileEditView[]>();
  private readonly files = new Map<string, FileEditView>();

  static isEditRecord(update: Record<string, unknown>): boolean {
    return update.sessionUpdate === fileEditedUpdate;
  }

  /** One write; a record that does not have the expected shape (an edited transcript) shows nothing. */
  observe(update: Record<string, unknown>): HostEvent[] {
    const edit = fileEditOf(update.edit);
    const file = fileEditOf(update.file);
    if (!edit || !file) return [];
    if (this.files.has(file.path) || this.files.size < maxEditsShown) this.files.set(file.path, file);
    const toolCallId = typeof update.toolCallId === 'string' && update.toolCallId.length <= 256 ? update.toolCallId : undefined;
    if (!toolCallId) return [];
    const list = this.byTool.get(toolCallId) ?? [];
    if (list.length >= maxEditsShown) return [];
    list.push(edit);
    this.byTool.set(toolCallId, list);
    return [{ type: 'toolCallUpdated', toolCallId, patch: { edits: [...list] } }];
  }

  /** True while the current turn has writes Vigil made for the agent. */
  get hasFiles(): boolean {
    return this.files.size > 0;
  }

  /** The turn's checkpoint lists its changed files (every agent's, the same way): no second list at its end. */
  forgetFiles(): void {
    this.files.clear();
  }

  /** The turn ended: its list of changed files, if it changed any. */
  end(newId: () => string, at: number): HostEvent[] {
    const files = [...this.files.values()];
    this.files.clear();
    this.byTool.clear();
    return files.length > 0 ? [{ type: 'entryAppended', entry: { kind: 'edits', id: newId(), at, files } }] : [];
  }
}

function fileEditOf(raw: unknown): FileEditView | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const count = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 1e9;
  if (typeof r.editId !== 'string' || !editIdPattern.test(r.editId) || typeof r.path !== 'string' || r.path.length > 4_000) return undefined;
  if (!count(r.added) || !count(r.removed) || typeof r.created !== 'boolean') return undefined;
  const noDiff = r.noDiff === 'binary' || r.noDiff === 'tooLarge' ? r.noDiff : undefined;
  return { editId: r.editId, path: r.path, added: r.added as number, removed: r.removed as number, created: r.created, ...(noDiff ? { noDiff } : {}) };
}
