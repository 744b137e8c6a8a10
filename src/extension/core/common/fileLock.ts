// The one cross-process lock of the store (turn lease, wakeup outbox): proper-lockfile, plus a record of
// its holder so that a lock left by a process that no longer exists is reclaimed at once, not after 10 s.

import * as lockfile from 'proper-lockfile';
import * as fsCallbacks from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { VigilError, type VigilErrorCode } from './errors';
import { isAlive, processStartTime } from './processTree';
import type { Logger } from '../ports/logger';

/** Who holds a lock: written inside the lock directory right after it is made. */
interface LockHolder {
  pid: number;
  host: string;
  /** Boot id + start ticks (Linux); absent where unknown, and then the pid alone decides. */
  startedAt?: string;
  nonce: string;
}

export interface FileLockOptions {
  /** Attempts before giving up; a live holder of a short section is normally gone within a few. */
  retries?: { retries: number; minTimeout: number; maxTimeout: number; factor: number };
  /** The error code when the lock stays held: the lease says SESSION_BUSY, the outbox STORAGE_UNWRITABLE. */
  busyCode?: VigilErrorCode;
  /** Names the lock in errors, e.g. "the wakeup outbox <file>". */
  what?: string;
  /** Create the lock's folder first (a session folder may not exist yet); the outbox folder always does. */
  createFolder?: boolean;
}

const HOLDER = 'holder.json';
const STALE_MS = 10_000;
const DEFAULT_RETRIES = { retries: 400, factor: 1.3, minTimeout: 1, maxTimeout: 50 };
const me: LockHolder = { pid: process.pid, host: os.hostname(), startedAt: processStartTime(process.pid), nonce: '' };

/**
 * Runs `fn` while holding `lockPath` (an mkdir lock). Sections are short (read, check, one write),
 * so waiting is bounded by retries. A lock whose recorded holder ran on this host and no longer
 * exists (pid gone, or reused by a process started at another time) is taken over at once and
 * logged; any other holder (alive, another host, unknown) is only taken over once its lock has not
 * been refreshed for 10 s, as proper-lockfile does.
 */
