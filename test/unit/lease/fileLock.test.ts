// The store's one lock: a lock left by a dead holder is reclaimed at once (and said so); a live or remote holder never early.

import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isVigilError } from '../../../src/extension/core/common/errors';
import { processStartTime } from '../../../src/extension/core/common/processTree';
import { withFileLock } from '../../../src/extension/core/common/fileLock';
import { SessionOutboxFile } from '../../../src/extension/core/wakeups/sessionOutboxFile';
import { recordingLogger, tempRoot, type LogRecord } from '../supervisor/harness';

const NO_WAIT = { retries: 0, minTimeout: 1, maxTimeout: 1, factor: 1 };

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

/** A lock directory as a crashed (or live) holder leaves it: fresh mtime, holder record inside. */
async function leaveLock(lockPath: string, holder: { pid: number; host?: string; startedAt?: string }): Promise<void> {
  await fs.mkdir(lockPath, { recursive: true });
  await fs.writeFile(path.join(lockPath, 'holder.json'), JSON.stringify({ host: os.hostname(), nonce: 'n0', ...holder }));
}

describe('file lock', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });

  async function liveProcess(): Promise<number> {
    const child = spawn(process.execPath, ['-e', 'process.stdout.write("up"); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(child);
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    return child.pid!;
  }

  it('a fresh lock whose holder no longer exists is reclaimed at once, and the log says so', async () => {
    const root = await tempRoot();
    const logs: LogRecord[] = [];
    const lockPath = path.join(root, 'lease.lock');
    // Dead pid; and a live pid that was reused by another process (start time differs).
    for (const holder of [{ pid: await deadPid() }, { pid: await liveProcess(), startedAt: 'another-boot:1' }]) {
      await leaveLock(lockPath, holder);
      const got = await withFileLock(path.join(root, 'lease.json'), lockPath, recordingLogger(logs), async () => 'in', { retries: NO_WAIT });
      assert.equal(got, 'in');
      assert.ok(logs.some((l) => l.message.includes('locked by a process that no longer exists') && l.message.includes('reclaimed') && l.message.includes(`pid ${holder.pid}`)), JSON.stringify(logs));
      await assert.rejects(fs.stat(lockPath), /ENOENT/, 'released after the section');
    }
  });

  it('a live holder, or a holder on another host, is never reclaimed early', async () => {
    const root = await tempRoot();
    const lockPath = path.join(root, 'lease.lock');
    const live = await liveProcess();
    const cases = [
      { pid: live, startedAt: processStartTime(live) },
      { pid: live },
      { pid: await deadPid(), host: 'another-host' },
    ];
    for (const holder of cases) {
      await leaveLock(lockPath, holder);
      await assert.rejects(
        withFileLock(path.join(root, 'lease.json'), lockPath, recordingLogger([]), async () => 'in', { retries: NO_WAIT }),
        (e) => isVigilError(e, 'SESSION_BUSY') && (e as Error).message.includes(`pid ${holder.pid}`),
        JSON.stringify(holder),
      );
      await fs.rm(lockPath, { recursive: true });
    }
  });

  it('two contenders reclaiming the same dead lock never both hold it', async () => {
    const root = await tempRoot();
    const lockPath = path.join(root, 'lease.lock');
    const dead = await deadPid();
    for (let round = 0; round < 20; round += 1) {
      await leaveLock(lockPath, { pid: dead });
      let inside = 0;
      let overlap = false;
      const section = async () => {
        inside += 1;
        if (inside > 1) overlap = true;
        await new Promise((resolve) => setImmediate(resolve));
        inside -= 1;
      };
      await Promise.all(Array.from({ length: 4 }, () => withFileLock(path.join(root, 'lease.json'), lockPath, recordingLogger([]), section)));
      assert.equal(overlap, false, `round ${round}`);
    }
  });

  it('the wakeup outbox goes through the same lock: a dead holder does not block it', async () => {
    const root = await tempRoot();
    const logs: LogRecord[] = [];
    const file = path.join(root, 's1.jsonl');
    await leaveLock(`${file}.lock`, { pid: await deadPid() });
    const outbox = new SessionOutboxFile('s1', file, recordingLogger(logs));
    await outbox.locked(async () => outbox.append([{ op: 'enqueue', key: 'k', at: 1, completion: undefined as never }]).catch(() => undefined));
    assert.ok(logs.some((l) => l.message.includes('locked by a process that no longer exists') && l.message.includes('reclaimed')), JSON.stringify(logs));
  });
});
