// The built-in agent's reading of an ACP prompt: text as is, a `resource_link` as a path the model
// can open with its read_file tool, an embedded `resource` as fenced text, and an `image` passed to
// the model where the provider takes images (else a note saying it was left out).

import { fileURLToPath } from 'node:url';
import { isAbsolute, relative } from 'node:path';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import { base64Bytes, contextLimits, imageMimeTypes } from '../shared/promptContext';
import { fencedBlock } from '../shared/codeFence';
import type { ChatMessage, ImageInput } from './providers/types';

/** Providers whose SDK carries images in a user message. */
export function providerTakesImages(provider: string): boolean {
  return provider === 'anthropic' || provider === 'openai-compatible';
}

/** The user message a prompt becomes. `imagesAccepted`: whether the provider in use takes images. */
export function userMessageOf(blocks: readonly ContentBlock[], cwd: string, imagesAccepted: boolean): Extract<ChatMessage, { role: 'user' }> {
  const parts: string[] = [];
  const images: ImageInput[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        parts.push(b.text);
        break;
      case 'resource_link':
        parts.push(`[Attached file: ${shownPath(b.uri, cwd)}${b.size != null ? ` (${b.size} bytes)` : ''}. Read it with read_file when you need its content.]`);
        break;
      case 'resource':
        if ('text' in b.resource) parts.push(`[Attached ${shownPath(b.resource.uri, cwd)}]\n${fencedBlock(b.resource.text)}`);
        else parts.push(`[Attached binary resource ${shownPath(b.resource.uri, cwd)} (not shown to the model)]`);
        break;
      case 'image':
        // Any ACP client may send images: the same types and bounds as Vigil's composer, or the provider refuses every later turn.
        if (imagesAccepted && !(imageMimeTypes as readonly string[]).includes(b.mimeType)) parts.push(`[An image of type ${b.mimeType.slice(0, 40)} was attached; only PNG, JPEG, GIF and WebP are taken, so it was left out.]`);
        else if (imagesAccepted && (images.length >= contextLimits.images || base64Bytes(b.data) > contextLimits.imageBytes)) parts.push('[An image was attached beyond the size or count the agent takes; it was left out.]');
        else if (imagesAccepted) images.push({ mimeType: b.mimeType, data: b.data });
        else parts.push('[An image was attached, but the configured model provider does not take images here; it was left out.]');
        break;
      default:
        parts.push(`[${b.type} content omitted: the built-in agent does not read it]`);
    }
  }
  return { role: 'user', text: parts.join('\n'), ...(images.length > 0 ? { images } : {}) };
}

/** A file URI as a path relative to the workspace when it is inside, else as given. */
function shownPath(uri: string, cwd: string): string {
  if (!uri.startsWith('file:')) return uri;
  try {
    const abs = fileURLToPath(uri.replace(/#.*$/, ''));
    const rel = relative(cwd, abs);
    const line = /#L(\d+)(?:-L?(\d+))?$/.exec(uri);
    const where = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
    return line ? `${where} lines ${line[1]}-${line[2] ?? line[1]}` : where;
  } catch {
    return uri;
  }
}