export async function withFileLock<T>(target: string, lockPath: string, logger: Logger, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  let release: () => Promise<void>;
  const what = options.what ?? `the lock ${lockPath}`;
  try {
    if (options.createFolder !== false) fsCallbacks.mkdirSync(path.dirname(lockPath), { recursive: true });
    release = await lockfile.lock(target, {
      lockfilePath: lockPath,
      realpath: false,
      stale: STALE_MS,
      retries: { ...(options.retries ?? DEFAULT_RETRIES), randomize: true },
      fs: holderAwareFs(logger),
      onCompromised: (error) => logger.error(`Lock ${lockPath} was compromised: ${error.message}`),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOCKED') {
      throw new VigilError(options.busyCode ?? 'SESSION_BUSY', `Timed out waiting for ${what} (held by ${await describeHolder(lockPath)})`, { cause: error });
    }
    throw new VigilError('STORAGE_UNWRITABLE', `Cannot lock ${what}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return await fn();
  } finally {
    await release().catch((error: unknown) => logger.warn(`Releasing ${lockPath} failed: ${(error as Error).message}`));
  }
}

/**
 * True only when the holder ran on this host and provably runs no more: its pid is gone (or a
 * zombie), or now belongs to a process started at another time. A holder on another host, or one
 * whose start time cannot be compared, is never "provably" dead.
 */
export function isLockHolderDead(holder: { pid: number; host: string; startedAt?: string }, host = me.host): boolean {
  if (holder.host !== host) return false;
  const differs = (actual: string | undefined) => holder.startedAt !== undefined && actual !== undefined && actual !== holder.startedAt;
  if (holder.pid === process.pid) return differs(me.startedAt);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
  }
  if (!isAlive(holder.pid)) return true;
  return differs(processStartTime(holder.pid));
}

function readHolder(lockPath: string): LockHolder | undefined {
  try {
    const value = JSON.parse(fsCallbacks.readFileSync(path.join(lockPath, HOLDER), 'utf8')) as Partial<LockHolder>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.nonce !== 'string') return undefined;
    return { pid: value.pid, host: value.host, nonce: value.nonce, ...(typeof value.startedAt === 'string' ? { startedAt: value.startedAt } : {}) };
  } catch {
    return undefined;
  }
}

async function describeHolder(lockPath: string): Promise<string> {
  const holder = readHolder(lockPath);
  return holder ? `pid ${holder.pid} on ${holder.host}` : 'an unknown process';
}

/** What this process last saw of a lock directory before deciding to remove it. */
interface Judged {
  ino: number;
  nonce: string | undefined;
}

type Cb<T = void> = (error: NodeJS.ErrnoException | null, value?: T) => void;

/**
 * The file system proper-lockfile works through: `mkdir` also records the holder; `stat` makes a
 * lock of a dead holder look stale, so proper-lockfile's own takeover removes it; `rmdir` removes
 * the directory (holder record included) only if it is still the one judged, so two windows
 * reclaiming the same dead lock never remove each other's fresh one.
 */
function holderAwareFs(logger: Logger): object {
  const judged = new Map<string, Judged>();
  const mine = new Map<string, string>();
  return {
    mkdir(p: string, cb: Cb) {
      try {
        fsCallbacks.mkdirSync(p);
      } catch (error) {
        return process.nextTick(cb, error);
      }
      const nonce = randomBytes(8).toString('hex');
      mine.set(p, nonce);
      // Written before proper-lockfile probes the mtime, so the holder record never changes it later.
      try {
        fsCallbacks.writeFileSync(path.join(p, HOLDER), JSON.stringify({ ...me, nonce }));
      } catch {
        // Without a record the lock is judged by its age alone, as proper-lockfile does.
      }
      process.nextTick(cb, null);
    },
    stat(p: string, cb: Cb<fsCallbacks.Stats>) {
      let stat: fsCallbacks.Stats;
      try {
        stat = fsCallbacks.statSync(p);
      } catch (error) {
        return process.nextTick(cb, error);
      }
      process.nextTick(() => {
        const holder = mine.has(p) ? undefined : readHolder(p);
        judged.set(p, { ino: stat.ino, nonce: holder?.nonce });
        if (holder && isLockHolderDead(holder)) {
          logger.warn(`${p} was locked by a process that no longer exists (pid ${holder.pid} on ${holder.host}); reclaimed`);
          const aged = Object.assign(Object.create(Object.getPrototypeOf(stat) as object) as fsCallbacks.Stats, stat, { mtime: new Date(0) });
          return cb(null, aged);
        }
        cb(null, stat);
      });
    },
    rmdir(p: string, cb: Cb) {
      const ours = mine.get(p);
      const seen = judged.get(p);
      judged.delete(p);
      let current: fsCallbacks.Stats;
      try {
        current = fsCallbacks.statSync(p);
      } catch (error) {
        mine.delete(p);
        return cb((error as NodeJS.ErrnoException).code === 'ENOENT' ? null : (error as NodeJS.ErrnoException));
      }
      const holder = readHolder(p);
      const stillJudged = ours !== undefined ? holder?.nonce === ours : seen !== undefined && seen.ino === current.ino && holder?.nonce === seen.nonce;
      if (!stillJudged) {
        // Someone else took the lock since we looked: leave it, and let the retry see it held.
        return cb(Object.assign(new Error(`${p} changed hands`), { code: 'ELOCKED' }));
      }
      mine.delete(p);
      // Synchronous on purpose: two tiny steps, and the lock is free the moment the section's release resolves.
      try {
        removeLockDir(p);
      } catch (error) {
        return cb(error as NodeJS.ErrnoException);
      }
      cb(null);
    },
    rmdirSync(p: string) {
      if (mine.has(p)) removeLockDir(p);
    },
    utimes(p: string, atime: Date, mtime: Date, cb: Cb) {
      try {
        fsCallbacks.utimesSync(p, atime, mtime);
      } catch (error) {
        return process.nextTick(cb, error);
      }
      process.nextTick(cb, null);
    },
    realpath: fsCallbacks.realpath,
  };
}

function removeLockDir(p: string): void {
  fsCallbacks.rmSync(path.join(p, HOLDER), { force: true });
  fsCallbacks.rmdirSync(p);
}
