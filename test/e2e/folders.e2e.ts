// Sessions and their folders in the real workbench: a session records the folder it was made in; a
// new window (a fresh browser profile, so an empty memento, while the old window's host lives on)
// reopens the session that was open; a session of another folder opens with a note and runs nothing.

import * as assert from 'node:assert';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { vigilStorage } from '../harness/runFiles';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { Workbench } from '../harness/workbench';

describe('sessions and their folders (real workbench)', function () {
  let session: E2eSession;
  let second: Workbench | undefined;

  before(async function () {
    session = await openE2eSession({ name: 'folders', settings: { 'vigil.approvals.policy': 'allowAll' } });
  });

  after(async function () {
    await second?.close();
    await session?.close();
  });

  it('8: a session records its folder, and a new window of that folder reopens the session that was open', async () => {
    const view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    const id = await view.waitPainted();
    assert.ok(id, 'a session is open');
    await view.send('Hello! Show me what you can do.');
    await view.locator('.entry.agent', { hasText: 'Vigil demo model' }).waitFor({ timeout: uiTimeout });
    const meta = JSON.parse(readFileSync(path.join(vigilStorage(session.server), 'sessions', id, 'session.json'), 'utf8')) as { folder?: string };
    assert.strictEqual(meta.folder && realpathSync(meta.folder), realpathSync(session.workspace), 'the session belongs to the window folder');

    // The tab goes away (its extension host lives on); the person opens the workbench in a fresh browser.
    await session.workbench.page.close();
    second = await Workbench.open(session.server);
    await second.statusItem().waitFor({ timeout: 90_000 });
    // A fresh profile shows the Explorer: open Vigil's view as a person would.
    await second.runCommand('Vigil: Focus on Session View');
    const reopened = new SessionView(second);
    await reopened.waitPainted(id);
    await reopened.locator('.entry.user', { hasText: 'Show me what you can do' }).waitFor({ timeout: uiTimeout });
    await second.screenshot('e2e-8-new-window-reopens-session');
    second.assertStayedOnMachine();
  });

  it('9: a session of another folder opens with a note, and a message to it is refused without running anything', async () => {
    assert.ok(second, 'scenario 8 opened the second window');
    const other = path.join(path.dirname(session.workspace), `other-folder-${randomUUID().slice(0, 8)}`);
    mkdirSync(other, { recursive: true });
    const id = randomUUID();
    const dir = path.join(vigilStorage(session.server), 'sessions', id);
    mkdirSync(dir, { recursive: true });
    const now = Date.now();
    writeFileSync(path.join(dir, 'session.json'), JSON.stringify({ id, title: 'Work in the other folder', createdAt: now, updatedAt: now, state: 'idle', folder: other }));
    writeFileSync(path.join(dir, 'transcript.jsonl'), `${JSON.stringify({ type: 'userPrompt', at: now, text: 'Earlier question', source: 'user' })}\n`);

    await second.runCommand('Vigil: Open Session…');
    await second.pickQuickItem('Work in the other folder');
    const view = new SessionView(second);
    await view.waitPainted(id);
    const note = view.locator('#notices [data-notice-id="folder"]');
    await note.waitFor({ timeout: uiTimeout });
    assert.match(await note.innerText(), new RegExp(`belongs to the folder "${path.basename(other)}".*Open that folder`));
    await view.send('Please continue here.');
    const refused = view.locator('.host-error');
    await refused.waitFor({ timeout: uiTimeout });
    assert.match(await refused.innerText(), /belongs to the folder/);
    const transcript = readFileSync(path.join(dir, 'transcript.jsonl'), 'utf8');
    assert.ok(!transcript.includes('Please continue here.'), 'nothing of the refused message was stored or run');
    await second.screenshot('e2e-9-foreign-folder-session');
  });
});
