// The session view's header: the session's title, its model, whether background wakeups reach it, Open…,
// and the agent's option controls (headerOptions.ts).

import { html, nothing, type TemplateResult } from 'lit';
import type { SessionSnapshot } from '../shared/sessionView';
import { headerOptions } from './headerOptions';
import type { Intent } from './hostBridge';

export function sessionHeader(s: SessionSnapshot, post: (intent: Intent) => void): TemplateResult {
  return html`
    <header id="session-header" data-agent=${s.session?.agent ?? ''}>
      <span class="codicon codicon-hubot"></span>
      <span id="session-title">${s.session ? s.session.title : 'No session'}</span>
      ${s.session?.model && !s.agent?.options.some((o) => o.category === 'model') ? html`<span class="session-model">${s.session.model}</span>` : nothing}
      ${s.session?.wakeups ? html`<span id="wakeups-unavailable" class="session-wakeups" title=${s.session.wakeups} aria-label=${s.session.wakeups}><span class="codicon codicon-bell-slash"></span> No background wakeups</span>` : nothing}
      <button type="button" class="button secondary" id="open-session" title="Open session…" aria-label="Open…"
        @click=${() => post({ type: 'openSession' })}><span class="codicon codicon-folder-opened" aria-hidden="true"></span><span class="button-label">Open…</span></button>
      ${headerOptions(s.agent, (configId) => post({ type: 'agentOption', sessionId: s.session?.id, configId }))}
    </header>`;
}
