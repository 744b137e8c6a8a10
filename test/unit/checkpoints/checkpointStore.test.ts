// The checkpoint store on real folders and the real git binary: snapshot, restore of one turn's changes,
// files changed again since, the size bounds, ignore rules, and a hostile repository.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { CheckpointStore, storeDirFor } from '../../../src/extension/core/checkpoints/checkpointStore';
import { applyRestore, planRestore } from '../../../src/extension/core/checkpoints/restore';
import { tempRoot } from '../supervisor/harness';

interface Fixture {
  storage: string;
  folder: string;
  store: CheckpointStore;
  write(rel: string, content: string | Buffer): Promise<void>;
  read(rel: string): Promise<string>;
}

async function fixture(options: { maxFileBytes?: number; maxStoreBytes?: number } = {}): Promise<Fixture> {
  const storage = await tempRoot('vigil-cp-storage-');
  const folder = await fs.realpath(await tempRoot('vigil-cp-folder-'));
  const store = new CheckpointStore({ storageRoot: storage, folder, logger: silentLogger, ...options });
  return {
    storage,
    folder,
    store,
    write: async (rel, content) => {
      await fs.mkdir(path.dirname(path.join(folder, rel)), { recursive: true });
      await fs.writeFile(path.join(folder, rel), content);
    },
    read: (rel) => fs.readFile(path.join(folder, rel), 'utf8'),
  };
}

const exists = (p: string) => fs.lstat(p).then(() => true, () => false);

