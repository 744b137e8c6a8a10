// Pinned notices above the input: quiet indicator, stall banner, abort and interrupted notices with
// Resume, errors. Texts come from the supervisor verbatim.

import { html, nothing, type TemplateResult } from 'lit';
import type { NoticeAction, NoticeView, TurnStatusView } from '../shared/sessionView';
import type { ViewActions } from './viewActions';

const noticeClass: Record<NoticeView['kind'], string> = {
  quiet: 'quiet-banner', stall: 'stall-banner', abort: 'abort-notice', interrupted: 'interrupted-notice', error: 'error-notice', info: 'info-notice',
};

const actionButton: Record<NoticeAction, { label: string; icon: string }> = {
  openLog: { label: 'Open Log', icon: 'output' },
  openSettings: { label: 'Open Settings', icon: 'settings-gear' },
  signIn: { label: 'Sign in…', icon: 'account' },
};

const noticeIcon: Record<NoticeView['kind'], string> = {
  quiet: 'watch', stall: 'warning', abort: 'error', interrupted: 'debug-disconnect', error: 'error', info: 'info',
};

export function noticesView(notices: NoticeView[], turn: TurnStatusView, actions: ViewActions): TemplateResult {
  if (notices.length === 0) return html`<div id="notices"></div>`;
  const resumable = turn.phase === 'aborted' || turn.phase === 'interrupted';
  return html`<div id="notices">${notices.map((n) => html`<div class="notice-banner ${noticeClass[n.kind]}${n.actions?.length ? ' has-actions' : ''}" data-notice-id=${n.id} role=${n.kind === 'stall' || n.kind === 'abort' ? 'alert' : 'status'}>
    <span class="codicon codicon-${noticeIcon[n.kind]}"></span>
    <span class="notice-text">${n.text}</span>
    ${n.resumable && resumable
      ? html`<button type="button" class="button resume" @click=${() => actions.post({ type: 'resume', sessionId: actions.sessionId() })}><span class="codicon codicon-debug-continue" aria-hidden="true"></span>Resume</button>`
      : nothing}
    ${n.actions?.length
      ? html`<div class="notice-actions">${n.actions.map((action) => html`<button type="button" class="button notice-action secondary" data-action=${action}
          @click=${() => actions.post({ type: 'noticeAction', sessionId: actions.sessionId(), action })}><span class="codicon codicon-${actionButton[action].icon}" aria-hidden="true"></span>${actionButton[action].label}</button>`)}</div>`
      : nothing}
  </div>`)}</div>`;
}
