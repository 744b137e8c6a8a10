// One line over the input saying what the turn is doing: phase, elapsed, silence, what it waits on.

import { html, nothing, type TemplateResult } from 'lit';
import type { TurnPhase, TurnStatusView } from '../shared/sessionView';

const phaseLabel: Record<TurnPhase, string> = {
  idle: 'Idle', running: 'Running', quiet: 'Quiet', stalled: 'Stalled — recovering', aborted: 'Turn aborted',
  interrupted: 'Interrupted', awaitingApproval: 'Waiting for your approval',
};

const phaseIcon: Record<TurnPhase, string> = {
  idle: 'circle-outline', running: 'sync', quiet: 'watch', stalled: 'warning', aborted: 'error', interrupted: 'debug-disconnect', awaitingApproval: 'question',
};

export function statusLine(turn: TurnStatusView): TemplateResult {
  const live = turn.phase === 'running' || turn.phase === 'quiet' || turn.phase === 'stalled';
  return html`<div id="turn-status" data-phase=${turn.phase} role="status" aria-live="polite">
    <span class="codicon codicon-${phaseIcon[turn.phase]} ${turn.phase === 'running' ? 'codicon-modifier-spin' : ''}"></span>
    <span class="phase">${phaseLabel[turn.phase]}</span>
    ${live && turn.startedAt !== undefined ? html`<vigil-elapsed class="turn-elapsed" .since=${turn.startedAt}></vigil-elapsed>` : nothing}
    ${live && (turn.phase !== 'running' || turn.silenceSeconds >= 10)
      ? html`<span class="silence">· silent ${turn.lastActivityAt !== undefined
          ? html`<vigil-elapsed .since=${turn.lastActivityAt}></vigil-elapsed>`
          : `${Math.round(turn.silenceSeconds)}s`}</span>`
      : nothing}
    ${live && turn.waitingOn ? html`<span class="waiting-on">(waiting on: ${turn.waitingOn})</span>` : nothing}
    ${(live || turn.phase === 'awaitingApproval') && turn.where ? html`<span class="where" data-where=${turn.where}>· in ${turn.where}</span>` : nothing}
  </div>`;
}
