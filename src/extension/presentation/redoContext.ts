// What a message that is edited or retried is sent with: the same mentions the person attached. The window that sent
// it keeps them (RedoMemory); after a reload only the transcript's summaries are left, from which files can be named
// again (they are read afresh), but a selection, the Problems list or an image cannot: those are named, so the person
// attaches them again rather than have the message go without them unnoticed.

import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AttachmentSummary, PromptMention } from '../../shared/promptContext';

/** The mentions of each session's last message sent from this window (bounded: the most recent sessions). */
export class RedoMemory {
  private readonly last = new Map<string, { text: string; mentions: PromptMention[] }>();

  constructor(private readonly sessions = 50) {}

  remember(sessionId: string, text: string, mentions: PromptMention[]): void {
    this.last.delete(sessionId);
    this.last.set(sessionId, { text, mentions });
    if (this.last.size > this.sessions) this.last.delete(this.last.keys().next().value as string);
  }

  /** The mentions kept for the message `text` of the session with `count` attachments; undefined when they are not this message's. */
  recall(sessionId: string, text: string, count: number): PromptMention[] | undefined {
    const kept = this.last.get(sessionId);
    return kept && kept.text === text && kept.mentions.length === count ? kept.mentions : undefined;
  }
}

/**
 * The mentions rebuilt from a message's attachment summaries: files inside `root` by their recorded location.
 * `missing`: what cannot be rebuilt (non-empty means the message cannot be sent again as it was).
 */
export function mentionsFromSummaries(summaries: readonly AttachmentSummary[], root: string | undefined): { mentions: PromptMention[]; missing: string[] } {
  const mentions: PromptMention[] = [];
  const missing: string[] = [];
  for (const s of summaries) {
    const rel = s.kind === 'file' && root !== undefined ? relativeFile(s.uri, root) : undefined;
    if (rel === undefined) missing.push(s.name);
    else mentions.push({ kind: 'file', path: rel });
  }
  return { mentions, missing };
}

/** The folder-relative path of a `file:` URI inside `root`; undefined for anything else (the resolver checks it again). */
function relativeFile(uri: string | undefined, root: string): string | undefined {
  if (!uri?.startsWith('file:')) return undefined;
  let abs: string;
  try {
    abs = fileURLToPath(uri);
  } catch {
    return undefined;
  }
  const rel = path.relative(root, abs);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel.split(path.sep).join('/');
}
