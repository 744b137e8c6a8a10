// Vigil's own storage is never inside an agent's boundary, whatever the folder: a workspace that contains or is the
// storage folder lists, searches, reads and writes none of it, asked or not; and a session without a folder works in
// an empty private folder of its own, never in the storage.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { markPrivateRoot } from '../../../src/extension/core/acp/workspaceBoundary';
import { WorkspaceFs } from '../../../src/extension/core/acp/workspaceFs';
import { folderlessFolder, folderlessRoot } from '../../../src/extension/core/folders/folderlessFolder';
import { AcpHarness } from './acpHarness';

describe("Vigil's storage is never an agent's", function () {
  this.timeout(30_000);
  let root: string;
  let storage: string;
  let transcript: string;

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-private-'));
    // A workspace (the person's home, say) that contains the storage folder.
    storage = path.join(root, '.local', 'vigil.vigil');
    transcript = path.join(storage, 'sessions', 'other', 'transcript.jsonl');
    await fs.mkdir(path.dirname(transcript), { recursive: true });
    await fs.writeFile(transcript, '{"text":"the other workspace said hunter2"}\n');
    await fs.writeFile(path.join(root, 'notes.txt'), 'hunter2 is in my notes too\n');
    markPrivateRoot(storage);
  });

  afterEach(async () => fs.rm(root, { recursive: true, force: true }));

  it('a workspace that contains the storage: nothing of it is inside, listed, searched or served, even when approved', async () => {
    const ws = new WorkspaceFs(root);
    const where = await ws.locate(transcript);
    assert.equal(where.inside, false);
    assert.equal(where.private, true);
    await assert.rejects(ws.read(ws.approved(where)), /Vigil's own storage .* which no agent may use/);
    await assert.rejects(ws.write(ws.approved(await ws.locate(path.join(storage, 'planted.txt'))), 'x'), /Vigil's own storage/);
    await assert.rejects(fs.stat(path.join(storage, 'planted.txt')), /ENOENT/);

    const listed = await ws.list(await ws.locate(root));
    assert.ok(listed.entries.includes('.local/'), 'the folder holding the storage is listed');
    assert.ok(!listed.entries.some((e) => e.includes('vigil.vigil')), `the storage is not listed: ${listed.entries.join(', ')}`);
    const found = await ws.search(await ws.locate(root), 'hunter2');
    assert.deepEqual(found.matches.map((m) => m.path), ['notes.txt']);
    await assert.rejects(ws.list(ws.approved(await ws.locate(storage))), /Vigil's own storage/);
  });

  it('a symlink in the workspace that leads into the storage is refused like the storage itself', async () => {
    const ws = new WorkspaceFs(root);
    await fs.symlink(transcript, path.join(root, 'innocent.jsonl'));
    const where = await ws.locate('innocent.jsonl');
    assert.equal(where.private, true);
    await assert.rejects(ws.read(ws.approved(where)), /Vigil's own storage/);
  });

  it('a workspace that is the storage folder serves none of it', async () => {
    const ws = new WorkspaceFs(storage);
    const where = await ws.locate('sessions/other/transcript.jsonl');
    assert.equal(where.inside, false);
    await assert.rejects(ws.read(where), /Vigil's own storage/);
    await assert.rejects(ws.list(await ws.locate('.')), /Vigil's own storage/);
  });

  it('through the ACP client: a read or write in the storage is refused without asking the person', async () => {
    const h = await AcpHarness.create();
    try {
      const hidden = path.join(h.workspace, '.vigil-storage');
      await fs.mkdir(path.join(hidden, 'sessions', 's'), { recursive: true });
      await fs.writeFile(path.join(hidden, 'sessions', 's', 'transcript.jsonl'), 'private\n');
      markPrivateRoot(hidden);
      h.answer = 'allowOnce';
      await h.turn(`read ${path.join(hidden, 'sessions', 's', 'transcript.jsonl')}`);
      assert.match(h.agentText(), /refused: Cannot read .*transcript\.jsonl: it is in Vigil's own storage/);
      await h.turn(`write ${path.join(hidden, 'planted.txt')}`);
      assert.match(h.agentText(), /refused: Cannot write .*planted\.txt: it is in Vigil's own storage/);
      assert.equal(h.questions.length, 0, 'the person is never asked to hand over Vigil storage');
      await assert.rejects(fs.stat(path.join(hidden, 'planted.txt')), /ENOENT/);
    } finally {
      await h.dispose();
    }
  });

  it('a session without a folder gets an empty folder of its own, 0700, outside the storage', async () => {
    const a = await folderlessFolder(storage, 'session-a');
    const b = await folderlessFolder(storage, 'session-b');
    assert.notEqual(a, b);
    assert.equal(await folderlessFolder(storage, 'session-a'), a, 'the same session keeps its folder');
    for (const folder of [a, b, folderlessRoot(storage)]) {
      assert.ok(path.relative(storage, folder).startsWith('..'), `${folder} is outside ${storage}`);
      assert.equal((await fs.stat(folder)).mode & 0o777, 0o700);
    }
    assert.deepEqual(await fs.readdir(a), []);
    const ws = new WorkspaceFs(a);
    assert.equal((await ws.locate(transcript)).inside, false);
  });

  it('a folder-less session refuses a symlink planted where its folder goes', async () => {
    await fs.mkdir(folderlessRoot(storage), { recursive: true, mode: 0o700 });
    await fs.symlink(storage, path.join(folderlessRoot(storage), 'session-c'));
    await assert.rejects(folderlessFolder(storage, 'session-c'), /not a folder of this user \(a symlink stands there\)/);
    await assert.rejects(folderlessFolder(storage, '../escape'), /Invalid session id/);
  });
});
