// One line over the input saying what the turn is doing: its state (the term every surface uses,
// shared/turnWords.ts), the turn's time, and what it waits on and for how long. Only the state is a
// live region: screen readers hear "Needs your approval" once, never the clocks beside it, which tick
// every second.

import { html, nothing, type TemplateResult } from 'lit';
import type { TurnStatusView } from '../shared/sessionView';
import { isTurnLive } from '../shared/sessionViewReducer';
import { phaseIcons, phaseTerm } from '../shared/turnWords';

/** The key that moves focus to the open approval from anywhere in the view (viewAccessibility.ts). */
export const approvalShortcut = { key: 'a', label: 'Alt+A' } as const;

/** What follows the term: how to reach an approval, or what a stall is leading to. */
function hint(turn: Pick<TurnStatusView, 'phase'>): string {
  if (turn.phase === 'awaitingApproval') return ` — ${approvalShortcut.label} to answer`;
  if (turn.phase === 'stalled') return ' — stopping the turn';
  return '';
}

function whereOf(turn: Pick<TurnStatusView, 'phase' | 'where'>): string | undefined {
  return isTurnLive(turn.phase) && turn.where ? turn.where : undefined;
}

/**
 * What the live region says: the state, where the turn runs, and what the state leads to. Built from the
 * phase and `where` only, so it changes when they change and never with the clock.
 */
export function phaseAnnouncement(turn: Pick<TurnStatusView, 'phase' | 'where'>): string {
  const where = whereOf(turn);
  return `${phaseTerm(turn.phase)}${where ? ` · in ${where}` : ''}${hint(turn)}`;
}

export function statusLine(turn: TurnStatusView): TemplateResult {
  const live = turn.phase === 'running' || turn.phase === 'quiet' || turn.phase === 'stalled';
  const where = whereOf(turn);
  const waited = turn.phase !== 'running' || turn.silenceSeconds >= 10;
  return html`<div id="turn-status" data-phase=${turn.phase}>
    <span class="codicon codicon-${phaseIcons[turn.phase]} ${turn.phase === 'running' ? 'codicon-modifier-spin' : ''}" aria-hidden="true"></span>
    <span id="turn-phase" role="status" aria-live="polite" aria-atomic="true"><span class="phase">${phaseTerm(turn.phase)}</span>${where
      ? html`<span class="where" data-where=${where}> · in ${where}</span>`
      : nothing}${hint(turn) ? html`<span class="phase-hint">${hint(turn)}</span>` : nothing}</span>
    ${live && turn.startedAt !== undefined ? html`<vigil-elapsed class="turn-elapsed" aria-label="Turn time" .since=${turn.startedAt}></vigil-elapsed>` : nothing}
    ${live && turn.waitingOn
      ? html`<span class="waiting-on">· waiting on ${turn.waitingOn}${waited
          ? html` for ${turn.lastActivityAt !== undefined
              ? html`<vigil-elapsed class="silence" aria-label="Waiting for" .since=${turn.lastActivityAt}></vigil-elapsed>`
              : html`<span class="silence">${Math.round(turn.silenceSeconds)} s</span>`}`
          : nothing}</span>`
      : nothing}
  </div>`;
}
