// Where a terminal cwd or a linked file really is: real paths decide, so `..`, `/`, symlinks leading
// out and missing folders are outside, and names beginning with `..` are inside.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { placeDirectory, placeLinkedFile } from '../../../src/extension/core/acp/workspaceDir';

describe('workspace directory placement', () => {
  let base: string;
  let ws: string;
  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-wsdir-')));
    ws = path.join(base, 'ws');
    await fs.mkdir(path.join(ws, 'src'), { recursive: true });
    await fs.mkdir(path.join(base, 'out'));
    await fs.writeFile(path.join(ws, 'a.txt'), 'a');
    await fs.writeFile(path.join(base, 'secret.txt'), 's');
    await fs.symlink(path.join(base, 'out'), path.join(ws, 'link-out'));
    await fs.symlink(path.join(ws, 'src'), path.join(ws, 'link-in'));
    await fs.symlink(path.join(base, 'secret.txt'), path.join(ws, 'secret-link.txt'));
    await fs.mkdir(path.join(ws, '..env'));
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  it('places cwds by their real path', async () => {
    assert.deepEqual(await placeDirectory(ws, undefined), { path: ws, inside: true });
    assert.deepEqual(await placeDirectory(ws, 'src'), { path: path.join(ws, 'src'), inside: true });
    assert.deepEqual(await placeDirectory(ws, 'link-in'), { path: path.join(ws, 'src'), inside: true });
    assert.deepEqual(await placeDirectory(ws, '..env'), { path: path.join(ws, '..env'), inside: true });
    assert.deepEqual(await placeDirectory(ws, '/'), { path: '/', inside: false });
    assert.deepEqual(await placeDirectory(ws, '..'), { path: base, inside: false });
    assert.deepEqual(await placeDirectory(ws, 'src/../..'), { path: base, inside: false });
    assert.deepEqual(await placeDirectory(ws, path.join(ws, 'link-out')), { path: path.join(base, 'out'), inside: false });
    assert.deepEqual(await placeDirectory(ws, 'link-out/new/dir'), { path: path.join(base, 'out', 'new', 'dir'), inside: false, problem: 'missing' });
    assert.deepEqual(await placeDirectory(ws, 'missing'), { path: path.join(ws, 'missing'), inside: false, problem: 'missing' });
    assert.deepEqual(await placeDirectory(ws, 'a.txt'), { path: path.join(ws, 'a.txt'), inside: true, problem: 'notFolder' });
    await assert.rejects(placeDirectory(ws, 'a\0b'), /NUL/);
  });

  it('places a cwd by the same walk as every file path (one definition of inside)', async () => {
    assert.deepEqual(await placeDirectory(ws, 'src/'), { path: path.join(ws, 'src'), inside: true });
    assert.deepEqual(await placeDirectory(ws, './src/.//'), { path: path.join(ws, 'src'), inside: true });
    assert.deepEqual(await placeDirectory(ws, `${ws}/`), { path: ws, inside: true });
    assert.deepEqual(await placeDirectory(ws, ''), { path: ws, inside: true });
    // A link to a missing folder inside is missing (asked), not a place to run in.
    await fs.symlink('src/gone', path.join(ws, 'dangling'));
    assert.deepEqual(await placeDirectory(ws, 'dangling'), { path: path.join(ws, 'src', 'gone'), inside: false, problem: 'missing' });
    // A symlink loop is refused with a clear error instead of being guessed at.
    await fs.symlink('loop-b', path.join(ws, 'loop-a'));
    await fs.symlink('loop-a', path.join(ws, 'loop-b'));
    await assert.rejects(placeDirectory(ws, 'loop-a'), /more than 40 symlinks/);
    // The workspace reached through an alias of its root is still inside, by its real path.
    const alias = path.join(base, 'ws-alias');
    await fs.symlink(ws, alias);
    assert.deepEqual(await placeDirectory(alias, 'link-in'), { path: path.join(ws, 'src'), inside: true });
    assert.deepEqual(await placeDirectory(alias, path.join(alias, 'link-out')), { path: path.join(base, 'out'), inside: false });
    if (process.platform !== 'win32') {
      // A backslash is part of a name here: `..\\..` is a (missing) folder inside, not two levels up.
      assert.deepEqual(await placeDirectory(ws, '..\\..'), { path: path.join(ws, '..\\..'), inside: false, problem: 'missing' });
    }
  });

  it('opens only regular files inside a workspace folder from links', async () => {
    assert.deepEqual(await placeLinkedFile([ws], path.join(ws, 'a.txt')), { path: path.join(ws, 'a.txt') });
    assert.match(JSON.stringify(await placeLinkedFile([ws], path.join(ws, 'secret-link.txt'))), /outside the workspace \(it leads to .*secret\.txt\)/);
    assert.match(JSON.stringify(await placeLinkedFile([ws], path.join(base, 'secret.txt'))), /outside the workspace/);
    assert.match(JSON.stringify(await placeLinkedFile([ws], path.join(ws, 'src'))), /not a regular file/);
    assert.match(JSON.stringify(await placeLinkedFile([ws], path.join(ws, 'nope.txt'))), /does not exist/);
    assert.match(JSON.stringify(await placeLinkedFile([ws], 'a.txt')), /not an absolute file path/);
    assert.match(JSON.stringify(await placeLinkedFile([ws], `${ws}/a\0.txt`)), /not an absolute file path/);
    assert.deepEqual(await placeLinkedFile([path.join(base, 'out'), ws], path.join(ws, 'a.txt')), { path: path.join(ws, 'a.txt') });
  });
});
