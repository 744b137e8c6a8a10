// The durable wakeup outbox: pending → claimed (window, deadline) → delivered | parked, exactly once per completion key.

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { systemClock, type Clock } from '../ports/clock';
import { silentLogger, tagged, type Logger } from '../ports/logger';
import type { TaskCompletion } from '../tasks/taskTypes';
import type { Redactor } from '../common/redactor';
import { KeyedMutex } from '../common/keyedMutex';
import { isClaimable, heldBy, type EntryState, type OutboxOp, type ReleaseReason } from './outboxTypes';
import { SessionOutboxFile } from './sessionOutboxFile';
import { persistedClaimsIn, type PersistedClaims } from './persistedClaims';

export interface WakeupOutboxOptions {
  storageRoot: string;
  /** Identifies this window in claims; a reloaded window is a new one. */
  windowId: string;
  clock?: Clock;
  logger?: Logger;
  /** Secrets to keep out of stored completions (commands, output tails, matched lines). */
  redactor?: Redactor;
  /**
   * Which lapsed claims a stored prompt carries (persistedClaims.ts): their window died between storing the prompt
   * and marking them delivered, so they are delivered, not claimed again. Default: the transcripts of `storageRoot`.
   */
  persistedClaims?: PersistedClaims;
}

/** Completions taken by one window for one turn. */
export interface Claim {
  claimId: string;
  sessionId: string;
  keys: string[];
  completions: TaskCompletion[];
}

export interface ClaimOptions {
  max: number;
  ttlMs: number;
  /** A user turn carries completions regardless of a wakeup's failure backoff. */
  ignoreBackoff?: boolean;
}

export interface OutboxEntryView {
  key: string;
  taskId: string | undefined;
  state: EntryState;
  claimedBy?: string;
  attempts: number;
}

interface PendingEnqueue {
  completion: TaskCompletion;
  resolve(fresh: boolean): void;
  reject(error: unknown): void;
}

export class WakeupOutbox {
  private readonly sessions = new Map<string, SessionOutboxFile>();
  private readonly batches = new Map<string, PendingEnqueue[]>();
  private readonly mutex = new KeyedMutex();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly dir: string;
  private persisted: PersistedClaims | undefined;

  private constructor(private readonly options: WakeupOutboxOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = tagged(options.logger ?? silentLogger, 'wakeups');
    this.dir = path.join(options.storageRoot, 'wakeups');
  }

  static async open(options: WakeupOutboxOptions): Promise<WakeupOutbox> {
    const outbox = new WakeupOutbox(options);
    await fs.mkdir(outbox.dir, { recursive: true });
    await outbox.rescan();
    return outbox;
  }

  get windowId(): string {
    return this.options.windowId;
  }

  /**
   * Stores a completion durably. Returns false when its key is already known (a duplicate signal).
   * Completions of one session that arrive while its file is busy share one locked append and one fsync.
   */
  enqueue(stored: TaskCompletion): Promise<boolean> {
    const completion = this.redacted(stored);
    const sessionId = completion.sessionId;
    return new Promise<boolean>((resolve, reject) => {
      let batch = this.batches.get(sessionId);
      if (batch) {
        batch.push({ completion, resolve, reject });
        return;
      }
      batch = [{ completion, resolve, reject }];
      this.batches.set(sessionId, batch);
      let taken: PendingEnqueue[] = [];
      this.withSession(sessionId, async (file) => {
        taken = this.batches.get(sessionId) ?? [];
        this.batches.delete(sessionId);
        const at = this.clock.wallNow();
        const keys = new Set<string>();
        const fresh = taken.map(({ completion: c }) => {
          if (file.entries.has(c.key) || keys.has(c.key)) return false;
          keys.add(c.key);
          return true;
        });
        await file.append(taken.filter((_, i) => fresh[i]).map(({ completion: c }) => ({ op: 'enqueue' as const, key: c.key, completion: c, at })));
        taken.forEach((item, i) => item.resolve(fresh[i]));
      }).catch((error: unknown) => {
        const failed = taken.length > 0 ? taken : (this.batches.get(sessionId) ?? []);
        if (failed !== taken) this.batches.delete(sessionId);
        for (const item of failed) item.reject(error);
      });
    });
  }

  /** Atomically takes up to `max` claimable completions (oldest first) for this window until `ttlMs` from now. */
  async claim(sessionId: string, options: ClaimOptions): Promise<Claim | undefined> {
    return this.withSession(sessionId, async (file) => {
      await this.settleLapsed(file);
      const taken = this.pick(file, options, []);
      if (taken) await file.append([taken.op]);
      return taken?.claim;
    });
  }

