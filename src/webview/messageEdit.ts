// Edit, Retry and Regenerate in the transcript (shared/lastExchange.ts says which exchange may be redone). Edit turns
// the person's last message into an editor (its attachments stay with it): Enter sends, Shift+Enter adds a line,
// Escape cancels. Retry and Regenerate sit under the last exchange. The host checks every request again, and an
// edit it refused comes back into the editor, so no text is lost. Exchanges a later one replaced in the built-in
// agent's history stay in the transcript, dimmed, with what the agent saw said on the message that replaced them.

import { css, html, nothing, type TemplateResult } from 'lit';
import { replacedEntries, type LastExchange } from '../shared/lastExchange';
import type { EntryView, RedoView } from '../shared/sessionView';
import type { Intent } from './hostBridge';

type UserEntry = Extract<EntryView, { kind: 'user' }>;

export interface MessageEditHost {
  post(intent: Intent): string;
  sessionId(): string | undefined;
  rerender(): void;
  /** A message went out again: the transcript follows its tail, as after Send. */
  sent(): void;
}

export class MessageEdits {
  private editing: { entryId: string; text: string } | undefined;
  /** Edits sent and not yet answered, by request id: an error brings the text back. */
  private readonly pending = new Map<string, { entryId: string; text: string }>();
  private focusPending = false;

  constructor(private readonly host: MessageEditHost) {}

  isEditing(entryId: string): boolean {
    return this.editing?.entryId === entryId;
  }

  start(entry: UserEntry): void {
    this.editing = { entryId: entry.id, text: entry.text };
    this.focusPending = true;
    this.host.rerender();
  }

  /** The host refused a request: an edit of it comes back into the editor, as it was. */
  failed(requestId: string | undefined): void {
    const edit = requestId !== undefined ? this.pending.get(requestId) : undefined;
    if (!edit) return;
    this.pending.delete(requestId!);
    this.editing ??= edit;
    this.focusPending = true;
  }

  /** Retry and Regenerate: one click, the host checks and sends. */
  redo(how: 'retry' | 'regenerate', entryId: string): void {
    this.host.post({ type: 'redo', sessionId: this.host.sessionId(), entryId, how });
    this.host.sent();
  }

  /** The message being edited, as an editor in its place. `live`: a turn runs, so Send waits. */
  template(entry: UserEntry, live: boolean): TemplateResult {
    const edit = this.editing!;
    const empty = edit.text.trim() === '' && !entry.attachments?.length;
    return html`<div class="entry user editing" data-entry-id=${entry.id}>
      <div class="who"><span class="codicon codicon-edit"></span> Editing your message</div>
      <textarea class="edit-input" aria-label="Edit your message; Enter sends, Escape cancels" .value=${edit.text}
        @input=${(e: Event) => this.typed((e.target as HTMLTextAreaElement).value, empty)}
        @keydown=${(e: KeyboardEvent) => this.key(e, live)}></textarea>
      ${entry.attachments?.length ? html`<div class="edit-note">Sent again with ${entry.attachments.map((a) => a.name).join(', ')}.</div>` : nothing}
      <div class="edit-buttons">
        <button type="button" class="button secondary edit-cancel" @click=${() => this.cancel()}>Cancel</button>
        <button type="button" class="button edit-send" ?disabled=${live || empty} title=${live ? 'A turn is running: wait for it or stop it first' : 'Send the edited message (Enter)'}
          @click=${() => this.send()}><span class="codicon codicon-send" aria-hidden="true"></span>Send</button>
      </div>
    </div>`;
  }

  afterRender(root: HTMLElement): void {
    if (!this.focusPending) return;
    const input = root.querySelector<HTMLTextAreaElement>('.edit-input');
    if (!input) return;
    this.focusPending = false;
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  }

  private typed(text: string, wasEmpty: boolean): void {
    if (!this.editing) return;
    this.editing.text = text;
    if (wasEmpty !== (text.trim() === '')) this.host.rerender();
  }

