// A turn's changed files at its end, from its checkpoint (every agent, whatever tool wrote): "Changed N files +a −r",
// each file with its counts, **Open diff** and **Restore**, and the whole turn one click away in a multi-file review.
// The view only names the turn and a path the host gave it; the host checks that path against the turn's trees.

import { css, html, nothing, type TemplateResult } from 'lit';
import { changedFilesLabel, type TurnChangesView, type TurnFileView } from '../shared/turnChanges';
import type { ViewActions } from './viewActions';

export function turnChangesTemplate(turnId: string, changes: TurnChangesView, actions: ViewActions): TemplateResult {
  const more = changes.count - changes.files.length;
  return html`<div class="turn-changes">
    <div class="turn-changes-head">
      <span class="turn-changes-label"><span class="codicon codicon-files" aria-hidden="true"></span> ${changedFilesLabel(changes.count)}
        <span class="edit-counts"><span class="edit-added">+${changes.added}</span> <span class="edit-removed">−${changes.removed}</span></span></span>
      <button type="button" class="button secondary review-turn" title="Opens every file this turn changed in one multi-file diff editor"
        @click=${() => actions.post({ type: 'openTurnChanges', sessionId: actions.sessionId(), turnId })}><span class="codicon codicon-diff-multiple" aria-hidden="true"></span>Review all</button>
    </div>
    <ul class="edit-list">${changes.files.map((f) => fileRow(turnId, f, actions))}</ul>
    ${more > 0 ? html`<div class="turn-changes-more">… and ${more.toLocaleString('en-US')} more ${more === 1 ? 'file' : 'files'} (not listed; Restore to before this turn covers them all)</div>` : nothing}
  </div>`;
}

const letters: Record<TurnFileView['change'], string> = { added: 'A', modified: 'M', deleted: 'D' };

/** As VS Code's Source Control lists a change: its letter, the file's name and then its folder, its counts. */
function fileRow(turnId: string, f: TurnFileView, actions: ViewActions): TemplateResult {
  const shown = shownPath(f.path);
  const cut = shown.lastIndexOf('/');
  const [dir, base] = cut >= 0 ? [shown.slice(0, cut), shown.slice(cut + 1)] : ['', shown];
  const post = (type: 'openTurnChanges' | 'restoreCheckpoint') => actions.post({ type, sessionId: actions.sessionId(), turnId, path: f.path });
  const name = html`<span class="turn-file-base">${base}</span>${dir ? html` <span class="turn-file-dir">${dir}</span>` : nothing}`;
  return html`<li class="edit-row turn-file" data-path=${f.path} data-change=${f.change}>
    <span class="turn-file-letter ${f.change}" title=${f.change} aria-label=${f.change}>${letters[f.change]}</span>
    ${f.noDiff
      ? html`<span class="edit-path" title=${shown}>${name}</span><span class="edit-counts edit-nodiff">${f.noDiff === 'binary' ? 'binary' : 'too large'}</span>`
      : html`<button type="button" class="edit-path open-diff link-button" title="Open diff: ${shown} before and after this turn" aria-label="Open diff of ${shown}"
            @click=${() => post('openTurnChanges')}>${name}</button>
          <span class="edit-counts">${f.added ? html`<span class="edit-added">+${f.added}</span>` : nothing}${f.added && f.removed ? ' ' : nothing}${f.removed ? html`<span class="edit-removed">−${f.removed}</span>` : nothing}</span>`}
    <button type="button" class="button secondary icon restore-file" title="Restore ${shown} to before this turn" aria-label="Restore ${shown} to before this turn"
      @click=${() => post('restoreCheckpoint')}><span class="codicon codicon-discard" aria-hidden="true"></span></button>
  </li>`;
}

/** A path as text: control and direction-changing characters (a name can hold them) shown as �, so it reads as it is. */
export function shownPath(p: string): string {
  // eslint-disable-next-line no-control-regex
  return p.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, '�');
}

export const turnChangesStyles = css`
  .turn-changes { flex: 1 1 100%; min-width: 0; }
  .turn-changes-head { display: flex; align-items: center; gap: 6px; }
  .turn-changes-label { flex: 1 1 auto; min-width: 0; color: var(--vscode-foreground); font-weight: 600; }
  .turn-changes .edit-counts { white-space: nowrap; font-weight: normal; }
  .turn-file { min-height: 22px; }
  .turn-file-letter { flex: 0 0 auto; width: 1.2em; text-align: center; font-weight: 600; }
  .turn-file-letter.added { color: var(--vscode-gitDecoration-addedResourceForeground); }
  .turn-file-letter.modified { color: var(--vscode-gitDecoration-modifiedResourceForeground); }
  .turn-file-letter.deleted { color: var(--vscode-gitDecoration-deletedResourceForeground); }
  .turn-file .link-button { background: none; border: none; padding: 0; margin: 0; text-align: left; cursor: pointer; color: var(--vscode-textLink-foreground); font: inherit; font-family: var(--vscode-editor-font-family); }
  .turn-file .link-button:hover .turn-file-base { text-decoration: underline; }
  .turn-file .link-button:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
  .turn-file[data-change="deleted"] .turn-file-base { text-decoration: line-through; }
  .turn-file-dir { color: var(--vscode-descriptionForeground); font-size: 0.9em; }
  .turn-file .button.icon { padding: 0 4px; }
  .turn-changes-more { color: var(--vscode-descriptionForeground); }
`;
