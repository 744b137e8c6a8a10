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
  /** Files dropped from the Explorer, by the URIs the drag carries (the host checks them). */
  onUris(uris: string[]): void;
  /** The Problems button: the active editor file's Problems. */
  onProblems(): void;
}

/** Drag types that name workspace files: VS Code's own and the standard URI list. */
const uriTypes = ['application/vnd.code.uri-list', 'text/uri-list', 'resourceurls'];

/** The URIs a drag from the Explorer (or an editor tab) carries; none for files from the desktop. */
export function droppedUris(data: DataTransfer | null | undefined): string[] {
  if (!data) return [];
  for (const type of uriTypes) {
    const text = data.getData(type);
    if (!text) continue;
    if (type === 'resourceurls') {
      try {
        const list: unknown = JSON.parse(text);
        return Array.isArray(list) ? list.filter((u): u is string => typeof u === 'string' && u !== '') : [];
      } catch {
        continue;
      }
    }
    return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  }
  return [];
}

const listId = 'command-list';
const optionId = (i: number) => `command-option-${i}`;

export function composer(p: ComposerProps): TemplateResult {
  const list = p.completions;
  const commands = p.commands ?? [];
  const act = completionActions(p, commands);
  const c = p.context;
  const files = imageFiles(c);
  const open = list?.open === true;
  const hint = pendingHint(p.draft, commands);
  return html`<div id="composer" @dragover=${(e: DragEvent) => c && droppable(e) && e.preventDefault()} @drop=${dropHandler(c, files)}>
    ${c?.chips ?? nothing}
    ${open ? commandList(list!, (i) => {
      const area = document.getElementById('prompt-input') as HTMLTextAreaElement | null;
      list!.select(i);
      if (area) {
        act.choose(area);
        area.focus();
      }
    }) : nothing}
    ${promptInput(p, act, files)}
    ${hint ? html`<div id="command-hint" class="command-hint-line"><span class="codicon codicon-info"></span> /${hint.name}: ${hint.hint}</div>` : nothing}
    ${c?.picker ?? nothing}
    ${c?.problem ? html`<div class="composer-problem" role="alert"><span class="codicon codicon-warning"></span> ${c.problem}</div>` : nothing}
    <div class="composer-buttons">
      ${c ? attachButtons(c, files) : nothing}
      <span class="composer-send"><button type="button" class="button" id="send" ?disabled=${p.live || (p.draft.trim() === '' && !c?.hasAttachments)} @click=${() => p.onSend()}><span class="codicon codicon-send" aria-hidden="true"></span>Send</button>
      <button type="button" class="button secondary" id="stop" ?disabled=${!p.live} @click=${() => p.onStop()}><span class="codicon codicon-debug-stop" aria-hidden="true"></span>Stop</button></span>
    </div>
  </div>`;
}

/** What the `/` list does to the input: follow its text and caret, put the chosen command in, close. */
interface CompletionActions {
  refresh(area: HTMLTextAreaElement): void;
  choose(area: HTMLTextAreaElement): void;
  close(): void;
}

function completionActions(p: ComposerProps, commands: readonly AgentCommandView[]): CompletionActions {
  const list = p.completions;
  return {
    refresh: (area) => {
      if (list?.update(area.value, area.selectionStart ?? area.value.length, commands)) p.onCompletionsChanged?.();
    },
    choose: (area) => {
      const chosen = list?.accept(area.value);
      if (!chosen) return;
      area.value = chosen.text;
      area.setSelectionRange(chosen.caret, chosen.caret);
      p.onInput(chosen.text);
      p.onCompletionsChanged?.();
    },
    close: () => {
      if (!list?.open) return;
      list.dismiss();
      p.onCompletionsChanged?.();
    },
  };
}

type FilesHandler = (list: FileList | null | undefined, e: Event) => void;

/** Image files pasted, picked or dropped go to the context; anything else is left to the browser. */
function imageFiles(c: ComposerContext | undefined): FilesHandler {
  return (list, e) => {
    const images = [...(list ?? [])].filter((f) => f.type.startsWith('image/'));
    if (images.length === 0 || !c) return;
    e.preventDefault();
    c.onFiles(images);
  };
}

/** A drop of files named by URIs (the Explorer, an editor tab) attaches them; else its image files. */
function dropHandler(c: ComposerContext | undefined, files: FilesHandler): (e: DragEvent) => void {
  return (e) => {
    const uris = droppedUris(e.dataTransfer);
    if (uris.length === 0 || !c) return files(e.dataTransfer?.files, e);
    e.preventDefault();
    c.onUris(uris);
  };
}