  private key(e: KeyboardEvent, live: boolean): void {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      this.cancel();
    } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      if (!live) this.send();
    }
  }

  private cancel(): void {
    this.editing = undefined;
    this.host.rerender();
  }

  private send(): void {
    const edit = this.editing;
    if (!edit || edit.text.trim() === '') return;
    const id = this.host.post({ type: 'redo', sessionId: this.host.sessionId(), entryId: edit.entryId, how: 'edit', text: edit.text });
    this.pending.set(id, edit);
    if (this.pending.size > 5) this.pending.delete(this.pending.keys().next().value as string);
    this.editing = undefined;
    this.host.sent();
  }
}

/** The replaced entries of a transcript, computed again only when its entries changed. */
export class ReplacedEntries {
  private entries: readonly EntryView[] | undefined;
  private ids = new Set<string>();

  of(entries: readonly EntryView[]): Set<string> {
    if (entries !== this.entries) {
      this.entries = entries;
      this.ids = replacedEntries(entries);
    }
    return this.ids;
  }
}

/** The Edit button on the person's last message. */
export function editButton(entry: UserEntry, edit: (entry: UserEntry) => void): TemplateResult {
  return html`<button class="edit-message" type="button" title="Edit and send again" aria-label="Edit your message and send it again"
    @click=${() => edit(entry)}><span class="codicon codicon-edit" aria-hidden="true"></span></button>`;
}

const redoWords: Record<RedoView['how'], string> = { edit: 'edited', retry: 'retried', regenerate: 'regenerated' };

/** On a message that replaced the exchange before it: how, and what the agent saw of that exchange. */
export function redoLabel(redo: RedoView | undefined): TemplateResult | typeof nothing {
  if (!redo) return nothing;
  const seen = redo.replaced
    ? 'The exchange above was taken out of the agent’s history: it answers this message as if that had not been.'
    : 'Sent as a new message: this agent keeps its own history, so it still has the exchange above.';
  return html`<span class="redo-label" data-how=${redo.how} title=${seen}> · ${redoWords[redo.how]}</span>`;
}

/** Under the last exchange: Retry (a failed, stopped or interrupted turn) and Regenerate (the built-in agent's answer). */
export function turnActions(exchange: LastExchange | undefined, edits: MessageEdits): TemplateResult | typeof nothing {
  if (!exchange || (!exchange.can.retry && !exchange.can.regenerate)) return nothing;
  const { user, answerId } = exchange;
  return html`<div id="turn-actions">
    ${exchange.can.retry
      ? html`<button type="button" class="button secondary retry-turn" title="Send your last message again, as a new turn"
          @click=${() => edits.redo('retry', user.id)}><span class="codicon codicon-refresh" aria-hidden="true"></span>Retry</button>`
      : nothing}
    ${exchange.can.regenerate && answerId
      ? html`<button type="button" class="button secondary regenerate-answer" title="Take this answer out of the agent’s history and ask again"
          @click=${() => edits.redo('regenerate', answerId)}><span class="codicon codicon-sparkle" aria-hidden="true"></span>Regenerate</button>`
      : nothing}
  </div>`;
}

export const messageEditStyles = css`
  .edit-message {
    position: absolute; top: 2px; right: 24px; opacity: 0; padding: 1px 3px; border: none; border-radius: 3px;
    color: var(--vscode-icon-foreground); background: var(--vscode-sideBar-background, var(--vscode-editor-background)); cursor: pointer;
  }
  .entry:hover > .edit-message, .entry:focus-within > .edit-message, .edit-message:focus-visible { opacity: 1; }
  .edit-message:hover { background: var(--vscode-toolbar-hoverBackground); }
  .edit-input {
    display: block; resize: vertical; min-height: 3em; max-height: 40vh; box-sizing: border-box; width: 100%;
    color: var(--vscode-input-foreground); background: var(--vscode-input-background);
    border: 1px solid var(--vscode-focusBorder); border-radius: 2px; padding: 4px 6px;
    font-family: var(--vscode-font-family); font-size: var(--vscode-font-size);
  }
  .edit-note { color: var(--vscode-descriptionForeground); font-size: 0.9em; margin-top: 2px; }
  .edit-buttons { display: flex; gap: 6px; justify-content: flex-end; margin-top: 4px; }
  .redo-label { color: var(--vscode-descriptionForeground); font-style: italic; }
  .replaced { opacity: 0.55; }
  #turn-actions { display: flex; flex-wrap: wrap; gap: 6px; margin: 0 0 10px 0; }
`;
