// What a file held before a write, read for its diff from hostile places: huge files, binary and non-UTF-8 content,
// symlinks, FIFOs; only the located object is read, and never more than the bound.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { captureBefore, sameSide } from '../../../src/extension/core/acp/editCapture';
import { locatePath } from '../../../src/extension/core/acp/workspaceBoundary';

describe('capturing a file before a write', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-capture-'));
  });
  afterEach(async () => fs.rm(dir, { recursive: true, force: true }));
  const at = (name: string) => locatePath(dir, name);

  it('reads text, and a missing file is missing', async () => {
    await fs.writeFile(path.join(dir, 'a.txt'), 'héllo\n');
    assert.deepEqual(await captureBefore(await at('a.txt'), 1_000), { kind: 'text', text: 'héllo\n' });
    assert.deepEqual(await captureBefore(await at('nope/b.txt'), 1_000), { kind: 'missing' });
  });

  it('does not read a file above the bound (a sparse 3 GB file answers at once)', async () => {
    const huge = path.join(dir, 'huge.bin');
    const handle = await fs.open(huge, 'w');
    await handle.truncate(3 * 1024 ** 3);
    await handle.close();
    assert.deepEqual(await captureBefore(await at('huge.bin'), 2_000_000), { kind: 'tooLarge', bytes: 3 * 1024 ** 3 });
  });

  it('takes NUL bytes or invalid UTF-8 as binary', async () => {
    await fs.writeFile(path.join(dir, 'nul'), Buffer.from([0x61, 0x00, 0x62]));
    await fs.writeFile(path.join(dir, 'latin1'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    assert.deepEqual(await captureBefore(await at('nul'), 1_000), { kind: 'binary' });
    assert.deepEqual(await captureBefore(await at('latin1'), 1_000), { kind: 'binary' });
  });

  it('reads the target of a symlink as located, and nothing for a FIFO or a folder', async () => {
    await fs.writeFile(path.join(dir, 'target.txt'), 'real');
    await fs.symlink('target.txt', path.join(dir, 'link.txt'));
    const where = await at('link.txt');
    assert.equal(where.real, path.join(await fs.realpath(dir), 'target.txt'));
    assert.deepEqual(await captureBefore(where, 1_000), { kind: 'text', text: 'real' });
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    assert.equal(await captureBefore(await at('fifo'), 1_000), undefined, 'a FIFO is never opened (it would block)');
    await fs.mkdir(path.join(dir, 'sub'));
    assert.equal(await captureBefore(await at('sub'), 1_000), undefined);
  });

  it('refuses a file swapped for a symlink after it was located', async () => {
    await fs.writeFile(path.join(dir, 'f.txt'), 'mine');
    await fs.writeFile(path.join(dir, 'secret'), 'not yours');
    const where = await at('f.txt');
    await fs.rm(path.join(dir, 'f.txt'));
    await fs.symlink('secret', path.join(dir, 'f.txt'));
    await assert.rejects(captureBefore(where, 1_000));
  });

  it('compares captures: a changed text differs, missing equals missing', () => {
    assert.equal(sameSide({ kind: 'text', text: 'a' }, { kind: 'text', text: 'a' }), true);
    assert.equal(sameSide({ kind: 'text', text: 'a' }, { kind: 'text', text: 'b' }), false);
    assert.equal(sameSide({ kind: 'missing' }, { kind: 'text', text: '' }), false);
    assert.equal(sameSide({ kind: 'missing' }, { kind: 'missing' }), true);
    assert.equal(sameSide({ kind: 'tooLarge', bytes: 5 }, { kind: 'tooLarge', bytes: 6 }), false);
  });
});
