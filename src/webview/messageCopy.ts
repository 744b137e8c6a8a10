// Copy on a user or agent message. The view names the entry; the host copies the Markdown it holds
// for it (a webview may not reach the clipboard, and the host never copies text the view made up).

import { html, type TemplateResult } from 'lit';
import type { ViewActions } from './viewActions';

export function copyButton(entryId: string, whose: 'your message' | 'the agent’s message', actions: ViewActions): TemplateResult {
  return html`<button class="copy-entry" type="button" title="Copy as Markdown" aria-label=${`Copy ${whose} as Markdown`}
    @click=${() => actions.post({ type: 'copyEntry', sessionId: actions.sessionId(), entryId })}><span class="codicon codicon-copy" aria-hidden="true"></span></button>`;
}
