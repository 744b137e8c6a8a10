// Sessions under the storage root: metadata written atomically, one transcript per session.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { VigilError } from '../common/errors';
import type { Logger } from '../ports/logger';
import { readJson, storageError, writeJsonAtomic } from './atomicFile';
import { leaseFile, leaseLockPath, sessionDir, sessionFile, sessionsDir, transcriptFile } from './storePaths';
import { moveCorruptLines } from './quarantine';
import { readTranscript, readTranscriptTail, TranscriptWriter, type TailResult, type WriteGuard } from './transcript';
import type { JsonlReadResult } from './jsonl';
import type { TranscriptRecord } from './transcriptRecords';
import { EventHub, type Unsubscribe } from '../common/events';
import { folderRecordProblem } from './folderRecord';
import type { Redactor } from '../common/redactor';
import { SingleFlight } from '../common/singleFlight';

export interface RecordsAppended {
  sessionId: string;
  records: readonly TranscriptRecord[];
}

/** `interrupted`: its holder died or lapsed mid-turn; `aborted`: a turn was aborted. Both are offered for Resume. */
export type SessionState = 'idle' | 'interrupted' | 'aborted';

const sessionMetaSchema = z.object({
  id: z.string(),
  title: z.string(),
  /** Who named the session last: `person` (a rename) wins over the agent's `session_info_update` titles. Absent: Vigil's own. */
  titleSource: z.enum(['auto', 'agent', 'person']).optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
  state: z.enum(['idle', 'interrupted', 'aborted']),
  stateReason: z.string().optional(),
  /** Why the session's wakeups are paused (a provider credential or quota failure); absent when they flow. */
  wakeupsPaused: z.string().optional(),
  /**
   * The workspace folder the session belongs to (absolute path); absent for sessions made before
   * folders were recorded, or in a window without a folder. Checked at every use (core/folders):
   * a value that is not text is read as '' (damaged), so the session still opens but never runs.
   */
  folder: z.preprocess((value) => (value === undefined || typeof value === 'string' ? value : ''), z.string().optional()),
});
export type SessionMeta = z.infer<typeof sessionMetaSchema>;
export type TitleSource = NonNullable<SessionMeta['titleSource']>;

export class SessionStore {
  private readonly appended = new EventHub<RecordsAppended>();
  private readonly moving = new SingleFlight<string, number>();

  constructor(
    readonly root: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    /** Secrets to cut out of transcripts and metadata (titles, state reasons) before they are written. */
    private readonly redactor?: Redactor,
  ) {}

  /** Proves the root is writable up front, so a bad root fails with its path instead of mid-turn. */
  async init(): Promise<void> {
    const dir = sessionsDir(this.root);
    const probe = path.join(dir, `.probe-${process.pid}`);
    try {
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(probe, 'ok');
      await fs.rm(probe, { force: true });
    } catch (error) {
      const wrapped = storageError(dir, error);
      throw new VigilError('STORAGE_UNWRITABLE', `Vigil's storage folder ${this.root} is not writable: ${wrapped.message}`, { cause: error });
    }
  }

  /** `folder`: the workspace folder the session belongs to (see core/folders); omit in a window without one. */
  async create(title: string, id: string = randomUUID(), options: { folder?: string } = {}): Promise<SessionMeta> {
    const problem = options.folder !== undefined ? folderRecordProblem(options.folder) : undefined;
    if (problem) throw new VigilError('INVALID_INPUT', `A session's folder must be an absolute, normalised path: ${JSON.stringify(options.folder).slice(0, 200)} is not (${problem})`);
    const meta: SessionMeta = { id, title: this.redactor?.redact(title) ?? title, createdAt: this.now(), updatedAt: this.now(), state: 'idle', ...(options.folder !== undefined ? { folder: options.folder } : {}) };
    const file = sessionFile(this.root, id);
    if ((await readJson(file)) !== undefined) throw new VigilError('INVALID_INPUT', `Session ${id} already exists`);
    await writeJsonAtomic(file, meta);
    return meta;
  }

