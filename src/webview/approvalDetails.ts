// The readable part of an approval: a command with its folder and whether it runs in the background, or an edit with
// its diff; the agent's raw input stays one click away under "Show raw input".

import { html, nothing, type TemplateResult } from 'lit';
import { describeCounts, type ApprovalDetails } from '../shared/fileEdits';
import type { ApprovalView } from '../shared/sessionView';
import { diffLines } from '../shared/lineDiff';
import { formatJson } from './format';
import type { ViewActions } from './viewActions';

export function approvalDetails(approval: ApprovalView, actions: ViewActions): TemplateResult {
  const d = approval.details;
  return html`${d ? detailsView(d, actions) : nothing}
    ${approval.rawInput !== undefined
      ? d
        ? html`<details class="approval-raw"><summary>Show raw input</summary><pre class="approval-input">${formatJson(approval.rawInput, 2_000)}</pre></details>`
        : html`<pre class="approval-input">${formatJson(approval.rawInput, 2_000)}</pre>`
      : nothing}`;
}

/** An edit under review is accepted or rejected, file by file; other approvals keep allow once / always / reject. */
export function isEditReview(approval: ApprovalView): boolean {
  return approval.details?.type === 'edit' && approval.details.review === true;
}

function detailsView(d: ApprovalDetails, actions: ViewActions): TemplateResult {
  if (d.type === 'command') {
    return html`<dl class="approval-details command-details">
      <dt>Command</dt><dd><pre class="approval-command">${d.command}</pre></dd>
      <dt>Folder</dt><dd><code class="approval-cwd">${d.cwd ?? '(the workspace folder)'}</code></dd>
      <dt>Background</dt><dd class="approval-background">${d.background ? 'yes: it keeps running after this step' : 'no'}</dd>
    </dl>`;
  }
  const { edit, preview } = d;
  return html`<div class="approval-details edit-details" data-edit-id=${edit.editId}>
    <div class="label"><span class="codicon codicon-diff"></span> <span class="edit-path">${edit.path}</span> <span class="edit-counts">${describeCounts(edit)}</span>
      ${edit.noDiff ? nothing : html`<button type="button" class="button secondary open-diff" @click=${() => actions.post({ type: 'openDiff', editId: edit.editId })}>Open diff</button>`}</div>
    ${preview
      ? html`<pre class="diff">${diffLines(preview.oldText, preview.newText).map((l) =>
          l.op === '…'
            ? html`<div class="diff-line diff-skip">⋯ ${l.skipped} unchanged line${l.skipped === 1 ? '' : 's'}</div>`
            : html`<div class="diff-line ${l.op === '+' ? 'diff-add' : l.op === '-' ? 'diff-del' : 'diff-ctx'}">${l.op} ${l.text}</div>`,
        )}</pre>`
      : edit.noDiff
        ? nothing
        : html`<div class="edit-large">Too long to show here: open the diff to read it.</div>`}
  </div>`;
}
