// Finding an old conversation: the sessions given (the folder's, as the session list shows them) whose title or
// transcript holds a text, ranked: title hits above transcript hits, the more recent first within each. The query is
// a literal, looked for case-insensitively (never a pattern). A search is bounded: it reads the newest sessions first,
// the first `maxBytesPerSession` of each, and stops at `limit` hits (every later session would rank lower) or when
// `budgetMs` is spent, saying which. A new search cancels the one still running and starts once it has let go.

import { constants as fsConstants, promises as fs } from 'node:fs';
import { foldCase, singleSpaced, snippetAround } from '../../../shared/textSearch';
import type { Logger } from '../ports/logger';
import { errorMessage } from '../common/errors';
import { SearchCache, type CachedText } from './searchCache';
import { MESSAGE_SEPARATOR, readTranscriptText, type OpenForRead, type TranscriptText } from './transcriptText';

export interface SearchableSession {
  id: string;
  title: string;
  updatedAt: number;
}

export interface SessionHit {
  sessionId: string;
  title: string;
  updatedAt: number;
  where: 'title' | 'transcript';
  /** One line of the message around the hit (transcript hits). */
  snippet?: string;
}

export interface SearchResult {
  /** The query as searched (see `normalizeQuery`). */
  query: string;
  hits: SessionHit[];
  /** Sessions whose place in the results is known (their title matched, or their transcript was searched), of `total`. */
  searched: number;
  total: number;
  /** Why older sessions were not searched: `limit` hits were found (all others rank lower), or the time ran out. */
  stopped?: 'limit' | 'time';
  /** Transcripts searched only in part: longer than `maxBytesPerSession` (or their text than `maxCharsPerSession`). */
  cut: number;
  /** Transcripts that could not be read (the log says why). */
  unreadable: number;
  /** A newer search, or the caller, cancelled this one: its hits are what it had found by then. */
  cancelled: boolean;
}

export interface SessionSearchLimits {
  limit: number;
  budgetMs: number;
  maxBytesPerSession: number;
  maxCharsPerSession: number;
  /** Characters of read text kept for the next search. */
  cacheChars: number;
}

export const sessionSearchLimits: SessionSearchLimits = {
  limit: 50,
  budgetMs: 3_000,
  maxBytesPerSession: 4 * 1024 * 1024,
  maxCharsPerSession: 1_000_000,
  cacheChars: 32_000_000,
};

export const MAX_QUERY_CHARS = 200;

/** The query searched: whitespace and invisible characters as single spaces, trimmed, cut to MAX_QUERY_CHARS. */
export function normalizeQuery(raw: string): string {
  return singleSpaced(raw.slice(0, MAX_QUERY_CHARS * 4)).trim().slice(0, MAX_QUERY_CHARS).trim();
}

export interface SessionSearchDeps {
  transcriptPath(sessionId: string): string;
  open?: OpenForRead;
  /** A file's kind, size and modification time: whether to read it, and whether the text kept from it still holds. */
  stat?: (file: string) => Promise<{ size: number; mtimeMs: number; isFile(): boolean }>;
  now?: () => number;
  limits?: Partial<SessionSearchLimits>;
  logger?: Logger;
}

export interface SearchOptions {
  signal?: AbortSignal;
  /** Called with the result so far each time a hit is added. */
  onProgress?(result: SearchResult): void;
}

type TranscriptOutcome = { snippet?: string; cut: boolean; unreadable?: boolean };

export class SessionSearch {
  private readonly limits: SessionSearchLimits;
  private readonly cache: SearchCache;
  private readonly open: OpenForRead;
  private readonly stat: NonNullable<SessionSearchDeps['stat']>;
  private readonly now: () => number;
  private running: { controller: AbortController; settled: Promise<unknown> } | undefined;

