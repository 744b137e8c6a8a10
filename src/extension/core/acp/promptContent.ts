// Builds the ACP content blocks of a prompt from its text and checked attachments, as far as the
// agent's `promptCapabilities` allow: files as `resource_link` (every agent takes those), chosen text
// as embedded `resource` blocks only where `embeddedContext`, images only where `image`.

import type { ContentBlock, PromptCapabilities } from '@agentclientprotocol/sdk';
import type { PromptAttachment } from '../../../shared/promptContext';
import { fencedBlock } from '../../../shared/codeFence';
import { VigilError } from '../common/errors';

/** Why the agent cannot take these attachments, or undefined when it can. */
export function refusalFor(attachments: readonly PromptAttachment[], caps: PromptCapabilities | null | undefined, agentLabel = 'This agent'): string | undefined {
  const images = attachments.filter((a) => a.kind === 'image');
  if (images.length > 0 && caps?.image !== true) {
    return `${agentLabel} does not take images (it does not advertise the "image" prompt capability). Remove ${images.length === 1 ? `"${images[0].name}"` : `the ${images.length} images`}, or describe ${images.length === 1 ? 'it' : 'them'} in words.`;
  }
  return undefined;
}

export function promptBlocks(text: string, attachments: readonly PromptAttachment[] | undefined, caps: PromptCapabilities | null | undefined): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (text !== '' || !attachments?.length) blocks.push({ type: 'text', text });
  for (const a of attachments ?? []) {
    switch (a.kind) {
      case 'file':
        blocks.push({ type: 'resource_link', uri: a.uri, name: a.name, size: a.size, ...(a.mimeType ? { mimeType: a.mimeType } : {}) });
        break;
      case 'text':
        blocks.push(
          caps?.embeddedContext === true
            ? { type: 'resource', resource: { uri: a.uri, mimeType: 'text/plain', text: a.text } }
            : { type: 'text', text: `${a.source === 'selection' ? `Selected text from ${a.name}` : 'The Problems list'} (${a.uri}):\n${fencedBlock(a.text)}` },
        );
        break;
      case 'image': {
        const refusal = refusalFor([a], caps);
        if (refusal) throw new VigilError('INVALID_INPUT', refusal);
        blocks.push({ type: 'image', mimeType: a.mimeType, data: a.data });
        break;
      }
    }
  }
  return blocks;
}
