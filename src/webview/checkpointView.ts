// The end of a turn with a checkpoint: the files it changed (turnChangesView.ts), "Restore to before this turn" (the
// host previews and asks before it writes anything), and a line when the checkpoint left files out or could not be
// taken.

import { css, html, nothing, type TemplateResult } from 'lit';
import type { EntryView } from '../shared/sessionView';
import { turnChangesStyles, turnChangesTemplate } from './turnChangesView';
import type { ViewActions } from './viewActions';

type CheckpointEntry = Extract<EntryView, { kind: 'checkpoint' }>;

export function checkpointTemplate(entry: CheckpointEntry, actions: ViewActions): TemplateResult {
  return html`<div class="entry checkpoint" data-entry-id=${entry.id} data-turn-id=${entry.turnId}>
    ${entry.changes ? turnChangesTemplate(entry.turnId, entry.changes, actions) : nothing}
    ${entry.restorable
      ? html`<button type="button" class="button restore-checkpoint secondary" title="Shows the files this turn changed, then puts them back as they were before it"
          @click=${() => actions.post({ type: 'restoreCheckpoint', sessionId: actions.sessionId(), turnId: entry.turnId })}><span class="codicon codicon-discard" aria-hidden="true"></span>Restore to before this turn</button>`
      : nothing}
    ${entry.restorable && !entry.changes
      ? html`<button type="button" class="button secondary review-turn" title="Opens every file this turn changed in one multi-file diff editor"
          @click=${() => actions.post({ type: 'openTurnChanges', sessionId: actions.sessionId(), turnId: entry.turnId })}><span class="codicon codicon-diff-multiple" aria-hidden="true"></span>Review changes</button>`
      : nothing}
    ${entry.note ? html`<span class="checkpoint-note"><span class="codicon codicon-info"></span> ${entry.note}</span>` : nothing}
  </div>`;
}

export const checkpointStyles = css`
  .entry.checkpoint { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; color: var(--vscode-descriptionForeground); font-size: 0.9em; }
  .entry.checkpoint .checkpoint-note { flex: 1 1 auto; }
  ${turnChangesStyles}
`;
