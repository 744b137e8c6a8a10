// A turn's changed files from its two checkpoint trees (real folders, the real git binary): what each file went
// through with its line counts, binary and large files without a diff, a file left out for its size not shown as
// deleted, hostile names kept byte for byte, thousands of files named up to the bound with the count exact, and a
// stored side read for the diff editor only when it is small enough.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { CheckpointStore } from '../../../src/extension/core/checkpoints/checkpointStore';
import { compareBytes, turnChanges } from '../../../src/extension/core/checkpoints/turnChanges';
import { readStoredText } from '../../../src/extension/core/checkpoints/storedText';
import { planRestore } from '../../../src/extension/core/checkpoints/restore';
import { turnChangesSchema } from '../../../src/shared/turnChangesSchema';
import { tempRoot } from '../supervisor/harness';

async function fixture(options: { maxFileBytes?: number } = {}) {
  const folder = await fs.realpath(await tempRoot('vigil-tc-folder-'));
  const store = new CheckpointStore({ storageRoot: await tempRoot('vigil-tc-storage-'), folder, logger: silentLogger, ...options });
  const write = async (rel: string, content: string | Buffer) => {
    await fs.mkdir(path.dirname(path.join(folder, rel)), { recursive: true });
    await fs.writeFile(path.join(folder, rel), content);
  };
  return { folder, store, write };
}

describe('turn changes from checkpoint trees', () => {
  it('names each changed file once with what the turn did and its line counts, binary and large files without counts', async () => {
    const f = await fixture();
    await f.write('a.txt', 'one\ntwo\n');
    await f.write('gone.txt', 'x\ny\nz\n');
    await f.write('same.txt', 'unchanged\n');
    await f.write('img.bin', Buffer.from([0, 1, 2, 3]));
    const before = await f.store.snapshot('t/before');
    await f.write('a.txt', 'one\nTWO\nthree\n');
    await f.write('src/new.ts', 'export const x = 1;\n');
    await fs.rm(path.join(f.folder, 'gone.txt'));
    await f.write('img.bin', Buffer.from([0, 9, 9]));
    await f.write('big.txt', 'l\n'.repeat(compareBytes / 2 + 10));
    const after = await f.store.snapshot('t/after');

    const got = await turnChanges(f.store, before.tree, after.tree);
    assert.deepEqual(got.files, [
      { path: 'a.txt', change: 'modified', added: 2, removed: 1 },
      { path: 'big.txt', change: 'added', noDiff: 'tooLarge' },
      { path: 'gone.txt', change: 'deleted', added: 0, removed: 3 },
      { path: 'img.bin', change: 'modified', noDiff: 'binary' },
      { path: 'src/new.ts', change: 'added', added: 1, removed: 0 },
    ]);
    assert.equal(got.count, 5);
    assert.deepEqual([got.added, got.removed], [3, 4]);
    assert.ok(turnChangesSchema.safeParse(got).success, 'the list is what the transcript record and the view accept');
  });

  it('shows a file the after-checkpoint left out for its size as changed without a diff, not as deleted', async () => {
    const f = await fixture({ maxFileBytes: 1_000 });
    await f.write('log.txt', 'small\n');
    const before = await f.store.snapshot('t/before');
    await f.write('log.txt', 'x'.repeat(5_000));
    const after = await f.store.snapshot('t/after');
    assert.deepEqual(after.skipped.map((s) => s.path), ['log.txt']);

    const got = await turnChanges(f.store, before.tree, after.tree, { skipped: new Set(['log.txt']) });
    assert.deepEqual(got.files, [{ path: 'log.txt', change: 'modified', noDiff: 'tooLarge' }]);
    assert.deepEqual([got.count, got.added, got.removed], [1, 0, 0]);
  });

  it('keeps hostile names byte for byte (newline, control characters, a leading dash, "..", right-to-left override, 250 characters)', async () => {
    const f = await fixture();
    const names = ['line\nbreak.txt', 'bell\u0007.txt', '-rf', '..dots..', 'evil\u202Etxt.exe', 'd'.repeat(250), 'sp ace/"quoted"\\.md'];
    const before = await f.store.snapshot('t/before');
    for (const name of names) await f.write(name, "content\n");
    const after = await f.store.snapshot('t/after');

    const got = await turnChanges(f.store, before.tree, after.tree);
    assert.deepEqual(got.files.map((x) => x.path).sort(), [...names].sort());
    assert.ok(got.files.every((x) => x.change === 'added' && x.added === 1));
    // One file of them, planned alone for its diff or its Restore, by its literal name.
    for (const name of ['line\nbreak.txt', '-rf', 'evil\u202Etxt.exe']) {
      const plan = await planRestore(f.store, before.tree, after.tree, { only: [name] });
      assert.deepEqual(plan.files.map((x) => x.path), [name]);
    }
    const star = await planRestore(f.store, before.tree, after.tree, { only: ['*'] });
    assert.deepEqual(star.files, [], 'a name is matched literally, never as a pattern');
  });

  it('names the first files up to the bound and counts them all (thousands of files)', async () => {
    const f = await fixture();
    const before = await f.store.snapshot('t/before');
    for (let i = 0; i < 3_000; i += 1) await f.write(`gen/f${String(i).padStart(4, '0')}.txt`, `${i}\n`);
    const after = await f.store.snapshot('t/after');

    const got = await turnChanges(f.store, before.tree, after.tree);
    assert.equal(got.count, 3_000);
    assert.equal(got.files.length, 200);
    assert.equal(got.files[0]!.path, 'gen/f0000.txt');
    assert.deepEqual([got.added, got.removed], [3_000, 0], 'the sums cover every file, named or not');
    const tight = await turnChanges(f.store, before.tree, after.tree, { namedPathChars: 100 });
    assert.equal(tight.files.length, 7, 'the names stop at the bound on their characters');
    assert.equal(tight.count, 3_000);
  });

  it('reads a stored side for the diff editor only when it is under the bound, and says binary instead of showing it', async () => {
    const f = await fixture();
    await f.write('text.txt', 'hello\n');
    await f.write('bin.dat', Buffer.from([104, 0, 105]));
    await f.write('large.txt', 'y'.repeat(4_000));
    await f.store.snapshot('t/before');
    const ids = await blobIds(f.store);
    const asked: string[][] = [];
    const run = f.store.git.run.bind(f.store.git);
    f.store.git.run = (args, options) => {
      asked.push(args);
      return run(args, options);
    };

    assert.deepEqual(await readStoredText(f.store, ids.get('text.txt')!, 1_000), { kind: 'text', text: 'hello\n' });
    assert.deepEqual(await readStoredText(f.store, ids.get('bin.dat')!, 1_000), { kind: 'binary', bytes: 3 });
    asked.length = 0;
    assert.deepEqual(await readStoredText(f.store, ids.get('large.txt')!, 1_000), { kind: 'tooLarge', bytes: 4_000 });
    assert.ok(!asked.some((a) => a.includes('blob')), `a file over the bound is never read: ${JSON.stringify(asked)}`);
    await assert.rejects(readStoredText(f.store, '../../etc/passwd', 1_000), /Not an object id/);
  });
});

async function blobIds(store: CheckpointStore): Promise<Map<string, string>> {
  const out = (await store.git.run(['ls-files', '-s', '-z'])).stdout.toString().split('\0').filter(Boolean);
  return new Map(out.map((line) => [line.split('\t')[1]!, line.split(' ')[1]!]));
}
