// The one walk of a folder behind the host's _vigil/fs/list and search and the built-in agent's own: its order, what
// it enters, where it stops, that it closes what it opened, and that both sides answer alike on one tree.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listLocal, searchLocal } from '../../../src/agent/tools/localWorkspace';
import { WorkspaceFs } from '../../../src/extension/core/acp/workspaceFs';
import { listFolder, searchFolder, type FolderEntry, type FolderReader, type OpenedFolder } from '../../../src/shared/folderWalk';

type Tree = { [name: string]: Tree | string | null };

/** A reader over `tree` (a string is a file's text, null a FIFO-like entry); it counts opens and closes. */
function treeReader(tree: Tree, options: { hidden?: string[]; unreadable?: string[] } = {}) {
  const counts = { opened: 0, closed: 0, order: [] as string[] };
  const at = (rel: string): Tree | undefined => (rel === '' ? tree : rel.split('/').reduce<Tree | undefined>((t, name) => t?.[name] as Tree | undefined, tree));
  const entry = (name: string, value: Tree | string | null): FolderEntry => ({ name, isDirectory: () => typeof value === 'object' && value !== null, isFile: () => typeof value === 'string' });
  const reader: FolderReader<OpenedFolder & { rel: string }> = {
    open: async (rel, top) => {
      counts.order.push(rel);
      if (options.unreadable?.includes(rel)) {
        if (top) throw new Error(`cannot read ${rel}`);
        return undefined;
      }
      counts.opened += 1;
      return { rel, entries: Object.entries(at(rel)!).map(([n, v]) => entry(n, v)), close: async () => void (counts.closed += 1) };
    },
    hidden: (rel) => options.hidden?.includes(rel) ?? false,
  };
  const text = async (folder: { rel: string }, name: string) => at(folder.rel)![name] as string;
  return { reader, counts, text };
}

const tree: Tree = {
  'b.txt': 'needle b',
  a: { 'z.txt': 'needle az', deep: { 'x.txt': 'no' } },
  node_modules: { 'm.txt': 'needle m' },
  '.vigil-storage': { 't.txt': 'needle private' },
  fifo: null,
  c: { 'c.txt': 'needle c' },
};

describe('folder walk', () => {
  it('lists breadth-first, sorted per folder; a skipped folder is listed, not entered; a hidden one neither', async () => {
    const { reader, counts } = treeReader(tree, { hidden: ['.vigil-storage'] });
    const listed = await listFolder(reader, 100);
    assert.deepEqual(listed, { entries: ['a/', 'b.txt', 'c/', 'fifo', 'node_modules/', 'a/deep/', 'a/z.txt', 'c/c.txt', 'a/deep/x.txt'], truncated: false });
    assert.deepEqual(counts.order, ['', 'a', 'c', 'a/deep']);
    assert.equal(counts.closed, counts.opened);
  });

  it('stops the listing at its cap, and passes over a subfolder it cannot read; an unreadable top is an error', async () => {
    assert.deepEqual(await listFolder(treeReader(tree).reader, 3), { entries: ['.vigil-storage/', 'a/', 'b.txt'], truncated: true });
    assert.deepEqual((await listFolder(treeReader(tree, { unreadable: ['a'] }).reader, 100)).entries.filter((e) => e.startsWith('a/')), ['a/']);
    await assert.rejects(listFolder(treeReader(tree, { unreadable: [''] }).reader, 100), /cannot read /);
  });

  it('searches the regular files depth-first, closing each folder, and stops once `found` is full', async () => {
    const { reader, counts, text } = treeReader(tree, { hidden: ['.vigil-storage'] });
    const seen: string[] = [];
    const stopped = await searchFolder(reader, text, (rel, t) => {
      seen.push(`${rel}: ${t}`);
      return false;
    });
    assert.equal(stopped, false);
    assert.deepEqual(seen, ['b.txt: needle b', 'c/c.txt: needle c', 'a/z.txt: needle az', 'a/deep/x.txt: no']);
    assert.equal(counts.closed, counts.opened);

    const again = treeReader(tree);
    assert.equal(await searchFolder(again.reader, again.text, (rel) => rel === 'c/c.txt'), true);
    assert.equal(again.counts.closed, again.counts.opened);
  });

  it('the host and the built-in agent list and search one tree alike', async () => {
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-walk-')));
    try {
      await fs.mkdir(path.join(root, 'src', 'deep'), { recursive: true });
      await fs.mkdir(path.join(root, 'node_modules', 'p'), { recursive: true });
      await fs.writeFile(path.join(root, 'README.md'), 'a needle here\n');
      await fs.writeFile(path.join(root, 'src', 'a.ts'), 'x\n// needle\n');
      await fs.writeFile(path.join(root, 'src', 'deep', 'b.ts'), 'needle\nneedle again\n');
      await fs.writeFile(path.join(root, 'node_modules', 'p', 'i.js'), 'needle');
      await fs.symlink(path.join(root, 'src'), path.join(root, 'link'));
      const host = new WorkspaceFs(root);
      const where = await host.locate(root);
      assert.deepEqual(await host.list(where, 100), await listLocal(root, '.', 100));
      assert.deepEqual(await host.search(where, 'needle', 100), await searchLocal(root, 'needle', '.', 100));
      assert.deepEqual(await host.search(where, 'needle', 2), await searchLocal(root, 'needle', '.', 2));
      assert.equal((await host.search(where, 'needle', 100)).matches.length, 4);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