  constructor(private readonly deps: SessionSearchDeps) {
    this.limits = { ...sessionSearchLimits, ...deps.limits };
    this.cache = new SearchCache(this.limits.cacheChars);
    // Non-blocking, so that a pipe swapped in after the check below cannot hold the open (no effect on a file).
    this.open = deps.open ?? ((file) => fs.open(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0)));
    this.stat = deps.stat ?? ((file) => fs.stat(file));
    this.now = deps.now ?? Date.now;
  }

  /** Searches `sessions` for `rawQuery`; cancels a search still running, and reads nothing until it has stopped. */
  async search(rawQuery: string, sessions: readonly SearchableSession[], options: SearchOptions = {}): Promise<SearchResult> {
    const controller = new AbortController();
    const previous = this.running;
    previous?.controller.abort();
    const onAbort = () => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) controller.abort();
    const run = (async () => {
      await previous?.settled;
      return this.run(normalizeQuery(rawQuery), sessions, controller.signal, options.onProgress);
    })();
    this.running = { controller, settled: run.catch(() => undefined) };
    try {
      return await run;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      if (this.running?.controller === controller) this.running = undefined;
    }
  }

  /** Forgets the text kept from earlier searches. */
  clear(): void {
    this.cache.clear();
  }

  /** Characters of text kept for the next search. */
  get cachedChars(): number {
    return this.cache.size;
  }

  private async run(query: string, sessions: readonly SearchableSession[], signal: AbortSignal, onProgress: SearchOptions['onProgress']): Promise<SearchResult> {
    const started = this.now();
    const result: SearchResult = { query, hits: [], searched: 0, total: sessions.length, cut: 0, unreadable: 0, cancelled: false };
    if (query === '') return result;
    if (signal.aborted) return { ...result, cancelled: true };
    const folded = foldCase(query);
    const ordered = [...sessions].sort((a, b) => b.updatedAt - a.updatedAt);
    const inTitle = new Set<string>();
    for (const session of ordered) {
      if (!foldCase(singleSpaced(session.title)).includes(folded)) continue;
      inTitle.add(session.id);
      result.hits.push({ sessionId: session.id, title: session.title, updatedAt: session.updatedAt, where: 'title' });
    }
    result.searched = inTitle.size;
    if (result.hits.length > 0) onProgress?.({ ...result, hits: result.hits.slice(0, this.limits.limit) });
    const timeUp = () => this.now() - started >= this.limits.budgetMs;
    const stop = () => signal.aborted || timeUp();
    const rest = ordered.filter((s) => !inTitle.has(s.id));
    for (let i = 0; i < rest.length; i += 1) {
      if (result.hits.length >= this.limits.limit) {
        result.stopped = 'limit';
        break;
      }
      const outcome = stop() ? undefined : await this.searchTranscript(rest[i], folded, stop);
      if (!outcome) {
        if (signal.aborted) result.cancelled = true;
        else result.stopped = 'time';
        break;
      }
      result.searched += 1;
      if (outcome.cut) result.cut += 1;
      if (outcome.unreadable) result.unreadable += 1;
      if (outcome.snippet === undefined) continue;
      const session = rest[i];
      result.hits.push({ sessionId: session.id, title: session.title, updatedAt: session.updatedAt, where: 'transcript', snippet: outcome.snippet });
      onProgress?.({ ...result, hits: [...result.hits] });
    }
    if (result.hits.length > this.limits.limit) {
      result.hits = result.hits.slice(0, this.limits.limit);
      result.stopped = 'limit';
    }
    return result;
  }

  /** Undefined when `stop()` cut the read short: the session then counts as not searched. */
  private async searchTranscript(session: SearchableSession, folded: string, stop: () => boolean): Promise<TranscriptOutcome | undefined> {
    let entry: CachedText | undefined;
    try {
      const file = this.deps.transcriptPath(session.id);
      const stat = await this.stat(file);
      // A pipe or a device in its place would hold the read forever, or without end.
      if (!stat.isFile()) throw new Error(`${file} is not a regular file`);
      entry = this.cache.get(session.id, stat);
      if (!entry) {
        const read = await this.readText(file, stop);
        if (!read) return undefined;
        entry = { ...read, updatedAt: session.updatedAt };
        this.cache.put(session.id, entry);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { cut: false };
      this.deps.logger?.warn(`[search] the transcript of session ${session.id} could not be read: ${errorMessage(error)}`);
      return { cut: false, unreadable: true };
    }
    const at = foldCase(entry.text).indexOf(folded);
    return { cut: entry.cut, snippet: at === -1 ? undefined : messageSnippet(entry.text, at, folded.length) };
  }

  private async readText(file: string, stop: () => boolean): Promise<TranscriptText | undefined> {
    const handle = await this.open(file);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new Error(`${file} is not a regular file`);
      const limits = { maxBytes: this.limits.maxBytesPerSession, maxChars: this.limits.maxCharsPerSession };
      return await readTranscriptText(handle, stat, limits, stop);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }
}

/** The snippet of the one message (of the NUL-joined text) holding the hit at `at`. */
function messageSnippet(text: string, at: number, length: number): string {
  const start = text.lastIndexOf(MESSAGE_SEPARATOR, at) + 1;
  const end = text.indexOf(MESSAGE_SEPARATOR, at);
  return snippetAround(text.slice(start, end === -1 ? text.length : end), at - start, length);
}
