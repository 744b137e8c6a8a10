// The composer's `@` picker: finds the `@query` being typed at the cursor, keeps the host's matches
// and the highlighted one, and renders them as an accessible listbox (the textarea keeps focus and
// points at the active option with aria-activedescendant). Arrow keys move, Enter/Tab pick, Escape closes.

import { html, nothing, type TemplateResult } from 'lit';
import { contextLimits, mentionLabel, type MentionItem } from '../shared/promptContext';

export interface MentionToken {
  /** Index of the `@`. */
  start: number;
  /** The cursor: the token is `text.slice(start, end)`. */
  end: number;
  query: string;
}

export const pickerListId = 'mention-list';
export const optionId = (i: number) => `mention-opt-${i}`;

/** The `@query` that ends at the cursor, if the person is typing one (an `@` at the start or after a space). */
export function mentionTokenAt(text: string, cursor: number): MentionToken | undefined {
  const before = text.slice(0, cursor);
  const at = before.lastIndexOf('@');
  if (at < 0) return undefined;
  if (at > 0 && !/\s/.test(before[at - 1])) return undefined;
  const query = before.slice(at + 1);
  if (/\s/.test(query) || query.length > contextLimits.queryChars) return undefined;
  return { start: at, end: cursor, query };
}

export type PickerKey = 'moved' | 'pick' | 'closed' | undefined;

export class MentionPicker {
  token: MentionToken | undefined;
  items: MentionItem[] = [];
  active = 0;
  note: string | undefined;
  /** The request whose answer is awaited; older answers are dropped. */
  pendingRequest: string | undefined;
  /** Whether the session's agent takes images, once the host knows. */
  imagesAccepted: boolean | undefined;
  private lastQuery: string | undefined;

  get open(): boolean {
    return this.token !== undefined;
  }

  /** After every edit or cursor move: returns the query to ask the host for, when it changed. */
  onInput(text: string, cursor: number): string | undefined {
    const token = mentionTokenAt(text, cursor);
    this.token = token;
    if (!token) {
      this.lastQuery = undefined;
      return undefined;
    }
    if (token.query === this.lastQuery) return undefined;
    this.lastQuery = token.query;
    return token.query;
  }

  /** The host's answer; dropped unless it answers the latest query. */
  results(requestId: string, items: MentionItem[], note?: string, images?: boolean): boolean {
    if (requestId !== this.pendingRequest) return false;
    this.pendingRequest = undefined;
    this.items = items;
    this.note = note;
    if (images !== undefined) this.imagesAccepted = images;
    this.active = 0;
    return true;
  }

  key(key: string): PickerKey {
    if (!this.open) return undefined;
    switch (key) {
      case 'ArrowDown':
        if (this.items.length > 0) this.active = (this.active + 1) % this.items.length;
        return 'moved';
      case 'ArrowUp':
        if (this.items.length > 0) this.active = (this.active - 1 + this.items.length) % this.items.length;
        return 'moved';
      case 'Home':
        this.active = 0;
        return 'moved';
      case 'End':
        this.active = Math.max(0, this.items.length - 1);
        return 'moved';
      case 'Enter':
      case 'Tab':
        return this.items.length > 0 ? 'pick' : undefined;
      case 'Escape':
        this.close();
        return 'closed';
      default:
        return undefined;
    }
  }

  /** Takes the item at `index` (default: the active one) and the draft without its `@query`. */
  pick(text: string, index = this.active): { item: MentionItem; text: string; cursor: number } | undefined {
    const token = this.token;
    const item = this.items[index];
    if (!token || !item) return undefined;
    this.close();
    const rest = text.slice(token.end).replace(/^ /, '');
    return { item, text: text.slice(0, token.start) + rest, cursor: token.start };
  }

  close(): void {
    this.token = undefined;
    this.items = [];
    this.active = 0;
    this.note = undefined;
    this.pendingRequest = undefined;
    // The same `@query` typed again after a close asks again.
    this.lastQuery = undefined;
  }

  get activeDescendant(): string | undefined {
    return this.open && this.items.length > 0 ? optionId(this.active) : undefined;
  }
}

const icon: Record<MentionItem['kind'], string> = { file: 'file', selection: 'selection', problems: 'warning' };

export function pickerTemplate(picker: MentionPicker, onPick: (index: number) => void): TemplateResult | typeof nothing {
  if (!picker.open) return nothing;
  const loading = picker.pendingRequest !== undefined && picker.items.length === 0;
  return html`<div class="mention-picker">
    <ul id=${pickerListId} role="listbox" aria-label="Mention a file, the selection or the Problems list">
      ${picker.items.map(
        (item, i) => html`<li id=${optionId(i)} role="option" class="mention-option ${i === picker.active ? 'active' : ''}" aria-selected=${i === picker.active ? 'true' : 'false'}
          data-kind=${item.kind} @mousedown=${(e: Event) => { e.preventDefault(); onPick(i); }}>
          <span class="codicon codicon-${icon[item.kind]}"></span> <span class="mention-label">${item.kind === 'file' ? item.path : item.kind === 'selection' ? `Selection ${mentionLabel(item)}` : mentionLabel(item)}</span>
        </li>`,
      )}
    </ul>
    ${loading ? html`<div class="mention-note">Searching…</div>` : !loading && picker.items.length === 0 ? html`<div class="mention-note">No matches.</div>` : nothing}
    ${picker.note ? html`<div class="mention-note">${picker.note}</div>` : nothing}
  </div>`;
}
