// The searchable text of sessions already read, kept for the next search within a budget of characters (the text
// only: folding it again costs a search ~2 ms per million characters; keeping it folded too would halve what fits).
// A search reads the newest sessions first, so the newest fill the budget and stay: an older session is not kept at
// the cost of a newer one, and reading more sessions than fit never evicts the ones read first (as a plain LRU would).

import type { TranscriptText } from './transcriptText';

export interface CachedText extends TranscriptText {
  /** The session's last activity when it was read: which entry gives way when the budget is full. */
  updatedAt: number;
}

export class SearchCache {
  private readonly entries = new Map<string, CachedText>();
  private chars = 0;

  constructor(private readonly budgetChars: number) {}

  /** The entry of the session if the file is still as it was read (same size and modification time). */
  get(sessionId: string, file: { size: number; mtimeMs: number }): CachedText | undefined {
    const entry = this.entries.get(sessionId);
    if (!entry) return undefined;
    if (entry.size === file.size && entry.mtimeMs === file.mtimeMs) return entry;
    this.remove(sessionId);
    return undefined;
  }

  /** Keeps `entry` if it fits, making room by dropping sessions less recent than it; else keeps nothing. */
  put(sessionId: string, entry: CachedText): void {
    this.remove(sessionId);
    const cost = entry.text.length;
    if (cost > this.budgetChars) return;
    if (this.chars + cost > this.budgetChars) {
      const older = [...this.entries].filter(([, e]) => e.updatedAt < entry.updatedAt).sort(([, a], [, b]) => a.updatedAt - b.updatedAt);
      let freed = 0;
      const drop: string[] = [];
      for (const [id, e] of older) {
        if (this.chars - freed + cost <= this.budgetChars) break;
        drop.push(id);
        freed += e.text.length;
      }
      if (this.chars - freed + cost > this.budgetChars) return;
      for (const id of drop) this.remove(id);
    }
    this.entries.set(sessionId, entry);
    this.chars += cost;
  }

  /** Characters held. */
  get size(): number {
    return this.chars;
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }

  private remove(sessionId: string): void {
    const entry = this.entries.get(sessionId);
    if (!entry) return;
    this.entries.delete(sessionId);
    this.chars -= entry.text.length;
  }
}
