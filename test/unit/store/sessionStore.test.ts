// Session store: create/list/get/rename/delete, resumable listing, bad ids, unwritable roots.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { SessionStore } from '../../../src/extension/core/store/sessionStore';
import { isVigilError } from '../../../src/extension/core/common/errors';
import { recordingLogger, tempRoot, type LogRecord } from '../supervisor/harness';

async function store(): Promise<{ s: SessionStore; root: string; logs: LogRecord[] }> {
  const root = await tempRoot();
  const logs: LogRecord[] = [];
  const s = new SessionStore(root, recordingLogger(logs));
  await s.init();
  return { s, root, logs };
}

describe('session store', () => {
  it('creates, lists (newest first), gets, renames and deletes sessions', async () => {
    const { s } = await store();
    const a = await s.create('first', 'a');
    await new Promise((r) => setTimeout(r, 2));
    await s.create('second', 'b');
    assert.deepEqual((await s.list()).map((m) => m.id), ['b', 'a']);
    assert.equal((await s.get('a'))?.title, 'first');
    const renamed = await s.rename('a', 'renamed');
    assert.equal(renamed.title, 'renamed');
    assert.ok(renamed.updatedAt >= a.updatedAt);
    await s.delete('a');
    assert.equal(await s.get('a'), undefined);
    assert.deepEqual((await s.list()).map((m) => m.id), ['b']);
    await assert.rejects(s.create('dup', 'b'), (e) => isVigilError(e, 'INVALID_INPUT'));
  });

  it('lists interrupted and aborted sessions as resumable', async () => {
    const { s } = await store();
    await s.create('idle', 'i');
    await s.create('int', 'x');
    await s.create('abo', 'y');
    await s.update('x', { state: 'interrupted', stateReason: 'holder died' });
    await s.update('y', { state: 'aborted' });
    assert.deepEqual((await s.listResumable()).map((m) => m.id).sort(), ['x', 'y']);
    await s.update('x', { state: 'idle' });
    assert.equal((await s.get('x'))?.stateReason, undefined);
  });

  it('refuses session ids that could escape the sessions folder', async () => {
    const { s } = await store();
    for (const id of ['../etc', 'a/b', '', '..', 'x'.repeat(200)]) {
      await assert.rejects(s.create('bad', id), (e) => isVigilError(e, 'INVALID_INPUT'), id);
    }
  });

  it('a corrupt session file is skipped by list (logged) and reported by get', async () => {
    const { s, root, logs } = await store();
    await s.create('good', 'good');
    await fs.mkdir(path.join(root, 'sessions', 'bad'), { recursive: true });
    await fs.writeFile(path.join(root, 'sessions', 'bad', 'session.json'), '{"id": 3');
    assert.deepEqual((await s.list()).map((m) => m.id), ['good']);
    assert.ok(logs.some((l) => l.level === 'warn' && l.message.includes('bad')));
    await assert.rejects(s.get('bad'), (e) => isVigilError(e, 'CORRUPT_RECORD'));
  });

  it('a storage root that is not writable fails with a clear error naming the path', async () => {
    const parent = await tempRoot();
    const file = path.join(parent, 'not-a-folder');
    await fs.writeFile(file, 'x');
    const root = path.join(file, 'storage');
    const s = new SessionStore(root, recordingLogger([]));
    await assert.rejects(s.init(), (e: unknown) => isVigilError(e, 'STORAGE_UNWRITABLE') && (e as Error).message.includes(root));
    assert.equal(await fs.readFile(file, 'utf8'), 'x', 'nothing lost');
  });
});
