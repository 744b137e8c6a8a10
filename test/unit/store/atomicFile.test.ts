// Atomic replacement of several files of one folder (the turn lease and its epoch mark): renamed in order,
// none changed when writing fails, and the folder must be one.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFilesAtomic } from '../../../src/extension/core/store/atomicFile';

describe('writeFilesAtomic', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-atomic-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('replaces every file with its new content and leaves no temporary file', async () => {
    await fs.writeFile(path.join(dir, 'a'), 'old a');
    await writeFilesAtomic([
      { file: path.join(dir, 'a'), data: 'new a' },
      { file: path.join(dir, 'b'), data: Buffer.from('new b') },
    ]);
    assert.equal(await fs.readFile(path.join(dir, 'a'), 'utf8'), 'new a');
    assert.equal(await fs.readFile(path.join(dir, 'b'), 'utf8'), 'new b');
    assert.deepEqual((await fs.readdir(dir)).sort(), ['a', 'b']);
  });

  it('renames in the given order: a failing second rename leaves the first file replaced and the second untouched', async () => {
    await fs.writeFile(path.join(dir, 'mark'), 'old mark');
    // A folder where the second file should go: a file cannot be renamed over it.
    await fs.mkdir(path.join(dir, 'lease'));
    await fs.writeFile(path.join(dir, 'lease', 'inside'), 'x');
    await assert.rejects(
      writeFilesAtomic([
        { file: path.join(dir, 'mark'), data: 'new mark' },
        { file: path.join(dir, 'lease'), data: 'new lease' },
      ]),
      (error: Error) => error.message.includes(path.join(dir, 'lease')),
    );
    assert.equal(await fs.readFile(path.join(dir, 'mark'), 'utf8'), 'new mark');
    assert.deepEqual((await fs.readdir(dir)).sort(), ['lease', 'mark'], 'the temporary files are removed');
  });

  it('changes nothing when a file cannot be written, and refuses files of two folders', async () => {
    await fs.writeFile(path.join(dir, 'a'), 'old a');
    await fs.mkdir(path.join(dir, 'sub'));
    await assert.rejects(writeFilesAtomic([
      { file: path.join(dir, 'a'), data: 'new a' },
      { file: path.join(dir, 'sub', 'b'), data: 'b' },
    ]), /one folder/);
    await fs.chmod(dir, 0o500);
    try {
      if (process.getuid?.() === 0) return; // root writes anyway; the refusal above still held
      await assert.rejects(writeFilesAtomic([{ file: path.join(dir, 'a'), data: 'new a' }]));
      assert.equal(await fs.readFile(path.join(dir, 'a'), 'utf8'), 'old a');
    } finally {
      await fs.chmod(dir, 0o700);
    }
  });
});
