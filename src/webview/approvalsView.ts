// Permission prompts for tool calls: allow once, allow always, reject.

import { html, type TemplateResult } from 'lit';
import type { ApprovalDecision, ApprovalView } from '../shared/sessionView';
import { approvalDetails, isEditReview } from './approvalDetails';
import type { ViewActions } from './viewActions';

export function approvalsView(approvals: ApprovalView[], actions: ViewActions): TemplateResult {
  if (approvals.length === 0) return html`<div id="approvals"></div>`;
  const answer = (a: ApprovalView, decision: ApprovalDecision) =>
    actions.post({ type: 'approval', sessionId: actions.sessionId(), requestId: a.requestId, decision });
  return html`<div id="approvals">${approvals.map((a) => html`<div class="approval" data-request-id=${a.requestId} role="alertdialog" aria-label="Approval needed">
    <div class="approval-title"><span class="codicon codicon-shield"></span> ${isEditReview(a) ? html`Review: <strong>${a.title}</strong>` : html`Allow <strong>${a.title}</strong>?`}</div>
    ${approvalDetails(a, actions)}
    ${isEditReview(a)
      ? html`<div class="approval-buttons">
          <button type="button" class="button accept-edit" @click=${() => answer(a, 'allowOnce')}>Accept</button>
          <button type="button" class="button reject secondary" @click=${() => answer(a, 'reject')}>Reject</button>
        </div>`
      : html`<div class="approval-buttons">
          <button type="button" class="button allow-once" @click=${() => answer(a, 'allowOnce')}>Allow once</button>
          <button type="button" class="button allow-always secondary" @click=${() => answer(a, 'allowAlways')}>Allow always</button>
          <button type="button" class="button reject secondary" @click=${() => answer(a, 'reject')}>Reject</button>
        </div>`}
  </div>`)}</div>`;
}
