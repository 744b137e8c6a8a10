// The private folder a socket lives in: made 0700, taken back to 0700 when ours, refused when it is a symlink.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensurePrivateDir } from '../../../src/extension/core/common/privateDir';

describe('a private folder for a socket', () => {
  let root: string;
  beforeEach(async () => (root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-private-'))));
  afterEach(() => fs.rm(root, { recursive: true, force: true }));
  const refuse = (dir: string) => new Error(`not private: ${dir}`);

  it('is made 0700, and one of ours left open is closed again', async () => {
    const dir = path.join(root, 'a', 'sock');
    await ensurePrivateDir(dir, refuse);
    assert.equal((await fs.stat(dir)).mode & 0o777, 0o700);
    await fs.chmod(dir, 0o755);
    await ensurePrivateDir(dir, refuse);
    assert.equal((await fs.stat(dir)).mode & 0o777, 0o700);
  });

  it('is refused when a symlink stands in its place, and where it points is left as it was', async () => {
    const elsewhere = path.join(root, 'elsewhere');
    await fs.mkdir(elsewhere, { mode: 0o755 });
    const dir = path.join(root, 'sock');
    await fs.symlink(elsewhere, dir);
    await assert.rejects(ensurePrivateDir(dir, refuse), /not private/);
    assert.equal((await fs.stat(elsewhere)).mode & 0o777, 0o755);
  });
});