  async get(id: string): Promise<SessionMeta | undefined> {
    const value = await readJson<unknown>(sessionFile(this.root, id));
    if (value === undefined) return undefined;
    const parsed = sessionMetaSchema.safeParse(value);
    if (!parsed.success) throw new VigilError('CORRUPT_RECORD', `${sessionFile(this.root, id)} is not a valid session record`, { cause: parsed.error });
    return parsed.data;
  }

  /** All readable sessions, newest first; an unreadable one is logged and skipped, never fatal. */
  async list(): Promise<SessionMeta[]> {
    let names: string[];
    try {
      names = await fs.readdir(sessionsDir(this.root));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw storageError(sessionsDir(this.root), error);
    }
    const sessions: SessionMeta[] = [];
    for (const name of names) {
      if (name.startsWith('.')) continue;
      try {
        const meta = await this.get(name);
        if (meta) sessions.push(meta);
      } catch (error) {
        this.logger.warn(`Skipping session ${name}: ${(error as Error).message}`);
      }
    }
    return sessions.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /** Read-modify-write of the metadata; `guard` fences it to the writer's lease epoch during a turn. */
  async update(id: string, patch: Partial<Omit<SessionMeta, 'id' | 'createdAt'>>, guard?: WriteGuard): Promise<SessionMeta> {
    const write = async () => {
      const meta = await this.get(id);
      if (!meta) throw new VigilError('NOT_FOUND', `Session ${id} does not exist`);
      const next: SessionMeta = { ...meta, ...(this.redactor?.redactValue(patch) ?? patch), updatedAt: this.now() };
      if (patch.state === 'idle') delete next.stateReason;
      await writeJsonAtomic(sessionFile(this.root, id), next);
      return next;
    };
    return guard ? guard(write) : write();
  }

  /** `source`: who names it (a person by default; the agent's own title never replaces a person's). */
  rename(id: string, title: string, source: TitleSource = 'person'): Promise<SessionMeta> {
    return this.update(id, { title, titleSource: source });
  }

  async delete(id: string): Promise<void> {
    try {
      await fs.rm(sessionDir(this.root, id), { recursive: true, force: true });
    } catch (error) {
      throw storageError(sessionDir(this.root, id), error);
    }
  }

  /** A batched writer for this session's transcript; pass the turn's fence as `guard`. */
  transcriptWriter(id: string, guard?: WriteGuard): TranscriptWriter {
    return new TranscriptWriter(transcriptFile(this.root, id), {
      guard,
      now: this.now,
      redactor: this.redactor,
      onWritten: (records) => this.appended.emit({ sessionId: id, records }, (error) => this.logger.error(`a transcript listener failed: ${String(error)}`)),
    });
  }

  /** Records of any session as they become durable (this window's writes only). */
  onAppended(listener: (event: RecordsAppended) => void): Unsubscribe {
    return this.appended.subscribe(listener);
  }

  /**
   * The last records for a view. Corrupt lines met are reported once: they are then moved out of
   * the transcript in the background (under the session's lock), so the next open finds none.
   */
  async readTail(id: string, count: number): Promise<TailResult> {
    const tail = await readTranscriptTail(transcriptFile(this.root, id), count);
    if (tail.corrupt.length > 0) void this.moveCorrupt(id).catch((error: unknown) => this.logger.error(`moving the damaged lines of session ${id} failed: ${String(error)}`));
    return tail;
  }

  async readAll(id: string): Promise<JsonlReadResult<TranscriptRecord>> {
    const all = await readTranscript(transcriptFile(this.root, id));
    if (all.corrupt.length > 0) await this.moveCorrupt(id);
    return all;
  }

  /** Moves corrupt lines out of the transcript (once at a time per session); resolves with how many moved. */
  moveCorrupt(id: string): Promise<number> {
    return this.moving.run(id, () => moveCorruptLines(transcriptFile(this.root, id), leaseFile(this.root, id), leaseLockPath(this.root, id), this.logger));
  }

  async listResumable(): Promise<SessionMeta[]> {
    return (await this.list()).filter((s) => s.state !== 'idle');
  }
}
