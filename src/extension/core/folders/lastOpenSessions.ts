// Which session each folder's window had open last, kept under the storage root. The window's own
// memento says it first; this copy serves a window whose memento is empty: code-server keeps the
// memento in the browser, so a new browser or profile, or a tab closed before the browser flushed
// its storage, would otherwise reopen on nothing.

import * as path from 'node:path';
import { readJson, writeJsonAtomic } from '../store/atomicFile';
import { checkSessionId } from '../store/storePaths';
import type { Logger } from '../ports/logger';

/** Folders remembered; the least recently used beyond this are forgotten. */
export const MAX_REMEMBERED_FOLDERS = 200;

interface Entry {
  sessionId: string;
  at: number;
}

export class LastOpenSessions {
  private readonly file: string;
  /** Writes of this window run one after another, so a later choice is never overwritten by an earlier one. */
  private writes: Promise<void> = Promise.resolve();

  constructor(
    storageRoot: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.file = path.join(storageRoot, 'last-open.json');
  }

  /** The session last open in a window of `folderKey` ('' for windows without a folder), if any. */
  async get(folderKey: string): Promise<string | undefined> {
    return (await this.read())[folderKey]?.sessionId;
  }

  /** Remembers `sessionId` for `folderKey`; failures are logged, never thrown (the memento still has it). */
  set(folderKey: string, sessionId: string): Promise<void> {
    this.writes = this.writes.then(async () => {
      try {
        const entries = await this.read();
        entries[folderKey] = { sessionId, at: this.now() };
        const kept = Object.entries(entries)
          .sort(([, a], [, b]) => b.at - a.at)
          .slice(0, MAX_REMEMBERED_FOLDERS);
        await writeJsonAtomic(this.file, Object.fromEntries(kept));
      } catch (error) {
        this.logger.warn(`[folders] remembering the open session failed: ${(error as Error).message}`);
      }
    });
    return this.writes;
  }

  /** Only well-formed entries: anything else in the file is ignored (a damaged file forgets, never fails). */
  private async read(): Promise<Record<string, Entry>> {
    let raw: unknown;
    try {
      raw = await readJson<unknown>(this.file);
    } catch (error) {
      this.logger.warn(`[folders] ${this.file} is unreadable and is ignored: ${(error as Error).message}`);
      return {};
    }
    const entries: Record<string, Entry> = Object.create(null) as Record<string, Entry>;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return entries;
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      const entry = value as Partial<Entry> | null;
      if (typeof entry !== 'object' || entry === null || typeof entry.sessionId !== 'string' || typeof entry.at !== 'number') continue;
      try {
        checkSessionId(entry.sessionId);
      } catch {
        continue;
      }
      entries[key] = { sessionId: entry.sessionId, at: entry.at };
    }
    return entries;
  }
}
