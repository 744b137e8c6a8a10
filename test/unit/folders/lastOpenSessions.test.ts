// The durable "last open session per folder" record: what a window with an empty memento reopens.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { LastOpenSessions, MAX_REMEMBERED_FOLDERS } from '../../../src/extension/core/folders/lastOpenSessions';
import { recordingLogger, tempRoot, type LogRecord } from '../supervisor/harness';

describe('last open session per folder', () => {
  let root: string;
  let logs: LogRecord[];

  beforeEach(async () => {
    root = await tempRoot();
    logs = [];
  });

  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('remembers the last session of each folder, across instances (windows)', async () => {
    const one = new LastOpenSessions(root, recordingLogger(logs));
    await one.set('/work/a', 's-1');
    await one.set('/work/b', 's-2');
    void one.set('/work/a', 's-3');
    await one.set('', 's-4');
    const other = new LastOpenSessions(root, recordingLogger(logs));
    assert.equal(await other.get('/work/a'), 's-3', 'the later choice of a window wins');
    assert.equal(await other.get('/work/b'), 's-2');
    assert.equal(await other.get(''), 's-4');
    assert.equal(await other.get('/work/c'), undefined);
  });

  it('a damaged or hostile file is ignored entry by entry, and never yields an id that could leave the sessions folder', async () => {
    const file = path.join(root, 'last-open.json');
    const store = new LastOpenSessions(root, recordingLogger(logs));
    await fs.writeFile(file, '{ not json');
    assert.equal(await store.get('/work/a'), undefined);
    // Written as text: an own "__proto__" key, as JSON.parse delivers it.
    await fs.writeFile(file, `{
      "/work/a": { "sessionId": "../../etc", "at": 1 },
      "/work/b": { "sessionId": 42, "at": 1 },
      "/work/c": "plain",
      "/work/d": { "sessionId": "ok-1", "at": 2 },
      "__proto__": { "sessionId": "polluted", "at": 3 }
    }`);
    assert.equal(await store.get('/work/a'), undefined);
    assert.equal(await store.get('/work/b'), undefined);
    assert.equal(await store.get('/work/c'), undefined);
    assert.equal(await store.get('/work/d'), 'ok-1');
    assert.equal(await store.get('toString'), undefined);
    assert.equal(({} as Record<string, unknown>).sessionId, undefined, 'nothing reached Object.prototype');
    await store.set('/work/e', 's-5');
    assert.equal(await store.get('/work/d'), 'ok-1', 'a write keeps the good entries');
    await fs.writeFile(file, '[1,2,3]');
    assert.equal(await store.get('/work/d'), undefined);
  });

  it(`keeps the ${MAX_REMEMBERED_FOLDERS} most recently used folders`, async () => {
    let now = 0;
    const store = new LastOpenSessions(root, recordingLogger(logs), () => (now += 1));
    for (let i = 0; i <= MAX_REMEMBERED_FOLDERS; i += 1) await store.set(`/f/${i}`, `s-${i}`);
    assert.equal(await store.get('/f/0'), undefined, 'the oldest is forgotten');
    assert.equal(await store.get(`/f/${MAX_REMEMBERED_FOLDERS}`), `s-${MAX_REMEMBERED_FOLDERS}`);
    assert.equal(await store.get('/f/1'), 's-1');
  });

  it('an unwritable storage root is logged, not thrown', async () => {
    const file = path.join(root, 'last-open.json');
    await fs.mkdir(file);
    const store = new LastOpenSessions(root, recordingLogger(logs));
    await store.set('/work/a', 's-1');
    assert.ok(logs.some((l) => l.level === 'warn' && /remembering the open session failed/.test(l.message)));
  });
});
