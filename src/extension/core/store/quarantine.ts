// Moves a transcript's corrupt lines out of it: the file is rewritten atomically without them, under the session's lock.

import { createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { randomBytes } from 'node:crypto';
import { withFileLock } from '../common/fileLock';
import type { Logger } from '../ports/logger';
import { storageError } from './atomicFile';
import { parseTranscriptRecord } from './transcriptRecords';

/**
 * Rewrites `file` without its corrupt lines and appends them to `<file>.quarantine`; returns how
 * many moved. Runs under `lockPath`, the lock every fenced transcript write holds, so no append
 * can land between the read and the rename (an append made without the lease is not supported).
 * A torn last line is moved too: under the lock no write is in progress, so it is a crash's leftover.
 */
export async function moveCorruptLines(file: string, lockTarget: string, lockPath: string, logger: Logger): Promise<number> {
  return withFileLock(lockTarget, lockPath, logger, async () => {
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
    const bad: Array<{ lineNumber: number; text: string }> = [];
    let out: fs.FileHandle | undefined;
    try {
      try {
        await fs.access(file);
      } catch {
        return 0;
      }
      out = await fs.open(tmp, 'w');
      const lines = readline.createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
      let lineNumber = 0;
      let kept: string[] = [];
      let keptLength = 0;
      for await (const line of lines) {
        lineNumber += 1;
        if (line.trim() === '') continue;
        let ok = false;
        try {
          ok = parseTranscriptRecord(JSON.parse(line)) !== undefined;
        } catch {
          ok = false;
        }
        if (!ok) {
          bad.push({ lineNumber, text: line });
          continue;
        }
        kept.push(line);
        keptLength += line.length;
        if (keptLength > 4 * 1024 * 1024) {
          await out.write(kept.join('\n') + '\n');
          kept = [];
          keptLength = 0;
        }
      }
      if (kept.length > 0) await out.write(kept.join('\n') + '\n');
      if (bad.length === 0) return 0;
      await out.sync();
      await out.close();
      out = undefined;
      // The quarantine first: if the rename never happens, the lines are still in the transcript (moved again later).
      const at = new Date().toISOString();
      const q = await fs.open(`${file}.quarantine`, 'a');
      try {
        await q.appendFile(bad.map((l) => JSON.stringify({ lineNumber: l.lineNumber, text: l.text, at })).join('\n') + '\n', 'utf8');
        await q.sync();
      } finally {
        await q.close();
      }
      await fs.rename(tmp, file);
      logger.warn(`${bad.length} damaged line(s) moved from ${file} to ${file}.quarantine; the transcript was rewritten without them`);
      return bad.length;
    } catch (error) {
      throw storageError(file, error);
    } finally {
      await out?.close().catch(() => undefined);
      await fs.rm(tmp, { force: true }).catch(() => undefined);
    }
  });
}
