// How a restore compares the files on disk with what the turn left: by size first (a file grown large is never read),
// then by a hash read in bounded chunks (checked through an injected reader that refuses larger requests); and a file
// whose folder is no longer a folder is refused by name while the others are restored.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { CheckpointStore } from '../../../src/extension/core/checkpoints/checkpointStore';
import { applyRestore, planRestore } from '../../../src/extension/core/checkpoints/restore';
import { hashChunkBytes, readChunk, type ChunkRead } from '../../../src/extension/core/checkpoints/restoreBlobs';

/** A reader that fails if asked for more than `hashChunkBytes` at once, and counts what it was asked for. */
function boundedReader(): { read: ChunkRead; requests: number[]; bytes: () => number } {
  const requests: number[] = [];
  const read: ChunkRead = (handle, buffer, position) => {
    if (buffer.length > hashChunkBytes) return Promise.reject(new Error(`asked for ${buffer.length} bytes at once`));
    requests.push(buffer.length);
    return readChunk(handle, buffer, position);
  };
  return { read, requests, bytes: () => requests.reduce((a, b) => a + b, 0) };
}

describe('restore compares files in bounded memory', () => {
  let base: string;
  let folder: string;
  let store: CheckpointStore;
  const file = (rel: string) => path.join(folder, rel);

  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-restore-cmp-')));
    folder = path.join(base, 'ws');
    await fs.mkdir(folder);
    store = new CheckpointStore({ storageRoot: path.join(base, 'storage'), folder, logger: silentLogger });
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  /** A turn that turned `big.bin` from one line into `size` bytes, and the plan to restore it. */
  async function turnOfBigFile(size: number): Promise<{ before: string; after: string; content: Buffer }> {
    await fs.writeFile(file('big.bin'), 'small\n');
    const before = await store.snapshot('t/before');
    const content = Buffer.alloc(size, 'x');
    content.write('the turn wrote this', 1000);
    await fs.writeFile(file('big.bin'), content);
    const after = await store.snapshot('t/after');
    return { before: before.tree, after: after.tree, content };
  }

  it('hashes a file larger than the bound in chunks no larger than the bound, and finds it unchanged', async () => {
    const size = 3 * hashChunkBytes + 123;
    const turn = await turnOfBigFile(size);
    const reader = boundedReader();
    const plan = await planRestore(store, turn.before, turn.after, { read: reader.read });
    assert.equal(plan.files.length, 1);
    assert.equal(plan.files[0]!.changedSince, false);
    assert.ok(reader.requests.length >= 4, `read in chunks: ${reader.requests.join(', ')}`);
    assert.ok(reader.bytes() >= size, 'every byte was hashed');
  });

  it('finds a same-size change by its hash, read in chunks', async () => {
    const size = 2 * hashChunkBytes + 7;
    const turn = await turnOfBigFile(size);
    const changed = Buffer.from(turn.content);
    changed[size - 1] = 0x41;
    await fs.writeFile(file('big.bin'), changed);
    const reader = boundedReader();
    const plan = await planRestore(store, turn.before, turn.after, { read: reader.read });
    assert.equal(plan.files[0]!.changedSince, true);
    assert.ok(reader.bytes() >= size);
  });

  it('a file grown past its stored size is changed without reading a byte of it, in the preview and in the restore', async () => {
    const turn = await turnOfBigFile(hashChunkBytes + 1);
    // Grown to 64 MB (sparse: no disk needed), as a build output or a log does.
    await fs.truncate(file('big.bin'), 64 * 1024 * 1024);
    const reader = boundedReader();
    const plan = await planRestore(store, turn.before, turn.after, { read: reader.read });
    assert.equal(plan.files[0]!.changedSince, true);
    const result = await applyRestore(store, plan, new Set(['big.bin']), { read: reader.read });
    assert.deepEqual(result.restored, ['big.bin']);
    assert.deepEqual(reader.requests, [], 'not one byte was read');
    assert.equal(await fs.readFile(file('big.bin'), 'utf8'), 'small\n');
  });

  it('refuses, by name, the files of a folder that is now a link or a file, and restores the others', async () => {
    const outside = path.join(base, 'outside');
    await fs.mkdir(outside);
    for (const dir of ['d', 'e', 'ok']) {
      await fs.mkdir(file(dir));
      await fs.writeFile(file(`${dir}/x.txt`), 'before');
    }
    const before = await store.snapshot('t/before');
    for (const dir of ['d', 'e', 'ok']) await fs.writeFile(file(`${dir}/x.txt`), 'after');
    await fs.writeFile(file('d/new.txt'), 'added');
    const after = await store.snapshot('t/after');
    await fs.rm(file('d'), { recursive: true });
    await fs.symlink(outside, file('d'));
    await fs.rm(file('e'), { recursive: true });
    await fs.writeFile(file('e'), 'a file now');
    const plan = await planRestore(store, before.tree, after.tree);
    const result = await applyRestore(store, plan, new Set(plan.files.map((f) => f.path)));
    assert.deepEqual(result.restored, ['ok/x.txt']);
    assert.deepEqual(result.kept.map((k) => k.path), ['d/new.txt', 'd/x.txt', 'e/x.txt']);
    assert.match(result.kept[0]!.why, /^not restored: d is now a symbolic link/);
    assert.match(result.kept[2]!.why, /^not restored: e is now a file, not a folder/);
    assert.deepEqual(await fs.readdir(outside), []);
    assert.equal(await fs.readFile(file('ok/x.txt'), 'utf8'), 'before');
  });
});
