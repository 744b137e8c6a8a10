// A full disk during a batch append: the rejected batch leaves nothing, in the transcript and in any JSONL file (the outbox).

import * as assert from 'node:assert/strict';
import fsCallbacks, { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isVigilError } from '../../../src/extension/core/common/errors';
import { appendJsonl, openForAppend, type AppendHandle, type OpenForAppend } from '../../../src/extension/core/store/jsonl';
import { readTranscript, readTranscriptTail, TranscriptWriter } from '../../../src/extension/core/store/transcript';
import { tempRoot } from '../supervisor/harness';

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/** Opens the real file, but the disk fills up: `at: 'write'` after `keep` bytes of the append, `at: 'sync'` at the fsync. */
function fullDisk(at: 'write' | 'sync', keep = 0): { open: OpenForAppend; armed: { on: boolean } } {
  const armed = { on: true };
  const open: OpenForAppend = async (file) => {
    const real = await fs.open(file, 'a+');
    const handle: AppendHandle = {
      stat: () => real.stat(),
      read: (b, o, l, p) => real.read(b, o, l, p),
      truncate: (n) => real.truncate(n),
      close: () => real.close(),
      async appendFile(data, encoding) {
        if (!armed.on || at !== 'write') return real.appendFile(data, encoding);
        const bytes = Buffer.from(data, encoding);
        await real.write(bytes.subarray(0, Math.min(keep, bytes.length)));
        throw enospc();
      },
      async sync() {
        if (armed.on && at === 'sync') throw enospc();
        return real.sync();
      },
    };
    return handle;
  };
  return { open, armed };
}

const note = (text: string) => ({ type: 'notice' as const, level: 'info' as const, text });

describe('appends on a full disk', () => {
  for (const [at, keep] of [['write', 0], ['write', 1], ['write', 150], ['write', 4000], ['sync', 0]] as const) {
    it(`a transcript batch rejected at the ${at} (${keep} bytes reached the file) leaves nothing behind`, async () => {
      const dir = await tempRoot();
      const file = path.join(dir, 'transcript.jsonl');
      await new TranscriptWriter(file).append([note('kept 1'), note('kept 2')]);
      const before = await fs.readFile(file);
      const disk = fullDisk(at, keep);
      const w = new TranscriptWriter(file, { open: disk.open });
      const batch = Array.from({ length: 50 }, (_, i) => note(`rejected ${i}`));
      await assert.rejects(w.append(batch), (e) => isVigilError(e, 'STORAGE_UNWRITABLE') && /full/.test((e as Error).message));
      assert.deepEqual(await fs.readFile(file), before, 'the file is byte for byte what it was before the batch');
      assert.deepEqual((await readTranscriptTail(file, 100)).records.map((r) => (r as { text: string }).text), ['kept 1', 'kept 2']);
      // Space is freed: the next batch lands whole, on its own line.
      disk.armed.on = false;
      await w.append(note('after'));
      const all = await readTranscript(file);
      assert.deepEqual(all.records.map((r) => (r as { text: string }).text), ['kept 1', 'kept 2', 'after']);
      assert.equal(all.corrupt.length, 0);
    });
  }

  it('the same holds for any JSONL append (the wakeup outbox appends through it), torn tail included', async () => {
    const dir = await tempRoot();
    const file = path.join(dir, 'outbox.jsonl');
    await appendJsonl(file, [{ op: 'enqueue', key: 'a' }]);
    await fs.appendFile(file, '{"op":"enq'); // a torn line from a crash: the append first adds a newline
    const before = await fs.readFile(file);
    await assert.rejects(appendJsonl(file, [{ op: 'enqueue', key: 'b' }, { op: 'enqueue', key: 'c' }], { open: fullDisk('write', 30).open }));
    assert.deepEqual(await fs.readFile(file), before);
    await appendJsonl(file, [{ op: 'enqueue', key: 'd' }], { open: openForAppend });
    const lines = (await fs.readFile(file, 'utf8')).split('\n');
    assert.deepEqual(lines, ['{"op":"enqueue","key":"a"}', '{"op":"enq', '{"op":"enqueue","key":"d"}', '']);
  });

  // A small append (the outbox's, a turn's prompt) is written through its descriptor, synchronously but for the fsync.
  for (const [at, keep] of [['write', 0], ['write', 40], ['sync', 0]] as const) {
    it(`a small append rejected at the ${at} (${keep} bytes reached the file) leaves nothing behind`, async () => {
      const dir = await tempRoot();
      const file = path.join(dir, 'outbox.jsonl');
      await appendJsonl(file, [{ op: 'enqueue', key: 'a' }]);
      const before = await fs.readFile(file);
      const { writeFileSync, fsync } = fsCallbacks;
      fsCallbacks.writeFileSync = ((target: unknown, data: string, encoding: BufferEncoding) => {
        if (typeof target !== 'number' || at !== 'write') return writeFileSync(target as number, data, encoding);
        fsCallbacks.writeSync(target, Buffer.from(data, encoding).subarray(0, keep));
        throw enospc();
      }) as typeof writeFileSync;
      fsCallbacks.fsync = ((fd: number, cb: (error: NodeJS.ErrnoException | null) => void) => (at === 'sync' ? process.nextTick(cb, enospc()) : fsync(fd, cb))) as typeof fsync;
      try {
        await assert.rejects(appendJsonl(file, [{ op: 'enqueue', key: 'b' }, { op: 'enqueue', key: 'c' }]), (e) => isVigilError(e, 'STORAGE_UNWRITABLE') && /full/.test((e as Error).message));
      } finally {
        Object.assign(fsCallbacks, { writeFileSync, fsync });
      }
      assert.deepEqual(await fs.readFile(file), before, 'the file is byte for byte what it was before the append');
      await appendJsonl(file, [{ op: 'enqueue', key: 'd' }]);
      assert.deepEqual((await fs.readFile(file, 'utf8')).split('\n'), ['{"op":"enqueue","key":"a"}', '{"op":"enqueue","key":"d"}', '']);
    });
  }
});
