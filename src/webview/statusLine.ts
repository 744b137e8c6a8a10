// One line over the input saying what the turn is doing: phase, elapsed, silence, what it waits on.
// Only the phase is a live region: screen readers hear "Waiting for your approval" once, never the
// clocks beside it, which tick every second.

import { html, nothing, type TemplateResult } from 'lit';
import type { TurnPhase, TurnStatusView } from '../shared/sessionView';

const phaseLabel: Record<TurnPhase, string> = {
  idle: 'Idle', running: 'Running', quiet: 'Quiet', stalled: 'Stalled — recovering', aborted: 'Turn aborted',
  interrupted: 'Interrupted', awaitingApproval: 'Waiting for your approval',
};

const phaseIcon: Record<TurnPhase, string> = {
  idle: 'circle-outline', running: 'sync', quiet: 'watch', stalled: 'warning', aborted: 'error', interrupted: 'debug-disconnect', awaitingApproval: 'question',
};

/** The key that moves focus to the open approval from anywhere in the view (viewAccessibility.ts). */
export const approvalShortcut = { key: 'a', label: 'Alt+A' } as const;

/**
 * What the live region says: the phase, where the turn runs, and for an approval how to reach it.
 * Built from the phase and `where` only, so it changes when they change and never with the clock.
 */
export function phaseAnnouncement(turn: Pick<TurnStatusView, 'phase' | 'where'>): string {
  const live = turn.phase === 'running' || turn.phase === 'quiet' || turn.phase === 'stalled';
  const where = (live || turn.phase === 'awaitingApproval') && turn.where ? ` · in ${turn.where}` : '';
  const hint = turn.phase === 'awaitingApproval' ? ` — ${approvalShortcut.label} to answer` : '';
  return `${phaseLabel[turn.phase]}${where}${hint}`;
}

export function statusLine(turn: TurnStatusView): TemplateResult {
  const live = turn.phase === 'running' || turn.phase === 'quiet' || turn.phase === 'stalled';
  const where = (live || turn.phase === 'awaitingApproval') && turn.where;
  return html`<div id="turn-status" data-phase=${turn.phase}>
    <span class="codicon codicon-${phaseIcon[turn.phase]} ${turn.phase === 'running' ? 'codicon-modifier-spin' : ''}" aria-hidden="true"></span>
    <span id="turn-phase" role="status" aria-live="polite" aria-atomic="true"><span class="phase">${phaseLabel[turn.phase]}</span>${where
      ? html`<span class="where" data-where=${turn.where}> · in ${turn.where}</span>`
      : nothing}${turn.phase === 'awaitingApproval' ? html`<span class="shortcut-hint"> — ${approvalShortcut.label} to answer</span>` : nothing}</span>
    ${live && turn.startedAt !== undefined ? html`<vigil-elapsed class="turn-elapsed" aria-label="Turn time" .since=${turn.startedAt}></vigil-elapsed>` : nothing}
    ${live && (turn.phase !== 'running' || turn.silenceSeconds >= 10)
      ? html`<span class="silence">· silent ${turn.lastActivityAt !== undefined
          ? html`<vigil-elapsed aria-label="Silent for" .since=${turn.lastActivityAt}></vigil-elapsed>`
          : `${Math.round(turn.silenceSeconds)}s`}</span>`
      : nothing}
    ${live && turn.waitingOn ? html`<span class="waiting-on">(waiting on: ${turn.waitingOn})</span>` : nothing}
  </div>`;
}
