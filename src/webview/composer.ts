// The input box with Send and Stop. Enter sends, Shift+Enter is a newline; Escape (anywhere in the
// view) stops the turn, handled by the app.

import { html, nothing, type TemplateResult } from 'lit';

export interface ComposerProps {
  live: boolean;
  draft: string;
  onInput(text: string): void;
  onSend(): void;
  onStop(): void;
  /** Context (mentions.ts, attachments.ts): the chips above the input and the `@` picker below it. */
  context?: ComposerContext;
}

export interface ComposerContext {
  chips: TemplateResult | typeof nothing;
  picker: TemplateResult | typeof nothing;
  pickerOpen: boolean;
  activeDescendant?: string;
  listId: string;
  /** Something is attached: Send is enabled without text. */
  hasAttachments: boolean;
  /** False once the host said the session's agent does not take images. */
  imagesAccepted?: boolean;
  /** A bound refused an attachment, or the agent does not take images. */
  problem?: string;
  /** Keys the picker takes first (arrows, Enter, Tab, Escape while it is open); true when taken. */
  onKey(e: KeyboardEvent): boolean;
  /** The cursor moved or the text changed. */
  onCursor(text: string, cursor: number): void;
  onFiles(files: readonly File[]): void;
}

export function composer(p: ComposerProps): TemplateResult {
  const c = p.context;
  const onKeydown = (e: KeyboardEvent) => {
    if (c?.onKey(e)) {
      e.preventDefault();
      e.stopPropagation();
      return;
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      p.onSend();
    }
  };
  const cursor = (e: Event) => {
    const t = e.target as HTMLTextAreaElement;
    c?.onCursor(t.value, t.selectionStart ?? t.value.length);
  };
  const files = (list: FileList | null | undefined, e: Event) => {
    const images = [...(list ?? [])].filter((f) => f.type.startsWith('image/'));
    if (images.length === 0 || !c) return;
    e.preventDefault();
    c.onFiles(images);
  };
  return html`<div id="composer" @dragover=${(e: DragEvent) => c && e.dataTransfer?.types.includes('Files') && e.preventDefault()}
      @drop=${(e: DragEvent) => files(e.dataTransfer?.files, e)}>
    ${c?.chips ?? nothing}
    <textarea id="prompt-input" rows="3" aria-label="Message the agent"
      placeholder=${p.live ? 'The agent is working… (Escape stops)' : c ? 'Ask the agent (@ mentions a file, the selection or Problems; Enter sends, Shift+Enter for a newline)' : 'Ask the agent (Enter sends, Shift+Enter for a newline)'}
      aria-controls=${c?.pickerOpen ? c.listId : nothing}
      aria-expanded=${c ? (c.pickerOpen ? 'true' : 'false') : nothing}
      aria-autocomplete=${c ? 'list' : nothing}
      aria-activedescendant=${c?.activeDescendant ?? nothing}
      .value=${p.draft}
      @input=${(e: Event) => {
        p.onInput((e.target as HTMLTextAreaElement).value);
        cursor(e);
      }}
      @click=${cursor}
      @keyup=${(e: KeyboardEvent) => (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End') && cursor(e)}
      @paste=${(e: ClipboardEvent) => files(e.clipboardData?.files, e)}
      @keydown=${onKeydown}></textarea>
    ${c?.picker ?? nothing}
    ${c?.problem ? html`<div class="composer-problem" role="alert"><span class="codicon codicon-warning"></span> ${c.problem}</div>` : nothing}
    <div class="composer-buttons">
      ${c
        ? html`<input id="attach-image-input" type="file" accept="image/png,image/jpeg,image/gif,image/webp" multiple hidden
              @change=${(e: Event) => {
                const input = e.target as HTMLInputElement;
                files(input.files, e);
                input.value = '';
              }} />
            <vscode-button id="attach-image" secondary icon="file-media" ?disabled=${c.imagesAccepted === false}
              title=${c.imagesAccepted === false ? 'This agent does not take images' : 'Attach an image (or paste one)'}
              @click=${(e: Event) => ((e.currentTarget as HTMLElement).parentElement?.querySelector('#attach-image-input') as HTMLInputElement | null)?.click()}>Image…</vscode-button>`
        : nothing}
      <vscode-button id="send" icon="send" ?disabled=${p.live || (p.draft.trim() === '' && !c?.hasAttachments)} @click=${() => p.onSend()}>Send</vscode-button>
      <vscode-button id="stop" icon="debug-stop" secondary ?disabled=${!p.live} @click=${() => p.onStop()}>Stop</vscode-button>
    </div>
  </div>`;
}
