// Files an agent changed through Vigil: on a tool's card (each write) and at the end of a turn (each file once), with
// +/− counts and a button that asks the host to open the edit in VS Code's diff editor (by its id, never a path).

import { html, nothing, type TemplateResult } from 'lit';
import { describeCounts, type FileEditView } from '../shared/fileEdits';
import type { ViewActions } from './viewActions';

export function editList(edits: readonly FileEditView[], actions: ViewActions): TemplateResult {
  return html`<ul class="edit-list">${edits.map((e) => editRow(e, actions))}</ul>`;
}

/** The turn's change list, an entry of the transcript (so it survives a reload). */
export function editsEntry(id: string, files: readonly FileEditView[], actions: ViewActions): TemplateResult {
  const added = files.reduce((n, f) => n + f.added, 0);
  const removed = files.reduce((n, f) => n + f.removed, 0);
  return html`<div class="entry edits" data-entry-id=${id}>
    <div class="label"><span class="codicon codicon-files"></span> Changed ${files.length} ${files.length === 1 ? 'file' : 'files'}
      <span class="edit-counts"><span class="edit-added">+${added}</span> <span class="edit-removed">−${removed}</span></span></div>
    ${editList(files, actions)}
  </div>`;
}

function editRow(edit: FileEditView, actions: ViewActions): TemplateResult {
  return html`<li class="edit-row" data-edit-id=${edit.editId} data-path=${edit.path}>
    <span class="codicon codicon-${edit.created ? 'new-file' : 'edit'}"></span>
    <span class="edit-path" title=${edit.path}>${edit.path}</span>
    ${edit.noDiff
      ? html`<span class="edit-counts edit-nodiff">${describeCounts(edit)}</span>`
      : html`<span class="edit-counts">${edit.created ? html`<span class="edit-new">new</span> ` : nothing}<span class="edit-added">+${edit.added}</span> <span class="edit-removed">−${edit.removed}</span></span>
          <button type="button" class="button secondary open-diff" title="Open ${edit.path} in the diff editor" @click=${() => actions.post({ type: 'openDiff', editId: edit.editId })}>Open diff</button>`}
  </li>`;
}
