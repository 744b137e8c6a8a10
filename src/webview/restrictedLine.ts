// The one line under the header while Restricted Mode decides which agent serves the session (the built-in agent,
// read-only, or the person's own agent working outside Vigil's control), with Change… to decide again. Texts come
// from the host (core/settings/restrictedAgent.ts); lit escapes them.

import { html, nothing, type TemplateResult } from 'lit';
import type { SessionMetaView } from '../shared/sessionView';
import { actionButton, noticeContent } from './noticesView';
import type { ViewActions } from './viewActions';

export function restrictedLine(restricted: SessionMetaView['restricted'], actions: ViewActions): TemplateResult | typeof nothing {
  if (!restricted) return nothing;
  const { label, icon } = actionButton.agentConsent;
  return html`<div id="restricted-agent" class="notice-banner info-notice restricted-line" role="status">
    ${noticeContent({ id: 'restricted', kind: 'info', text: restricted.text, detail: restricted.detail, resumable: false, at: 0 })}
    <div class="notice-actions"><button type="button" class="button notice-action secondary" id="restricted-change" data-action="agentConsent"
      @click=${() => actions.post({ type: 'noticeAction', sessionId: actions.sessionId(), action: 'agentConsent' })}><span class="codicon codicon-${icon}" aria-hidden="true"></span>${label}</button></div>
  </div>`;
}