  /**
   * Stores a completion durably and, when `claimWith` resolves to options, claims what a wakeup would
   * take now (the new completion included) in the same append: one lock and one fsync instead of two.
   * Nothing is claimed if `claimWith` resolves to undefined or rejects; the completion is stored either way.
   */
  async enqueueAndClaim(stored: TaskCompletion, claimWith: Promise<ClaimOptions | undefined>): Promise<{ fresh: boolean; claim: Claim | undefined }> {
    const completion = this.redacted(stored);
    claimWith.catch(() => undefined);
    return this.withSession(completion.sessionId, async (file) => {
      const fresh = !file.entries.has(completion.key);
      const options = await claimWith.catch(() => undefined);
      if (options) await this.settleLapsed(file);
      const taken = options ? this.pick(file, options, fresh ? [completion] : []) : undefined;
      const enqueue = { op: 'enqueue' as const, key: completion.key, completion, at: this.clock.wallNow() };
      await file.append([...(fresh ? [enqueue] : []), ...(taken ? [taken.op] : [])]);
      return { fresh, claim: taken?.claim };
    });
  }

  /** Redacted before it is stored: claims, wakeup prompts and views all read it from here. */
  private redacted(completion: TaskCompletion): TaskCompletion {
    return this.options.redactor?.redactValue(completion) ?? completion;
  }

  /**
   * Marks delivered what a lapsed claim carried when its prompt is in the transcript: the window that claimed it
   * stored the prompt (the agent was woken) and died before its `deliver`. Under the session's lock, before a pick.
   */
  private async settleLapsed(file: SessionOutboxFile): Promise<void> {
    const check = (this.persisted ??= this.options.persistedClaims ?? persistedClaimsIn(this.options.storageRoot));
    const now = this.clock.wallNow();
    const lapsed = new Map<string, string[]>();
    for (const e of file.entries.values()) {
      if (e.state !== 'claimed' || !e.claim || e.claim.deadline > now) continue;
      lapsed.set(e.claim.claimId, [...(lapsed.get(e.claim.claimId) ?? []), e.key]);
    }
    if (lapsed.size === 0) return;
    let persisted: ReadonlySet<string>;
    try {
      persisted = await check(file.sessionId, [...lapsed.keys()]);
    } catch (error) {
      // Unreadable transcript: claiming again may wake twice, but never loses the completion.
      this.logger.warn(`cannot tell whether the lapsed claims of ${file.sessionId} were delivered; they are claimed again`, error);
      return;
    }
    const at = this.clock.wallNow();
    const settled = [...persisted].filter((claimId) => lapsed.has(claimId));
    const ops: OutboxOp[] = settled.map((claimId) => ({ op: 'deliver' as const, keys: lapsed.get(claimId)!, claimId, at }));
    if (ops.length === 0) return;
    this.logger.info(`claims ${settled.join(', ')} of ${file.sessionId} lapsed after their prompt was stored: delivered, not claimed again`);
    await file.append(ops);
  }

  /** Chooses a claim (oldest first, then `arriving`, not yet stored) and the op that records it. */
  private pick(file: SessionOutboxFile, options: ClaimOptions, arriving: TaskCompletion[]): { claim: Claim; op: OutboxOp } | undefined {
    const now = this.clock.wallNow();
    const max = Math.max(1, options.max);
    const completions: TaskCompletion[] = [];
    for (const e of file.entries.values()) {
      if (completions.length >= max) break;
      if (e.completion && isClaimable(e, now, options.ignoreBackoff === true)) completions.push(e.completion);
    }
    for (const c of arriving) if (completions.length < max) completions.push(c);
    if (completions.length === 0) return undefined;
    const claimId = `${this.options.windowId}/${randomBytes(6).toString('hex')}`;
    const keys = completions.map((c) => c.key);
    const claim = { claimId, sessionId: file.sessionId, keys, completions };
    return { claim, op: { op: 'claim', keys, claimId, by: this.options.windowId, deadline: now + options.ttlMs, at: now } };
  }

  /**
   * Runs `store` (the storing of the prompt that carries `claim`) under the session's outbox lock, telling it
   * whether the claim still holds every one of its keys. A window frozen past its claim's deadline may find that
   * another took the completions and delivered them; it must not wake the agent with them again. Held here, the
   * lock keeps any other claimant out until the prompt is durable, and that claimant's check of the transcript
   * (settleLapsed) then finds it.
   */
  async whileHeld<T>(claim: Claim, store: (held: boolean) => Promise<T>): Promise<T> {
    return this.withSession(claim.sessionId, async (file) => {
      const lost = claim.keys.filter((k) => {
        const e = file.entries.get(k);
        return e?.state !== 'claimed' || e.claim?.claimId !== claim.claimId;
      });
      if (lost.length > 0) this.logger.warn(`claim ${claim.claimId} lapsed and was taken again before its prompt was stored: ${lost.join(', ')}`);
      return store(lost.length === 0);
    });
  }

