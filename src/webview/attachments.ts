// The attachments of the message being written: chips for picked mentions and images, each removable,
// with the bounds checked before anything is read or sent (the host checks them again).

import { html, nothing, type TemplateResult } from 'lit';
import { contextLimits, imageMimeTypes, mentionLabel, type ImageMimeType, type PromptMention } from '../shared/promptContext';

export interface Chip {
  id: string;
  mention: PromptMention;
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** Why an image cannot be attached, or undefined. `imagesAccepted`: what the host said of the agent (undefined: not known yet). */
export function imageProblem(name: string, type: string, size: number, imagesAccepted: boolean | undefined, imagesSoFar: number): string | undefined {
  if (imagesAccepted === false) return 'This agent does not take images: describe the image in words, or choose an agent that takes images.';
  if (!(imageMimeTypes as readonly string[]).includes(type)) return `"${name}" is not a PNG, JPEG, GIF or WebP image.`;
  if (size > contextLimits.imageBytes) return `"${name}" is ${mb(size)}; images of at most ${mb(contextLimits.imageBytes)} can be attached.`;
  if (imagesSoFar >= contextLimits.images) return `At most ${contextLimits.images} images can be attached to one message.`;
  return undefined;
}

export class Attachments {
  chips: Chip[] = [];
  private next = 1;

  /** Adds a mention; returns why not when a bound refuses it. The same file or text twice is kept once. */
  add(mention: PromptMention): string | undefined {
    if (this.chips.length >= contextLimits.attachments) return `At most ${contextLimits.attachments} attachments per message.`;
    const key = keyOf(mention);
    if (this.chips.some((c) => keyOf(c.mention) === key)) return undefined;
    this.chips = [...this.chips, { id: `chip-${this.next++}`, mention }];
    return undefined;
  }

  remove(id: string): void {
    this.chips = this.chips.filter((c) => c.id !== id);
  }

  clear(): void {
    this.chips = [];
  }

  get images(): number {
    return this.chips.filter((c) => c.mention.kind === 'image').length;
  }

  mentions(): PromptMention[] {
    return this.chips.map((c) => c.mention);
  }

  restore(mentions: readonly PromptMention[]): void {
    this.chips = [];
    for (const m of mentions) this.add(m);
  }
}

function keyOf(m: PromptMention): string {
  switch (m.kind) {
    case 'file':
      return `file:${m.path}`;
    case 'selection':
      return `selection:${m.path}:${m.startLine}:${m.endLine}:${m.text.length}`;
    case 'problems':
      return `problems:${m.path ?? ''}`;
    case 'image':
      return `image:${m.name}:${m.data.length}:${m.data.slice(-32)}`;
  }
}

/** Reads an image the person pasted, dropped or picked; the bounds are checked before reading. */
export async function readImage(file: File, imagesAccepted: boolean | undefined, imagesSoFar: number): Promise<PromptMention | string> {
  const name = (file.name || 'pasted image').slice(0, contextLimits.nameChars);
  const problem = imageProblem(name, file.type, file.size, imagesAccepted, imagesSoFar);
  if (problem) return problem;
  const bytes = new Uint8Array(await file.arrayBuffer());
  return { kind: 'image', name, mimeType: file.type as ImageMimeType, data: toBase64(bytes) };
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) binary += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(binary);
}

const chipIcon: Record<PromptMention['kind'], string> = { file: 'file', selection: 'selection', problems: 'warning', image: 'file-media' };

export function chipsTemplate(chips: readonly Chip[], onRemove: (id: string) => void): TemplateResult | typeof nothing {
  if (chips.length === 0) return nothing;
  return html`<ul class="attachment-chips" aria-label="Attachments">
    ${chips.map((c) => {
      const label = mentionLabel(c.mention);
      return html`<li class="chip" data-kind=${c.mention.kind} data-chip-id=${c.id} title=${label}>
        <span class="codicon codicon-${chipIcon[c.mention.kind]}"></span><span class="chip-label">${label}</span>
        <button class="chip-remove" type="button" aria-label=${`Remove ${label}`} @click=${() => onRemove(c.id)}><span class="codicon codicon-close"></span></button>
      </li>`;
    })}
  </ul>`;
}
