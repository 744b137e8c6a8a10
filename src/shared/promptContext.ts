// Context a prompt carries besides its text: the mentions a person picks in the composer (webview →
// host), the checked attachments the host hands the agent handle, and the short record of them the
// transcript keeps. One module so both sides agree on every bound.

/** Bounds on what one prompt may carry; each refusal names the bound. */
export const contextLimits = {
  /** Mentions and images together in one prompt. */
  attachments: 10,
  images: 4,
  /** Decoded bytes of one image. */
  imageBytes: 5 * 1024 * 1024,
  /** Characters of one embedded text (a selection, the Problems list). */
  embeddedChars: 100_000,
  /** Problems listed in one `@problems` mention. */
  problems: 200,
  nameChars: 256,
  pathChars: 4_096,
  queryChars: 200,
  /** Files offered by one mention query. */
  mentionResults: 50,
} as const;

/** Base64 characters of an image at the byte bound (4 per 3 bytes, padded). */
export const maxImageBase64Chars = Math.ceil(contextLimits.imageBytes / 3) * 4;

export const imageMimeTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMimeType = (typeof imageMimeTypes)[number];

/** What a mention query offers; the same shape comes back in the prompt once picked. */
export type MentionItem =
  /** `path` as the host listed it: relative to the session's workspace folder. */
  | { kind: 'file'; path: string }
  /** The active editor's selection, taken when it was picked (1-based inclusive lines). */
  | { kind: 'selection'; path: string; startLine: number; endLine: number; text: string }
  /** The Problems list, taken when it was picked; `path`: of that file only (the active file's). */
  | { kind: 'problems'; count: number; text: string; path?: string };

export type PromptMention = MentionItem | { kind: 'image'; name: string; mimeType: ImageMimeType; data: string };

/** What the agent handle is given, already checked by the host (paths resolved, sizes known). */
export type PromptAttachment =
  | { kind: 'file'; uri: string; name: string; mimeType?: string; size: number }
  /** Text the person chose (selection, problems): an embedded resource where the agent takes them. */
  | { kind: 'text'; source: 'selection' | 'problems'; uri: string; name: string; text: string }
  | { kind: 'image'; name: string; mimeType: ImageMimeType; data: string; size: number };

/** What the transcript keeps of an attachment: names and links, never the bytes or the text. */
export interface AttachmentSummary {
  kind: 'file' | 'selection' | 'problems' | 'image';
  name: string;
  uri?: string;
  size?: number;
}

export function summarize(a: PromptAttachment): AttachmentSummary {
  switch (a.kind) {
    case 'file':
      return { kind: 'file', name: a.name, uri: a.uri, size: a.size };
    case 'text':
      return { kind: a.source, name: a.name, uri: a.uri, size: a.text.length };
    case 'image':
      return { kind: 'image', name: a.name, size: a.size };
  }
}

/** A prompt's text as an agent's plain history keeps it: the names of what was attached follow the text. */
export function historyText(text: string, attachments: ReadonlyArray<{ name: string }> | undefined): string {
  return attachments?.length ? `${text}\n[attached: ${attachments.map((a) => a.name).join(', ')}]` : text;
}

/** The chip label of a mention, as the composer shows it. */
export function mentionLabel(m: PromptMention): string {
  switch (m.kind) {
    case 'file':
      return m.path;
    case 'selection':
      return `${m.path}:${m.startLine}${m.endLine !== m.startLine ? `-${m.endLine}` : ''}`;
    case 'problems':
      return m.path !== undefined ? `Problems of ${m.path} (${m.count})` : `Problems (${m.count})`;
    case 'image':
      return m.name;
  }
}

/** Bytes a base64 string decodes to (no decoding needed). */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
