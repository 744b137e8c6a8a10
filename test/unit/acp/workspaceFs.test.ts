// fs/* confinement and service: relative escapes and symlinks out of the workspace are outside; reads honour
// line/limit; writes replace atomically, keep the mode, and go through inside symlinks; listing and search are bounded.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { forceNoProcFdForTests } from '../../../src/extension/core/acp/boundaryOpen';
import { maxWholeReadBytes } from '../../../src/extension/core/acp/lineRangeReader';
import { WorkspaceFs } from '../../../src/extension/core/acp/workspaceFs';

// Twice: with /proc/self/fd (Linux) and with the dev/ino fallback that macOS and Windows use.
for (const fallback of [false, true]) describe(`workspace file access${fallback ? ' (fallback without /proc)' : ''}`, () => {
  before(() => forceNoProcFdForTests(fallback));
  after(() => forceNoProcFdForTests(false));
  let base: string;
  let root: string;
  let outside: string;
  let ws: WorkspaceFs;
  const read = async (p: string, line?: number, limit?: number) => ws.read(await ws.locate(p), line, limit);
  const write = async (p: string, content: string) => ws.write(await ws.locate(p), content);

  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-wsfs-')));
    root = path.join(base, 'ws');
    outside = path.join(base, 'secret');
    await fs.mkdir(path.join(root, 'src'), { recursive: true });
    await fs.mkdir(outside);
    await fs.writeFile(path.join(root, 'src', 'a.ts'), 'const x = 1;\n// TODO: fix\n');
    await fs.writeFile(path.join(outside, 'key.txt'), 'hunter2');
    await fs.symlink(outside, path.join(root, 'link'));
    ws = new WorkspaceFs(root);
  });
  afterEach(async () => fs.rm(base, { recursive: true, force: true }));

  it('accepts paths inside, including files that do not exist yet', async () => {
    assert.equal((await ws.locate(path.join(root, 'src', 'a.ts'))).inside, true);
    assert.equal((await ws.locate(path.join(root, 'new', 'b.ts'))).inside, true);
  });

  it('sees through `..` and symlinks that leave the workspace', async () => {
    assert.equal((await ws.locate(path.join(root, '..', 'secret', 'key.txt'))).inside, false);
    assert.equal((await ws.locate(path.join(root, 'link', 'key.txt'))).inside, false);
    assert.equal((await ws.locate(path.join(root, 'link', 'new.txt'))).inside, false);
  });

  it('takes relative paths against the workspace root', async () => {
    const where = await ws.locate('src/a.ts');
    assert.deepEqual([where.inside, where.real], [true, path.join(root, 'src', 'a.ts')]);
    assert.equal((await ws.locate('../secret/key.txt')).inside, false);
  });

  it('serves an outside path only once it is marked approved', async () => {
    const where = await ws.locate(path.join(root, 'link', 'key.txt'));
    await assert.rejects(ws.read(where), /Cannot read .*link\/key\.txt → .*secret\/key\.txt \(via a symlink\): it is outside the workspace folder and was not approved/);
    assert.equal(await ws.read(ws.approved(where)), 'hunter2');
  });

  it('reads line ranges like ACP asks, and says clearly when a file is missing', async () => {
    const file = path.join(root, 'lines.txt');
    await fs.writeFile(file, 'one\ntwo\nthree\nfour\n');
    assert.equal(await read(path.join(root, 'src', 'a.ts'), 2, 1), '// TODO: fix');
    assert.equal(await read(file), 'one\ntwo\nthree\nfour\n');
    assert.equal(await read(file, 1, 1), 'one');
    assert.equal(await read(file, 2, 2), 'two\nthree');
    assert.equal(await read(file, 3), 'three\nfour\n');
    assert.equal(await read(file, 9, 2), '');
    assert.equal(await read(file, 0, 0), 'one\ntwo\nthree\nfour\n');
    await assert.rejects(read(file, -1, 1), /"line" must be a whole number ≥ 0/);
    await assert.rejects(read(file, 1, 1.5), /"limit" must be a whole number ≥ 0/);
    await assert.rejects(read(path.join(root, 'nope.ts')), /Cannot read .*nope\.ts: no such file or folder/);
  });

  it('keeps multi-byte characters whole across read chunks', async () => {
    const file = path.join(root, 'utf8.txt');
    const text = `${'é'.repeat(70_000)}\n${'字'.repeat(30_000)}\n`;
    await fs.writeFile(file, text);
    assert.equal(await read(file), text);
    assert.equal(await read(file, 2, 1), '字'.repeat(30_000));
  });

  it('refuses a whole read of a big file with "read a range", and serves the range', async () => {
    const file = path.join(root, 'big.log');
    await fs.writeFile(file, 'header\n');
    await fs.truncate(file, maxWholeReadBytes + 1);
    await assert.rejects(read(file), /File too large \(8\.0 MB\): .*big\.log\. Read a range with "line" and "limit"/);
    assert.equal(await read(file, 1, 1), 'header');
  });

  it('writes atomically: replaces the content, keeps the mode, leaves no temporary file', async () => {
    const file = path.join(root, 'src', 'a.ts');
    await fs.chmod(file, 0o640);
    await write(file, 'new content');
    assert.equal(await fs.readFile(file, 'utf8'), 'new content');
    assert.equal((await fs.stat(file)).mode & 0o777, 0o640);
    assert.deepEqual(await fs.readdir(path.join(root, 'src')), ['a.ts']);
  });

  it('creates missing folders for a new file, and writes through a symlink that stays inside', async () => {
    await write(path.join(root, 'deep', 'er', 'new.ts'), 'fresh');
    assert.equal(await fs.readFile(path.join(root, 'deep', 'er', 'new.ts'), 'utf8'), 'fresh');
    await fs.symlink('src/a.ts', path.join(root, 'alias.ts'));
    await write(path.join(root, 'alias.ts'), 'via alias');
    assert.equal(await fs.readFile(path.join(root, 'src', 'a.ts'), 'utf8'), 'via alias');
    assert.equal((await fs.lstat(path.join(root, 'alias.ts'))).isSymbolicLink(), true, 'the link itself stays a link');
  });

  it('refuses to write over a folder, and loses nothing', async () => {
    await assert.rejects(write(path.join(root, 'src'), 'x'), /Cannot write .*src: it is a folder/);
    assert.equal(await fs.readFile(path.join(root, 'src', 'a.ts'), 'utf8'), 'const x = 1;\n// TODO: fix\n');
  });

  it('lists and searches without following symlinks, and clamps agent-chosen counts', async () => {
    const listing = await ws.list(await ws.locate(root));
    // A symlink is listed as an entry but not followed (the walk never leaves the workspace through it).
    assert.deepEqual(listing.entries, ['link', 'src/', 'src/a.ts']);
    const found = await ws.search(await ws.locate(root), 'TODO');
    assert.deepEqual(found.matches, [{ path: 'src/a.ts', line: 2, text: '// TODO: fix' }]);
    assert.deepEqual((await ws.search(await ws.locate(root), 'hunter2')).matches, []);
    const single = await ws.search(await ws.locate(path.join(root, 'src', 'a.ts')), 'const');
    assert.deepEqual(single.matches, [{ path: 'src/a.ts', line: 1, text: 'const x = 1;' }]);
    for (let i = 0; i < 30; i += 1) await fs.writeFile(path.join(root, `f${i}.txt`), 'x');
    assert.equal((await ws.list(await ws.locate(root), 1e12)).entries.length, 33);
    await assert.rejects(ws.list(await ws.locate(path.join(root, 'src', 'a.ts'))), /it is a file, not a folder\. Read it instead/);
  });
});
