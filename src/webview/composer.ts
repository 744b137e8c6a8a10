// The input box with Send and Stop. Enter sends, Shift+Enter is a newline; Escape (anywhere in the
// view) stops the turn, handled by the app.

import { html, type TemplateResult } from 'lit';

export interface ComposerProps {
  live: boolean;
  draft: string;
  onInput(text: string): void;
  onSend(): void;
  onStop(): void;
}

export function composer(p: ComposerProps): TemplateResult {
  const onKeydown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      p.onSend();
    }
  };
  return html`<div id="composer">
    <textarea id="prompt-input" rows="3" aria-label="Message the agent"
      placeholder=${p.live ? 'The agent is working… (Escape stops)' : 'Ask the agent (Enter sends, Shift+Enter for a newline)'}
      .value=${p.draft}
      @input=${(e: Event) => p.onInput((e.target as HTMLTextAreaElement).value)}
      @keydown=${onKeydown}></textarea>
    <div class="composer-buttons">
      <vscode-button id="send" icon="send" ?disabled=${p.live || p.draft.trim() === ''} @click=${() => p.onSend()}>Send</vscode-button>
      <vscode-button id="stop" icon="debug-stop" secondary ?disabled=${!p.live} @click=${() => p.onStop()}>Stop</vscode-button>
    </div>
  </div>`;
}
