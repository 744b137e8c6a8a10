// fs/* confinement: relative escapes and symlinks out of the workspace are outside; listing and search are bounded.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WorkspaceFs } from '../../../src/extension/core/acp/workspaceFs';

describe('workspace file access', () => {
  let root: string;
  let outside: string;
  let ws: WorkspaceFs;

  beforeEach(async () => {
    const base = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-wsfs-'));
    root = path.join(base, 'ws');
    outside = path.join(base, 'secret');
    await fs.mkdir(path.join(root, 'src'), { recursive: true });
    await fs.mkdir(outside);
    await fs.writeFile(path.join(root, 'src', 'a.ts'), 'const x = 1;\n// TODO: fix\n');
    await fs.writeFile(path.join(outside, 'key.txt'), 'hunter2');
    await fs.symlink(outside, path.join(root, 'link'));
    ws = new WorkspaceFs(root);
  });

  it('accepts paths inside, including files that do not exist yet', async () => {
    assert.equal((await ws.locate(path.join(root, 'src', 'a.ts'))).inside, true);
    assert.equal((await ws.locate(path.join(root, 'new', 'b.ts'))).inside, true);
  });

  it('sees through `..` and symlinks that leave the workspace', async () => {
    assert.equal((await ws.locate(path.join(root, '..', 'secret', 'key.txt'))).inside, false);
    assert.equal((await ws.locate(path.join(root, 'link', 'key.txt'))).inside, false);
    assert.equal((await ws.locate(path.join(root, 'link', 'new.txt'))).inside, false);
  });

  it('refuses relative paths (ACP paths are absolute)', async () => {
    await assert.rejects(ws.locate('src/a.ts'), /must be absolute/);
  });

  it('reads line ranges, and says clearly when a file is missing', async () => {
    assert.equal(await ws.read(path.join(root, 'src', 'a.ts'), 2, 1), '// TODO: fix');
    await assert.rejects(ws.read(path.join(root, 'nope.ts')), /Cannot read .*nope\.ts: no such file or folder/);
  });

  it('lists and searches', async () => {
    const listing = await ws.list(root);
    // A symlink is listed as an entry but not followed (the walk never leaves the workspace through it).
    assert.deepEqual(listing.entries, ['link', 'src/', 'src/a.ts']);
    const found = await ws.search(root, 'TODO');
    assert.deepEqual(found.matches, [{ path: 'src/a.ts', line: 2, text: '// TODO: fix' }]);
  });
});
