// Files handed to Vigil from outside the composer (Add File to Vigil, a drop from the Explorer) become the
// same `@` mentions the composer's picker makes, by the same rule: a regular file inside the session's
// folder, reached without a link out of it. Everything else is refused with why; nothing is read.

import * as path from 'node:path';
import { contextLimits, type MentionItem } from '../../shared/promptContext';
import { errorMessage } from '../core/common/errors';
import { isInside, locatePath } from '../core/acp/workspaceBoundary';

export interface FoundMentions {
  items: MentionItem[];
  /** What was refused, and why, in words a person acts on. */
  note?: string;
}

/** `paths`: absolute paths on this machine, as a drag or a command named them (hostile until checked). */
export async function fileMentions(root: string | undefined, paths: readonly string[]): Promise<FoundMentions> {
  const items: MentionItem[] = [];
  const refused: string[] = [];
  if (root === undefined) return { items, note: 'Open a folder to mention its files.' };
  for (const file of paths.slice(0, contextLimits.attachments)) {
    const found = await fileMention(root, file);
    if (typeof found === 'string') refused.push(found);
    else if (!items.some((i) => i.kind === 'file' && i.path === found.path)) items.push(found);
  }
  if (paths.length > contextLimits.attachments) refused.push(`Only ${contextLimits.attachments} files can be attached to one message; the other ${paths.length - contextLimits.attachments} were left out.`);
  return { items, ...(refused.length > 0 ? { note: refused.join(' ') } : {}) };
}

async function fileMention(root: string, file: string): Promise<MentionItem | string> {
  const shown = JSON.stringify(shorten(file));
  if (!path.isAbsolute(file)) return `${shown} is not a file on this machine.`;
  let where;
  try {
    where = await locatePath(root, file);
  } catch (error) {
    return `${shown} cannot be attached: ${errorMessage(error)}`;
  }
  if (where.kind === 'missing') return `${shown} does not exist.`;
  if (!where.inside) return `${shown} is outside the session's folder; only files inside it can be mentioned.`;
  if (where.kind === 'folder') return `${shown} is a folder; mention the files in it instead.`;
  if (where.kind !== 'file') return `${shown} is a ${where.kind}, not a regular file.`;
  // The spelling the person used when it lies in the folder; else (reached through a link inside) the real place.
  const rel = isInside(path.resolve(root), where.abs) ? path.relative(path.resolve(root), where.abs) : path.relative(where.rootReal, where.real);
  const mention = rel.split(path.sep).join('/');
  if (mention === '' || mention.length > contextLimits.pathChars) return `${shown} cannot be attached: its path is too long.`;
  return { kind: 'file', path: mention };
}

/** A path as a note names it: a hostile name of megabytes is cut. */
function shorten(file: string): string {
  return file.length > 120 ? `…${file.slice(-117)}` : file;
}
