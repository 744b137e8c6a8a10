// A window's folder decisions over the real session store: metadata from before folders were
// recorded, hostile or damaged records, folders that are gone, symbolic links, and adoption.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isVigilError } from '../../../src/extension/core/common/errors';
import { SessionFolders } from '../../../src/extension/core/folders/sessionFolders';
import { SessionStore } from '../../../src/extension/core/store/sessionStore';
import { sessionFile } from '../../../src/extension/core/store/storePaths';
import { recordingLogger, tempRoot, type LogRecord } from '../supervisor/harness';

describe('session folders of a window', () => {
  let root: string;
  let store: SessionStore;
  let alpha: string;
  let beta: string;
  let logs: LogRecord[];
  let open: string[];

  function folders(): SessionFolders {
    return new SessionFolders({ store, windowFolders: () => open, logger: recordingLogger(logs) });
  }

  /** Writes session.json as another version of Vigil, or an attacker, would have. */
  async function writeRaw(id: string, meta: Record<string, unknown>): Promise<void> {
    await fs.mkdir(path.dirname(sessionFile(root, id)), { recursive: true });
    await fs.writeFile(sessionFile(root, id), JSON.stringify({ id, title: 'raw', createdAt: 1, updatedAt: 1, state: 'idle', ...meta }));
  }

  beforeEach(async () => {
    root = await tempRoot();
    logs = [];
    store = new SessionStore(path.join(root, 'storage'), recordingLogger(logs));
    await store.init();
    root = store.root;
    alpha = await fs.realpath(await fs.mkdtemp(path.join(path.dirname(root), 'alpha-')));
    beta = await fs.realpath(await fs.mkdtemp(path.join(path.dirname(root), 'beta-')));
    open = [alpha];
  });

  afterEach(async () => {
    await fs.rm(path.dirname(root), { recursive: true, force: true });
  });

  it('a session of this window folder works there; another window folder does not run it', async () => {
    const s = await store.create('mine', 'mine', { folder: alpha });
    assert.equal(await folders().workFolder(s.id), alpha);
    assert.equal(await folders().mayDeliver(s.id), true);
    open = [beta];
    assert.equal(await folders().mayDeliver(s.id), false);
    await assert.rejects(folders().workFolder(s.id), (e) => isVigilError(e, 'OUTSIDE_WORKSPACE') && /Open that folder/.test((e as Error).message));
  });

  it('a session from before folders were recorded still loads, and adopts the first folder of the first window that runs it', async () => {
    await writeRaw('old', {});
    const meta = await store.get('old');
    assert.equal(meta?.folder, undefined);
    assert.deepEqual((await store.list()).map((m) => m.id), ['old']);
    open = [alpha, beta];
    assert.equal(await folders().mayDeliver('old'), true);
    assert.equal(await folders().workFolder('old'), alpha);
    assert.equal((await store.get('old'))?.folder, alpha, 'the adoption is stored');
    open = [beta];
    assert.equal(await folders().mayDeliver('old'), false, 'from then on it belongs to its folder');
  });

  it('hostile or corrupt folder records open, but never run the agent anywhere', async () => {
    const cases: Record<string, unknown> = {
      number: 42,
      object: { path: alpha },
      relative: 'alpha',
      dotdot: `${alpha}/../${path.basename(alpha)}`,
      nul: `${alpha}\0`,
      empty: '',
      huge: `/${'a'.repeat(10_000)}`,
    };
    open = [alpha, '/', path.dirname(alpha)];
    for (const [id, folder] of Object.entries(cases)) {
      await writeRaw(id, { folder });
      const meta = await store.get(id);
      assert.ok(meta, `${id} still loads`);
      assert.equal(await folders().mayDeliver(id), false, id);
      await assert.rejects(folders().workFolder(id), (e) => isVigilError(e, 'CORRUPT_RECORD') && /stored folder is damaged/.test((e as Error).message), id);
    }
    // An absolute, well-formed path that no window of the person opened: refused as another folder.
    await writeRaw('etc', { folder: '/etc' });
    await assert.rejects(folders().workFolder('etc'), (e) => isVigilError(e, 'OUTSIDE_WORKSPACE'));
    assert.equal(await folders().mayDeliver('etc'), false);
  });

  it('a folder that is gone is reported, not replaced by another', async () => {
    const gone = path.join(alpha, 'gone');
    await fs.mkdir(gone);
    const s = await store.create('gone', 'gone', { folder: gone });
    open = [gone, alpha];
    await fs.rm(gone, { recursive: true });
    assert.equal(await folders().mayDeliver(s.id), false);
    await assert.rejects(folders().workFolder(s.id), (e) => isVigilError(e, 'OUTSIDE_WORKSPACE') && /does not exist any more/.test((e as Error).message));
  });

  it('a folder opened through a symbolic link is the same folder', async () => {
    const link = path.join(path.dirname(alpha), `link-${path.basename(alpha)}`);
    await fs.symlink(alpha, link);
    const s = await store.create('linked', 'linked', { folder: alpha });
    open = [link];
    assert.equal(await folders().workFolder(s.id), link, 'it runs in the window spelling of the folder');
    assert.equal(await folders().mayDeliver(s.id), true);
  });

  it('the store refuses to record a folder that is not an absolute, normalised path, and keeps the record through updates', async () => {
    await assert.rejects(store.create('bad', 'bad', { folder: 'relative' }), (e) => isVigilError(e, 'INVALID_INPUT'));
    await assert.rejects(store.create('bad', 'bad2', { folder: '/a/../b' }), (e) => isVigilError(e, 'INVALID_INPUT'));
    const s = await store.create('keep', 'keep', { folder: alpha });
    await store.update(s.id, { state: 'interrupted', stateReason: 'x' });
    await store.rename(s.id, 'renamed');
    assert.equal((await store.get(s.id))?.folder, alpha);
  });

  it('an unknown session is not delivered here', async () => {
    assert.equal(await folders().mayDeliver('nope'), false);
    await assert.rejects(folders().workFolder('nope'), (e) => isVigilError(e, 'NOT_FOUND'));
  });
});
