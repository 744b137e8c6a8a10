// The folder watcher names what changed in the folders a checkpoint records, and only those: never `.git`, a
// folder `.gitignore` excludes, a nested repository or Vigil's storage; it says 'all' when it cannot tell.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { CheckpointStore, vigilOwnFolders } from '../../../src/extension/core/checkpoints/checkpointStore';
import { FolderWatcher } from '../../../src/extension/core/checkpoints/folderWatcher';
import { tempRoot } from '../supervisor/harness';

async function setup(maxWatches?: number): Promise<{ folder: string; watcher: FolderWatcher; storage: string }> {
  const folder = await fs.realpath(await tempRoot('vigil-watch-'));
  const storage = path.join(folder, '.vscode-data', 'vigil');
  for (const dir of ['src/a', 'node_modules/dep', 'build', 'vendor/lib/.git', '.git/objects', path.relative(folder, storage), `${path.relative(folder, storage)}-folderless/s1`]) {
    await fs.mkdir(path.join(folder, dir), { recursive: true });
  }
  await fs.writeFile(path.join(folder, '.gitignore'), 'node_modules/\nbuild/\n');
  await fs.writeFile(path.join(folder, 'src/a/one.ts'), '1\n');
  const store = new CheckpointStore({ storageRoot: storage, folder, logger: silentLogger });
  const watcher = new FolderWatcher({ folder, logger: silentLogger, never: vigilOwnFolders(storage), ignoredDirs: (dirs) => store.ignoredDirs(dirs), maxWatches });
  await watcher.start();
  assert.equal(watcher.take(), 'all', 'the first take reads everything');
  return { folder, watcher, storage };
}

describe('folder watcher', () => {
  it('watches the recorded folders only, and names the paths changed since the last take', async () => {
    const { folder, watcher, storage } = await setup();
    try {
      assert.equal(watcher.watchedCount, 5, 'the root, src, src/a, vendor and .vscode-data: not .git, node_modules, build, vendor/lib, the storage');
      await fs.writeFile(path.join(folder, 'node_modules/dep/x.js'), 'x');
      await fs.writeFile(path.join(folder, 'build/out.js'), 'x');
      await fs.writeFile(path.join(folder, '.git/objects/o'), 'x');
      await fs.writeFile(path.join(folder, 'vendor/lib/inner.c'), 'x');
      await fs.writeFile(path.join(storage, 'transcript.jsonl'), 'x');
      await fs.writeFile(path.join(`${storage}-folderless`, 's1/x'), 'x');
      await fs.writeFile(path.join(folder, 'src/a/one.ts'), '2\n');
      await watcher.settled();
      await watcher.sorted();
      assert.deepEqual([...(watcher.take() as Set<string>)], ['src/a/one.ts']);
      await watcher.settled();
      assert.deepEqual([...(watcher.take() as Set<string>)], [], 'taken once');
    } finally {
      watcher.dispose();
    }
  });

  it('a new folder stays changed until it is watched, then its files are named one by one', async () => {
    const { folder, watcher } = await setup();
    try {
      await fs.mkdir(path.join(folder, 'src/new/deeper'), { recursive: true });
      await fs.writeFile(path.join(folder, 'src/new/deeper/file.ts'), 'x');
      await watcher.settled();
      assert.deepEqual([...(watcher.take() as Set<string>)], ['src/new']);
      await watcher.sorted();
      assert.equal(watcher.watchedCount, 7, 'the new folders are watched');
      assert.deepEqual([...(watcher.take() as Set<string>)], ['src/new'], 'read whole once more: written before its watch');
      await fs.writeFile(path.join(folder, 'src/new/deeper/file.ts'), 'y');
      await watcher.settled();
      await watcher.sorted();
      assert.deepEqual([...(watcher.take() as Set<string>)], ['src/new/deeper/file.ts']);
    } finally {
      watcher.dispose();
    }
  });

  it('says "all" past its bound of folders, and from then on', async () => {
    const { folder, watcher } = await setup(3);
    try {
      assert.equal(watcher.watchedCount, 0, 'every watch closed');
      await fs.writeFile(path.join(folder, 'src/a/one.ts'), '2\n');
      await watcher.settled();
      assert.equal(watcher.take(), 'all');
      assert.equal(watcher.take(), 'all');
    } finally {
      watcher.dispose();
    }
  });
});