function droppable(e: DragEvent): boolean {
  return [...(e.dataTransfer?.types ?? [])].some((t) => t === 'Files' || uriTypes.includes(t.toLowerCase()));
}

/** The textarea: its accessible name and list relations, the placeholder that says how to use it, its events. */
function promptInput(p: ComposerProps, act: CompletionActions, files: FilesHandler): TemplateResult {
  const c = p.context;
  const commands = p.commands ?? [];
  const open = p.completions?.open === true;
  // One list is open at a time: `/` commands at the start, `@` mentions inside a word.
  const ariaControls = open ? listId : c?.pickerOpen ? c.listId : undefined;
  const ariaActive = open ? optionId(p.completions!.active) : c?.activeDescendant;
  const autocomplete = commands.length > 0 || c ? 'list' : 'none';
  // Short enough for three lines of a 300 px side bar: a longer one was cut off mid-sentence there.
  const usage = [...(c ? ['@ mentions a file'] : []), ...(commands.length > 0 ? ['/ commands'] : []), 'Enter sends', 'Shift+Enter a new line'].join(', ');
  const cursor = (e: Event) => {
    const t = e.target as HTMLTextAreaElement;
    c?.onCursor(t.value, t.selectionStart ?? t.value.length);
  };
  return html`<textarea id="prompt-input" rows="3" aria-label="Message the agent"
      aria-autocomplete=${autocomplete}
      aria-controls=${ariaControls ?? nothing}
      aria-expanded=${c ? (c.pickerOpen || open ? 'true' : 'false') : nothing}
      aria-activedescendant=${ariaActive ?? nothing}
      placeholder=${p.live ? 'The agent is working… (Escape stops)' : `Ask the agent (${usage})`}
      .value=${p.draft}
      @input=${(e: Event) => {
        const area = e.target as HTMLTextAreaElement;
        p.onInput(area.value);
        act.refresh(area);
        cursor(e);
      }}
      @click=${(e: Event) => {
        act.refresh(e.target as HTMLTextAreaElement);
        cursor(e);
      }}
      @keyup=${(e: KeyboardEvent) => {
        if (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End') {
          act.refresh(e.target as HTMLTextAreaElement);
          cursor(e);
        }
      }}
      @paste=${(e: ClipboardEvent) => files(e.clipboardData?.files, e)}
      @blur=${() => act.close()}
      @keydown=${keydownHandler(p, act)}></textarea>`;
}

/** A key goes first to the open `/` list, then to the `@` picker; Enter without Shift sends. */
function keydownHandler(p: ComposerProps, act: CompletionActions): (e: KeyboardEvent) => void {
  const list = p.completions;
  return (e) => {
    // Keys that confirm an IME composition belong to the IME: no list pick, no send.
    if (e.isComposing) return;
    const area = e.target as HTMLTextAreaElement;
    if (list?.open) {
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
          act.choose(area);
          return;
        case 'Escape':
          // Closes the list only: the view's Escape (stop the turn) must not see it.
          e.preventDefault();
          e.stopPropagation();
          act.close();
          return;
      }
    }
    if (p.context?.onKey(e)) {
      e.preventDefault();
      e.stopPropagation();
      return;
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      p.onSend();
    }
  };
}

/** Image… (a file input behind a button) and Problems, shown when the view takes context. */
function attachButtons(c: ComposerContext, files: FilesHandler): TemplateResult {
  return html`<span class="composer-attach"><input id="attach-image-input" type="file" accept="image/png,image/jpeg,image/gif,image/webp" multiple hidden
              @change=${(e: Event) => {
                const input = e.target as HTMLInputElement;
                files(input.files, e);
                input.value = '';
              }} />
            <button type="button" class="button secondary" id="attach-image" ?disabled=${c.imagesAccepted === false}
              title=${c.imagesAccepted === false ? 'This agent does not take images' : 'Attach an image (or paste one)'}
              @click=${(e: Event) => ((e.currentTarget as HTMLElement).parentElement?.querySelector('#attach-image-input') as HTMLInputElement | null)?.click()}><span class="codicon codicon-file-media" aria-hidden="true"></span>Image…</button>
            <button type="button" class="button secondary" id="attach-problems" title="Attach the Problems of the file open in the editor"
              @click=${() => c.onProblems()}><span class="codicon codicon-warning" aria-hidden="true"></span>Problems</button></span>`;
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