describe('checkpoint store', () => {
  it('restores exactly the files a turn changed, added and deleted, and nothing else', async () => {
    const f = await fixture();
    await f.write('a.txt', 'a1\n');
    await f.write('src/b.ts', 'b1\n');
    await f.write('gone.txt', 'keep me\n');
    const before = await f.store.snapshot('t1/before');
    // The turn: modifies a, adds c, deletes gone.
    await f.write('a.txt', 'a2\nmore\n');
    await f.write('new/c.txt', 'c\n');
    await fs.rm(path.join(f.folder, 'gone.txt'));
    const after = await f.store.snapshot('t1/after');
    // Outside the turn: a file the person edits afterwards that the turn never touched.
    await f.write('src/b.ts', 'b2 by the person\n');

    const plan = await planRestore(f.store, before.tree, after.tree);
    const byPath = Object.fromEntries(plan.files.map((x) => [x.path, x]));
    assert.deepEqual(Object.keys(byPath).sort(), ['a.txt', 'gone.txt', 'new/c.txt']);
    assert.equal(byPath['a.txt']!.change, 'modified');
    assert.equal(byPath['a.txt']!.added, 2);
    assert.equal(byPath['a.txt']!.removed, 1);
    assert.equal(byPath['new/c.txt']!.change, 'added');
    assert.equal(byPath['gone.txt']!.change, 'deleted');
    assert.ok(plan.files.every((x) => !x.changedSince));

    const result = await applyRestore(f.store, plan, new Set());
    assert.deepEqual(result.restored.sort(), ['a.txt', 'gone.txt', 'new/c.txt']);
    assert.equal(await f.read('a.txt'), 'a1\n');
    assert.equal(await f.read('gone.txt'), 'keep me\n');
    assert.equal(await exists(path.join(f.folder, 'new/c.txt')), false);
    assert.equal(await f.read('src/b.ts'), 'b2 by the person\n', 'a file the turn did not change is never touched');
  });

  it('finds files changed again since the turn and overwrites them only when told to', async () => {
    const f = await fixture();
    await f.write('x.txt', 'x1');
    await f.write('y.txt', 'y1');
    const before = await f.store.snapshot('t/before');
    await f.write('x.txt', 'x2');
    await f.write('y.txt', 'y2');
    const after = await f.store.snapshot('t/after');
    await f.write('x.txt', 'x3 by the person');

    const plan = await planRestore(f.store, before.tree, after.tree);
    assert.deepEqual(plan.files.filter((x) => x.changedSince).map((x) => x.path), ['x.txt']);
    const kept = await applyRestore(f.store, plan, new Set());
    assert.deepEqual(kept.restored, ['y.txt']);
    assert.deepEqual(kept.kept.map((k) => k.path), ['x.txt']);
    assert.equal(await f.read('x.txt'), 'x3 by the person');
    assert.equal(await f.read('y.txt'), 'y1');

    // A change made after the plan was shown is caught again at write time.
    const plan2 = await planRestore(f.store, before.tree, after.tree);
    await f.write('y.txt', 'y4 made while the preview was open');
    const late = await applyRestore(f.store, plan2, new Set(['x.txt']));
    assert.deepEqual(late.restored, ['x.txt']);
    assert.equal(await f.read('x.txt'), 'x1');
    assert.equal(await f.read('y.txt'), 'y4 made while the preview was open');
  });

  it('honours .gitignore and never records .git or Vigil\'s own storage', async () => {
    const f = await fixture();
    await f.write('.gitignore', 'build/\n*.log\n!keep.log\n');
    await f.write('build/out.js', 'ignored');
    await f.write('debug.log', 'ignored');
    await f.write('keep.log', 'kept');
    await f.write('.git/config', '[core]\n');
    await f.write('sub/.gitignore', 'local.txt\n');
    await f.write('sub/local.txt', 'ignored by the nested .gitignore');
    await f.write('sub/code.ts', 'kept');
    const snap = await f.store.snapshot('t/before');
    const listed = execFileSync('git', ['ls-tree', '-r', '--name-only', snap.tree], { env: f.store.git.env() }).toString().trim().split('\n').sort();
    assert.deepEqual(listed, ['.gitignore', 'keep.log', 'sub/.gitignore', 'sub/code.ts']);
    // Vigil's storage inside the folder is left out too.
    const inside = new CheckpointStore({ storageRoot: path.join(f.folder, '.vigil-storage'), folder: f.folder, logger: silentLogger });
    await f.write('.vigil-storage/other.json', '{}');
    const snap2 = await inside.snapshot('t/before');
    const listed2 = execFileSync('git', ['ls-tree', '-r', '--name-only', snap2.tree], { env: inside.git.env() }).toString();
    assert.ok(!listed2.includes('.vigil-storage'), listed2);
  });

  it('leaves out files over the size limit, says so, and drops an earlier small version of them', async () => {
    const f = await fixture({ maxFileBytes: 1_000 });
    await f.write('big.bin', 'small at first');
    await f.write('ok.txt', 'ok');
    const first = await f.store.snapshot('t1/before');
    assert.equal(first.skippedCount, 0);
    await f.write('big.bin', Buffer.alloc(5_000, 1));
    const second = await f.store.snapshot('t1/after');
    assert.equal(second.skippedCount, 1);
    assert.deepEqual(second.skipped, [{ path: 'big.bin', reason: 'tooLarge', bytes: 5_000 }]);
    const listed = execFileSync('git', ['ls-tree', '-r', '--name-only', second.tree], { env: f.store.git.env() }).toString().trim();
    assert.equal(listed, 'ok.txt');
  });

  it('refuses a folder larger than the store bound and drops old checkpoints to stay under it', async () => {
    const tooBig = await fixture({ maxStoreBytes: 10_000 });
    await tooBig.write('a.bin', Buffer.alloc(20_000, 2));
    await assert.rejects(tooBig.store.snapshot('t/before'), /more than the .* checkpoints may keep/);

    const f = await fixture({ maxStoreBytes: 60_000 });
    const random = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(Math.random() * 256)));
    const trees: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      await f.write('data.bin', random(20_000));
      trees.push((await f.store.snapshot(`t${i}/after`)).tree);
    }
    assert.ok((await f.store.storeBytes()) <= 60_000, `store is ${await f.store.storeBytes()} bytes`);
    assert.equal(await f.store.hasTrees([trees[5]!]), true, 'the newest checkpoint is kept');
    assert.equal(await f.store.hasTrees([trees[0]!]), false, 'the oldest was dropped');
    await assert.rejects(planRestore(f.store, trees[0]!, trees[5]!), /no longer stored/);
  });

  it('records links as links and restores them without following them or writing outside the folder', async () => {
    const f = await fixture();
    const outside = await tempRoot('vigil-cp-outside-');
    await fs.writeFile(path.join(outside, 'secret.txt'), 'outside');
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(f.folder, 'link'));
    await fs.symlink(outside, path.join(f.folder, 'dirlink'));
    const before = await f.store.snapshot('t/before');
    // The turn replaces the link with a file, and writes through the directory link.
    await fs.rm(path.join(f.folder, 'link'));
    await f.write('link', 'now a file');
    await fs.writeFile(path.join(outside, 'written-by-turn.txt'), 'x');
    const after = await f.store.snapshot('t/after');
    const plan = await planRestore(f.store, before.tree, after.tree);
    assert.deepEqual(plan.files.map((x) => x.path), ['link'], 'the link to a folder is one entry; nothing behind it is recorded');
    await applyRestore(f.store, plan, new Set());
    assert.equal(await fs.readlink(path.join(f.folder, 'link')), path.join(outside, 'secret.txt'));
    assert.equal(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8'), 'outside');
  });

  it('does not write through a folder swapped for a link to outside', async () => {
    const f = await fixture();
    const outside = await tempRoot('vigil-cp-outside-');
    await f.write('dir/file.txt', 'one');
    const before = await f.store.snapshot('t/before');
    await f.write('dir/file.txt', 'two');
    const after = await f.store.snapshot('t/after');
    await fs.rm(path.join(f.folder, 'dir'), { recursive: true });
    await fs.symlink(outside, path.join(f.folder, 'dir'));
    const plan = await planRestore(f.store, before.tree, after.tree);
    const result = await applyRestore(f.store, plan, new Set(['dir/file.txt']));
    assert.deepEqual(result.restored, []);
    assert.match(result.kept[0]!.why, /symbolic link/);
    assert.deepEqual(await fs.readdir(outside), []);
  });

  it('handles names with newlines, a .git file in a subfolder, a hostile .gitattributes and odd ignore patterns', async () => {
    const f = await fixture();
    await f.write('.gitignore', '[\n\\\n!\n#x\n/../..\n***.tmp[\n');
    await f.write('.gitattributes', '* text eol=crlf filter=evil ident\n');
    await f.write('line\nbreak.txt', 'a\n');
    await f.write('nested/.git', 'gitdir: /nonexistent\n');
    await f.write('nested/inner.txt', 'inner\n');
    await f.write('crlf.txt', 'one\ntwo\n');
    // A nested repository without a commit makes a plain `git add -A` fail: it is left out, and said so.
    await fs.mkdir(path.join(f.folder, 'vendor/lib'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: path.join(f.folder, 'vendor/lib') });
    await f.write('vendor/lib/x.c', 'x');
    const before = await f.store.snapshot('t/before');
    assert.deepEqual(before.skipped, [{ path: 'vendor/lib', reason: 'nestedRepository' }]);
    const listed = execFileSync('git', ['ls-tree', '-r', '--name-only', '-z', before.tree], { env: f.store.git.env() }).toString().split('\0').filter(Boolean).sort();
    assert.deepEqual(listed, ['.gitattributes', '.gitignore', 'crlf.txt', 'line\nbreak.txt', 'nested/inner.txt']);
    await f.write('line\nbreak.txt', 'b\n');
    await f.write('crlf.txt', 'three\n');
    const after = await f.store.snapshot('t/after');
    const plan = await planRestore(f.store, before.tree, after.tree);
    assert.ok(plan.files.some((x) => x.path === 'line\nbreak.txt'), JSON.stringify(plan.files.map((x) => x.path)));
    assert.ok(plan.files.every((x) => !x.changedSince), 'stored bytes equal the files on disk (no eol conversion)');
    await applyRestore(f.store, plan, new Set());
    assert.equal(await f.read('line\nbreak.txt'), 'a\n');
    assert.equal(await f.read('crlf.txt'), 'one\ntwo\n');
    assert.equal(await f.read('nested/.git'), 'gitdir: /nonexistent\n', 'a .git file is never recorded, so never touched');
  });

  it('a file whose name is not UTF-8 is left as it is and said so, never restored under another name', async () => {
    const f = await fixture();
    // "café.txt" in Latin-1: a name git records byte for byte, but no JavaScript string spells.
    const latin1 = Buffer.concat([Buffer.from(`${f.folder}/caf`), Buffer.from([0xe9]), Buffer.from('.txt')]);
    await fs.writeFile(latin1, 'before\n');
    await f.write('ok.txt', 'before\n');
    const before = await f.store.snapshot('t1/before');
    await fs.writeFile(latin1, 'after\n');
    await f.write('ok.txt', 'after\n');
    const after = await f.store.snapshot('t1/after');
    const plan = await planRestore(f.store, before.tree, after.tree);
    assert.deepEqual(plan.files.map((p) => p.path), ['ok.txt']);
    const result = await applyRestore(f.store, plan, new Set(['caf\uFFFD.txt']));
    assert.deepEqual(result.restored, ['ok.txt']);
    assert.deepEqual(result.kept.map((k) => k.path), ['caf\uFFFD.txt']);
    assert.match(result.kept[0]!.why, /not UTF-8/);
    const names = (await fs.readdir(f.folder, { encoding: 'buffer' })).map((n) => n.toString('hex')).sort();
    assert.deepEqual(names, [Buffer.from('caf\u00e9.txt', 'latin1').toString('hex'), Buffer.from('ok.txt').toString('hex')], 'no file was written under a mangled name');
    assert.equal(await fs.readFile(latin1, 'utf8'), 'after\n');
    assert.equal(await f.read('ok.txt'), 'before\n');
  });

  it('a folder holding a name that is not UTF-8 is still recorded when only that folder is named as changed', async () => {
    const f = await fixture();
    await f.write('d/keep.txt', 'k\n');
    await f.store.snapshot('t1/before');
    await fs.writeFile(Buffer.concat([Buffer.from(`${f.folder}/d/caf`), Buffer.from([0xe9]), Buffer.from('.txt')]), 'x\n');
    await f.write('d/ok.txt', 'y\n');
    const got = await f.store.update(new Set(['d']));
    const listed = execFileSync('git', ['ls-tree', '-r', '-z', '--name-only', got.tree], { env: f.store.git.env() }).toString('hex');
    assert.ok(listed.includes(Buffer.from('d/caf\u00e9.txt', 'latin1').toString('hex')), 'the file is recorded under its own bytes');
    assert.ok(listed.includes(Buffer.from('d/ok.txt').toString('hex')));
  });

  it('keeps the person\'s own repository untouched and ignores their git configuration', async () => {
    const f = await fixture();
    execFileSync('git', ['init', '-q'], { cwd: f.folder });
    await f.write('tracked.txt', 'one');
    const gitBefore = await fs.readdir(path.join(f.folder, '.git'));
    const prior = process.env.GIT_INDEX_FILE;
    process.env.GIT_INDEX_FILE = path.join(f.folder, 'hijacked-index');
    try {
      await f.store.snapshot('t/before');
    } finally {
      if (prior === undefined) delete process.env.GIT_INDEX_FILE;
      else process.env.GIT_INDEX_FILE = prior;
    }
    assert.deepEqual(await fs.readdir(path.join(f.folder, '.git')), gitBefore);
    assert.equal(await exists(path.join(f.folder, 'hijacked-index')), false);
    assert.ok(await exists(path.join(storeDirFor(f.storage, f.folder), 'git', 'HEAD')));
  });

  it('says clearly when git is missing', async () => {
    const storage = await tempRoot();
    const folder = await tempRoot();
    const store = new CheckpointStore({ storageRoot: storage, folder, logger: silentLogger, gitBinary: 'git-that-does-not-exist' });
    await assert.rejects(store.snapshot('t/before'), /need the git program/);
  });

  it('two stores on one folder (two windows) snapshot at the same time without corrupting it', async () => {
    const f = await fixture();
    for (let i = 0; i < 200; i += 1) await f.write(`f${i % 10}/file${i}.txt`, `content ${i}\n`);
    const other = new CheckpointStore({ storageRoot: f.storage, folder: f.folder, logger: silentLogger });
    const runs = await Promise.all([0, 1, 2, 3].flatMap((i) => [f.store.snapshot(`a${i}/before`), other.snapshot(`b${i}/before`)]));
    assert.equal(new Set(runs.map((r) => r.tree)).size, 1);
    execFileSync('git', ['fsck', '--no-progress'], { env: f.store.git.env(), stdio: 'ignore' });
  });
});
