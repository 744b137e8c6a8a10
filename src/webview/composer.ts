// The input box with Send and Stop. Enter sends, Shift+Enter is a newline; Escape (anywhere in the
// view) stops the turn, handled by the app. Typing `/` lists the agent's commands (commandCompletions.ts):
// arrows move, Enter or Tab chooses, Escape closes the list (and does not stop the turn).

import { html, nothing, type TemplateResult } from 'lit';
import type { AgentCommandView } from '../shared/agentState';
import { pendingHint, type CommandCompletions } from './commandCompletions';

export interface ComposerProps {
  live: boolean;
  draft: string;
  onInput(text: string): void;
  onSend(): void;
  onStop(): void;
  /** The agent's slash commands and the list's state; without them `/` is plain text. */
  commands?: readonly AgentCommandView[];
  completions?: CommandCompletions;
  /** The list changed without the draft changing (arrows, Escape, a caret move). */
  onCompletionsChanged?(): void;
}

const listId = 'command-list';
const optionId = (i: number) => `command-option-${i}`;

export function composer(p: ComposerProps): TemplateResult {
  const list = p.completions;
  const commands = p.commands ?? [];
  const refresh = (area: HTMLTextAreaElement) => {
    if (list?.update(area.value, area.selectionStart ?? area.value.length, commands)) p.onCompletionsChanged?.();
  };
  const choose = (area: HTMLTextAreaElement) => {
    const chosen = list?.accept(area.value);
    if (!chosen) return;
    area.value = chosen.text;
    area.setSelectionRange(chosen.caret, chosen.caret);
    p.onInput(chosen.text);
    p.onCompletionsChanged?.();
  };
  const onKeydown = (e: KeyboardEvent) => {
    const area = e.target as HTMLTextAreaElement;
    if (list?.open && !e.isComposing) {
      switch (e.key) {
        case 'ArrowDown':
        case 'ArrowUp':
          e.preventDefault();
          list.move(e.key === 'ArrowDown' ? 1 : -1);
          p.onCompletionsChanged?.();
          return;
        case 'Enter':
        case 'Tab':
          if (e.shiftKey) break;
          e.preventDefault();
          choose(area);
          return;
        case 'Escape':
          // Closes the list only: the view's Escape (stop the turn) must not see it.
          e.preventDefault();
          e.stopPropagation();
          list.dismiss();
          p.onCompletionsChanged?.();
          return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      p.onSend();
    }
  };
  const open = list?.open === true;
  const hint = pendingHint(p.draft, commands);
  return html`<div id="composer">
    ${open ? commandList(list!, (i) => {
      const area = document.getElementById('prompt-input') as HTMLTextAreaElement | null;
      list!.select(i);
      if (area) {
        choose(area);
        area.focus();
      }
    }) : nothing}
    <textarea id="prompt-input" rows="3" aria-label="Message the agent"
      aria-autocomplete=${commands.length > 0 ? 'list' : 'none'}
      aria-controls=${open ? listId : nothing}
      aria-activedescendant=${open ? optionId(list!.active) : nothing}
      placeholder=${p.live ? 'The agent is working… (Escape stops)' : `Ask the agent (Enter sends, Shift+Enter for a newline${commands.length > 0 ? ', / for commands' : ''})`}
      .value=${p.draft}
      @input=${(e: Event) => {
        const area = e.target as HTMLTextAreaElement;
        p.onInput(area.value);
        refresh(area);
      }}
      @click=${(e: Event) => refresh(e.target as HTMLTextAreaElement)}
      @keyup=${(e: KeyboardEvent) => {
        if (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End') refresh(e.target as HTMLTextAreaElement);
      }}
      @blur=${() => {
        if (list?.open) {
          list.dismiss();
          p.onCompletionsChanged?.();
        }
      }}
      @keydown=${onKeydown}></textarea>
    ${hint ? html`<div id="command-hint" class="command-hint-line"><span class="codicon codicon-info"></span> /${hint.name}: ${hint.hint}</div>` : nothing}
    <div class="composer-buttons">
      <vscode-button id="send" icon="send" ?disabled=${p.live || p.draft.trim() === ''} @click=${() => p.onSend()}>Send</vscode-button>
      <vscode-button id="stop" icon="debug-stop" secondary ?disabled=${!p.live} @click=${() => p.onStop()}>Stop</vscode-button>
    </div>
  </div>`;
}

/** The listbox of matching commands; text goes through lit bindings only, so an agent's names stay text. */
function commandList(list: CommandCompletions, pick: (index: number) => void): TemplateResult {
  return html`<ul id=${listId} role="listbox" aria-label="Agent commands">
    ${list.shown.map((c, i) => html`<li id=${optionId(i)} role="option" aria-selected=${i === list.active ? 'true' : 'false'}
        class="command-option ${i === list.active ? 'active' : ''}" data-command=${c.name}
        @mousedown=${(e: MouseEvent) => {
          // Keeps the focus in the input while the mouse chooses.
          e.preventDefault();
          pick(i);
        }}>
        <span class="command-name">/${c.name}</span>
        <span class="command-description">${c.description}</span>
        ${c.hint ? html`<span class="command-input-hint">${c.hint}</span>` : nothing}
      </li>`)}
  </ul>`;
}
