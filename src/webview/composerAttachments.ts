// What the composer attaches, and from where: the `@` picker's picks, pasted or dropped images, files dropped
// from the Explorer and the Problems button (both checked by the host, which answers with `addMentions`), and
// the chips the host pushes (Add File / Selection to Vigil). The session app renders what this holds.

import { contextLimits, type MentionItem, type PromptMention } from '../shared/promptContext';
import { Attachments, chipsTemplate, readImage } from './attachments';
import type { ComposerContext } from './composer';
import type { Intent } from './hostBridge';
import { MentionPicker, pickerListId, pickerTemplate } from './mentionPicker';

export interface ComposerHost {
  post(intent: Intent): string;
  sessionId(): string | undefined;
  rerender(): void;
  draft(): string;
  /** A pick replaced the `@query` in the draft: the new text, and where the cursor goes. */
  replaceDraft(text: string, cursor: number): void;
  focusInput(): void;
}

export class ComposerAttachments {
  readonly picker = new MentionPicker();
  readonly attachments = new Attachments();
  /** Why the last attachment was refused (shown under the input until the next change). */
  problem: string | undefined;
  /** Drops and Problems asked of the host, answered with `addMentions`. */
  private readonly asked = new Set<string>();

  constructor(private readonly h: ComposerHost) {}

  context(): ComposerContext {
    return {
      chips: chipsTemplate(this.attachments.chips, (id) => {
        this.attachments.remove(id);
        this.problem = undefined;
        this.h.rerender();
        this.h.focusInput();
      }),
      picker: pickerTemplate(this.picker, (i) => this.pick(i)),
      pickerOpen: this.picker.open,
      activeDescendant: this.picker.activeDescendant,
      listId: pickerListId,
      hasAttachments: this.attachments.chips.length > 0,
      imagesAccepted: this.picker.imagesAccepted,
      problem: this.problem,
      onKey: (e) => {
        const taken = this.picker.key(e.key);
        if (taken === 'pick') this.pick();
        else if (taken) this.h.rerender();
        return taken !== undefined;
      },
      onCursor: (text, cursor) => {
        const wasOpen = this.picker.open;
        const query = this.picker.onInput(text, cursor);
        if (query !== undefined) this.picker.pendingRequest = this.h.post({ type: 'mentionQuery', sessionId: this.h.sessionId(), query });
        if (query !== undefined || wasOpen !== this.picker.open) this.h.rerender();
      },
      onFiles: (files) => void this.addImages(files),
      onUris: (uris) => this.ask({ type: 'dropUris', sessionId: this.h.sessionId(), uris: uris.slice(0, contextLimits.attachments) }),
      onProblems: () => this.ask({ type: 'activeProblems', sessionId: this.h.sessionId() }),
    };
  }

  private ask(intent: Intent): void {
    this.asked.add(this.h.post(intent));
    if (this.asked.size > 20) this.asked.delete(this.asked.values().next().value as string);
  }

  /** The host's chips: answers to a drop or the Problems button (`requestId`), or pushed by a command. */
  added(requestId: string | undefined, items: readonly MentionItem[], note: string | undefined): void {
    if (requestId !== undefined && !this.asked.delete(requestId)) return;
    let refused: string | undefined;
    for (const item of items) refused ??= this.attachments.add(item);
    this.problem = [note, refused].filter(Boolean).join(' ') || undefined;
    this.h.rerender();
    this.h.focusInput();
  }

  /** Takes a picker item as a chip and removes its `@query` from the draft. */
  pick(index?: number): void {
    const picked = this.picker.pick(this.h.draft(), index);
    if (!picked) return;
    this.problem = this.attachments.add(picked.item);
    this.h.replaceDraft(picked.text, picked.cursor);
  }

  private async addImages(files: readonly File[]): Promise<void> {
    for (const file of files) {
      const image = await readImage(file, this.picker.imagesAccepted, this.attachments.images);
      this.problem = typeof image === 'string' ? image : this.attachments.add(image);
      if (this.problem) break;
    }
    this.h.rerender();
  }

  /** Sent: the chips go with the message. */
  sent(): PromptMention[] {
    const mentions = this.attachments.mentions();
    this.attachments.clear();
    this.picker.close();
    this.problem = undefined;
    return mentions;
  }
}
