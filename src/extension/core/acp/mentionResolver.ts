// Turns the mentions a person picked in the composer into checked prompt attachments: a file must be
// a regular file inside the session's workspace folder (no symlink out, no FIFO or device), texts and
// images are bounded. The webview's claims are checked here again; nothing is taken on trust.

import { promises as fs } from 'node:fs';
import { basename, extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { base64Bytes, contextLimits, type PromptAttachment, type PromptMention } from '../../../shared/promptContext';
import { errorMessage, VigilError } from '../common/errors';
import { describeLocation, locatePath } from './workspaceBoundary';

const textTypes: Record<string, string> = {
  '.ts': 'text/x-typescript', '.tsx': 'text/x-typescript', '.js': 'text/javascript', '.mjs': 'text/javascript', '.cjs': 'text/javascript',
  '.json': 'application/json', '.md': 'text/markdown', '.txt': 'text/plain', '.html': 'text/html', '.css': 'text/css',
  '.py': 'text/x-python', '.rs': 'text/x-rust', '.go': 'text/x-go', '.java': 'text/x-java', '.c': 'text/x-c', '.h': 'text/x-c',
  '.cpp': 'text/x-c++', '.sh': 'text/x-shellscript', '.yaml': 'application/yaml', '.yml': 'application/yaml', '.toml': 'application/toml',
  '.xml': 'application/xml', '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif',
  '.webp': 'image/webp', '.pdf': 'application/pdf',
};

/** A mention refused, with what the person can do about it. */
export class MentionError extends VigilError {
  constructor(message: string) {
    super('INVALID_INPUT', message);
  }
}

export function mimeTypeOf(path: string): string | undefined {
  return textTypes[extname(path).toLowerCase()];
}

/** Resolves every mention against `root`; the first refusal throws with its reason (nothing is sent). */
export async function resolveMentions(root: string, mentions: readonly PromptMention[]): Promise<PromptAttachment[]> {
  if (mentions.length > contextLimits.attachments) throw new MentionError(`A message can carry at most ${contextLimits.attachments} attachments; remove ${mentions.length - contextLimits.attachments}.`);
  const images = mentions.filter((m) => m.kind === 'image').length;
  if (images > contextLimits.images) throw new MentionError(`A message can carry at most ${contextLimits.images} images; remove ${images - contextLimits.images}.`);
  const out: PromptAttachment[] = [];
  const seen = new Set<string>();
  for (const m of mentions) {
    const attachment = await resolveOne(root, m);
    // The same file or text picked twice is sent once.
    const key = attachment.kind === 'image' ? `image:${attachment.name}:${attachment.data.length}:${attachment.data.slice(0, 64)}` : `${attachment.kind}:${attachment.uri}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(attachment);
  }
  return out;
}

async function resolveOne(root: string, m: PromptMention): Promise<PromptAttachment> {
  switch (m.kind) {
    case 'file':
      return resolveFile(root, m.path);
    case 'selection': {
      if (m.text.length > contextLimits.embeddedChars) throw new MentionError(`The selection is ${m.text.length} characters; at most ${contextLimits.embeddedChars} can be attached. Select less, or mention the file instead.`);
      if (m.endLine < m.startLine) throw new MentionError('The selection ends before it starts.');
      const name = `${basename(m.path)}:${m.startLine}${m.endLine !== m.startLine ? `-${m.endLine}` : ''}`;
      return { kind: 'text', source: 'selection', uri: `${uriOf(root, m.path)}#L${m.startLine}-L${m.endLine}`, name, text: m.text };
    }
    case 'problems':
      if (m.text.length > contextLimits.embeddedChars) throw new MentionError(`The Problems list is ${m.text.length} characters; at most ${contextLimits.embeddedChars} can be attached.`);
      return { kind: 'text', source: 'problems', uri: 'vigil:problems', name: m.path !== undefined ? `Problems of ${basename(m.path)} (${m.count})` : `Problems (${m.count})`, text: m.text };
    case 'image': {
      const size = base64Bytes(m.data);
      if (size > contextLimits.imageBytes) throw new MentionError(`The image "${m.name}" is ${mb(size)}; images of at most ${mb(contextLimits.imageBytes)} can be attached.`);
      return { kind: 'image', name: m.name, mimeType: m.mimeType, data: m.data, size };
    }
  }
}

async function resolveFile(root: string, path: string): Promise<PromptAttachment> {
  let where;
  try {
    where = await locatePath(root, path);
  } catch (error) {
    throw new MentionError(`Cannot attach "${path}": ${errorMessage(error)}`);
  }
  if (!where.inside) throw new MentionError(`Cannot attach ${describeLocation(where)}: only files inside the session's workspace folder can be mentioned.`);
  if (where.kind === 'missing') throw new MentionError(`Cannot attach "${path}": no such file.`);
  if (where.kind !== 'file') throw new MentionError(`Cannot attach "${path}": it is a ${where.kind}, not a regular file.`);
  const stat = await fs.stat(where.real).catch((error: unknown) => {
    throw new MentionError(`Cannot attach "${path}": ${errorMessage(error)}`);
  });
  return { kind: 'file', uri: pathToFileURL(where.abs).href, name: basename(where.abs), mimeType: mimeTypeOf(where.abs), size: stat.size };
}

function uriOf(root: string, path: string): string {
  try {
    return pathToFileURL(isAbsolutePath(path) ? path : `${root}/${path}`).href;
  } catch {
    return 'vigil:selection';
  }
}

const isAbsolutePath = (p: string) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);
const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