  /** Marks a claim's completions delivered (its turn was admitted). Idempotent; returns how many it delivered now. */
  async deliver(claim: Claim): Promise<number> {
    return this.withSession(claim.sessionId, async (file) => {
      const keys = claim.keys.filter((k) => {
        const e = file.entries.get(k);
        return e !== undefined && heldBy(e, claim.claimId);
      });
      if (keys.length < claim.keys.length) {
        const lost = claim.keys.filter((k) => !keys.includes(k) && file.entries.get(k)?.state !== 'delivered');
        if (lost.length > 0) this.logger.warn(`claim ${claim.claimId} expired and was taken again before its turn was admitted: ${lost.join(', ')}`);
      }
      if (keys.length > 0) await file.append([{ op: 'deliver', keys, claimId: claim.claimId, at: this.clock.wallNow() }]);
      return keys.length;
    });
  }

  /** Gives a claim back: its completions are pending again (each key once), optionally not before `notBefore`. */
  async release(claim: Claim, reason: ReleaseReason, notBefore = 0): Promise<void> {
    await this.withSession(claim.sessionId, async (file) => {
      const keys = claim.keys.filter((k) => file.entries.get(k)?.state === 'claimed' && file.entries.get(k)?.claim?.claimId === claim.claimId);
      if (keys.length > 0) await file.append([{ op: 'release', keys, claimId: claim.claimId, reason, notBefore, at: this.clock.wallNow() }]);
    });
  }

  /** The session's wakeups are paused: keep the claim's completions for the first turn after the pause lifts. */
  async park(claim: Claim): Promise<void> {
    await this.withSession(claim.sessionId, async (file) => {
      const keys = claim.keys.filter((k) => file.entries.get(k)?.state === 'claimed' && file.entries.get(k)?.claim?.claimId === claim.claimId);
      if (keys.length > 0) await file.append([{ op: 'park', keys, claimId: claim.claimId, at: this.clock.wallNow() }]);
    });
  }

  /** The session's entries as stored now (oldest first). */
  async entries(sessionId: string): Promise<OutboxEntryView[]> {
    return this.withSession(sessionId, async (file) =>
      [...file.entries.values()].map((e) => ({
        key: e.key,
        taskId: e.completion?.taskId ?? e.key.slice(0, e.key.lastIndexOf(':')),
        state: e.state,
        ...(e.claim ? { claimedBy: e.claim.by } : {}),
        attempts: e.attempts,
      })),
    );
  }

  /** Sessions that have something a wakeup could deliver now (pending, parked, or a lapsed claim). */
  async sessionsWithWork(): Promise<string[]> {
    await this.rescan();
    const now = this.clock.wallNow();
    const out: string[] = [];
    for (const file of this.sessions.values()) {
      try {
        if (await file.changedOnDisk()) await this.mutex.run(file.file, () => file.locked(async () => undefined));
      } catch (error) {
        this.logger.warn(`cannot read the outbox of ${file.sessionId}`, error);
        continue;
      }
      for (const e of file.entries.values()) {
        if (e.state !== 'delivered' && isClaimable(e, now, false)) {
          out.push(file.sessionId);
          break;
        }
      }
    }
    return out;
  }

  /** Entries still held in memory for a session (for memory-bound tests and diagnostics). */
  cachedEntryCount(sessionId: string): { total: number; withPayload: number } {
    const file = this.sessions.get(sessionId);
    let withPayload = 0;
    for (const e of file?.entries.values() ?? []) if (e.completion) withPayload += 1;
    return { total: file?.entries.size ?? 0, withPayload };
  }

  private withSession<T>(sessionId: string, fn: (file: SessionOutboxFile) => Promise<T>): Promise<T> {
    const file = this.fileFor(sessionId);
    return this.mutex.run(file.file, () => file.locked(() => fn(file)));
  }

  private fileFor(sessionId: string): SessionOutboxFile {
    let file = this.sessions.get(sessionId);
    if (!file) {
      file = new SessionOutboxFile(sessionId, path.join(this.dir, `${encodeURIComponent(sessionId)}.jsonl`), this.logger);
      this.sessions.set(sessionId, file);
    }
    return file;
  }

  /** Picks up sessions whose outbox another window created. */
  private async rescan(): Promise<void> {
    const names = await fs.readdir(this.dir);
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      let sessionId: string;
      try {
        sessionId = decodeURIComponent(name.slice(0, -'.jsonl'.length));
      } catch (error) {
        this.logger.warn(`ignoring outbox file with an undecodable name: ${name}`, error);
        continue;
      }
      this.fileFor(sessionId);
    }
  }
}
