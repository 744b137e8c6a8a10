// A short cross-process critical section on one session's lease, on top of proper-lockfile.

import * as lockfile from 'proper-lockfile';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { VigilError } from '../common/errors';
import type { Logger } from '../ports/logger';

/**
 * Runs `fn` while holding `lockPath` (an mkdir lock). Sections are short (read, check, one write),
 * so waiting is bounded by retries; a holder frozen inside one is taken over after `stale` ms.
 */
export async function withFileLock<T>(target: string, lockPath: string, logger: Logger, fn: () => Promise<T>): Promise<T> {
  let release: () => Promise<void>;
  try {
    await fs.mkdir(path.dirname(lockPath), { recursive: true });
    release = await lockfile.lock(target, {
      lockfilePath: lockPath,
      realpath: false,
      stale: 10_000,
      retries: { retries: 400, factor: 1.3, minTimeout: 1, maxTimeout: 50, randomize: true },
      onCompromised: (error) => logger.error(`Lease lock ${lockPath} was compromised: ${error.message}`),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOCKED') throw new VigilError('SESSION_BUSY', `Timed out waiting for the lock ${lockPath}`, { cause: error });
    throw new VigilError('STORAGE_UNWRITABLE', `Cannot lock ${lockPath}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return await fn();
  } finally {
    await release().catch((error: unknown) => logger.warn(`Releasing ${lockPath} failed: ${(error as Error).message}`));
  }
}
