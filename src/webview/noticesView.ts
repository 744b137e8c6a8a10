// Pinned notices above the input: quiet indicator, stall banner, stop notices with Resume, errors. Each is
// a one-line summary with what it means and how Vigil got there folded under it (a native disclosure), so
// a narrow side bar keeps its room for the transcript. Texts come from the host verbatim.

import { html, nothing, type TemplateResult } from 'lit';
import type { NoticeAction, NoticeView, TurnStatusView } from '../shared/sessionView';
import { phaseIcons } from '../shared/turnWords';
import type { ViewActions } from './viewActions';

const noticeClass: Record<NoticeView['kind'], string> = {
  quiet: 'quiet-banner', stall: 'stall-banner', abort: 'abort-notice', interrupted: 'interrupted-notice', error: 'error-notice', info: 'info-notice',
};

export const actionButton: Record<NoticeAction, { label: string; icon: string }> = {
  openLog: { label: 'Open Log', icon: 'output' },
  openSettings: { label: 'Open Settings', icon: 'settings-gear' },
  signIn: { label: 'Sign in…', icon: 'account' },
  agentConsent: { label: 'Change…', icon: 'shield' },
};

/** A stopped turn has one icon, as it has one word, whichever way it stopped (shared/turnWords.ts). */
export const noticeIcon: Record<NoticeView['kind'], string> = {
  quiet: phaseIcons.quiet, stall: phaseIcons.stalled, abort: phaseIcons.aborted, interrupted: phaseIcons.interrupted, error: 'error', info: 'info',
};

/** The summary line and what is folded under it; a text of several lines (an agent's last stderr lines) folds after its first. */
export function noticeParts(n: Pick<NoticeView, 'text' | 'detail'>): { summary: string; detail?: string } {
  if (n.detail) return { summary: n.text, detail: n.detail };
  const cut = n.text.indexOf('\n');
  if (cut < 0) return { summary: n.text };
  const detail = n.text.slice(cut + 1).trim();
  return detail ? { summary: n.text.slice(0, cut), detail } : { summary: n.text.slice(0, cut) };
}

/** A notice's icon and summary, with its details folded when it has any: in the pinned area and in the transcript. */
export function noticeContent(n: NoticeView): TemplateResult {
  const { summary, detail } = noticeParts(n);
  const icon = html`<span class="codicon codicon-${noticeIcon[n.kind]}" aria-hidden="true"></span>`;
  if (detail === undefined) return html`<div class="notice-summary notice-plain">${icon}<span class="notice-text">${summary}</span></div>`;
  return html`<details class="notice-details">
    <summary class="notice-summary" title=${summary}>${icon}<span class="notice-text">${summary}</span><span class="codicon codicon-chevron-right notice-more" aria-hidden="true"></span></summary>
    <div class="notice-detail">${detail}</div>
  </details>`;
}

export function noticesView(notices: NoticeView[], turn: TurnStatusView, actions: ViewActions): TemplateResult {
  if (notices.length === 0) return html`<div id="notices"></div>`;
  const resumable = turn.phase === 'aborted' || turn.phase === 'interrupted';
  return html`<div id="notices">${notices.map((n) => {
    const resume = n.resumable && resumable;
    return html`<div class="notice-banner ${noticeClass[n.kind]}" data-notice-id=${n.id} role=${n.kind === 'stall' || n.kind === 'abort' ? 'alert' : 'status'}>
      ${noticeContent(n)}
      ${resume || n.actions?.length
        ? html`<div class="notice-actions">${resume
            ? html`<button type="button" class="button resume" @click=${() => actions.post({ type: 'resume', sessionId: actions.sessionId() })}><span class="codicon codicon-debug-continue" aria-hidden="true"></span>Resume</button>`
            : nothing}${(n.actions ?? []).map((action) => html`<button type="button" class="button notice-action secondary" data-action=${action}
              @click=${() => actions.post({ type: 'noticeAction', sessionId: actions.sessionId(), action })}><span class="codicon codicon-${actionButton[action].icon}" aria-hidden="true"></span>${actionButton[action].label}</button>`)}</div>`
        : nothing}
    </div>`;
  })}</div>`;
}
