// Checkpoints as the person meets them: a turn whose agent writes files with its own shell command, then
// "Restore to before this turn" in the transcript (preview, a question for a file changed again since) and
// `Vigil: Restore Checkpoint…` from the palette. Files the turn did not change are never touched.

import * as assert from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { writeModelScript } from '../harness/runFiles';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { answerModal } from '../harness/workspaceTrust';
import { shellWriteScript } from '../fixtures/e2e/modelScripts';

describe('checkpoints (real workbench, scripted model)', function () {
  let session: E2eSession;
  const scriptFile = path.join(mkdtempSync(path.join(repoRoot, '.vscode-test', 'e2e-script-')), 'model-script.json');
  const file = (rel: string) => path.join(session.workspace, rel);
  const read = (rel: string) => readFileSync(file(rel), 'utf8');

  /** Polls the disk until `check` holds (the restore runs in the extension host). */
  async function waitDisk(check: () => boolean, what: string): Promise<void> {
    const page = session.workbench.page;
    const deadline = Date.now() + uiTimeout;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      // One animation frame of the workbench between looks, not a fixed sleep.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))));
    }
  }

  before(async function () {
    writeModelScript(scriptFile, shellWriteScript);
    session = await openE2eSession({
      name: 'checkpoints',
      settings: { 'vigil.approvals.policy': 'allowAll' },
      env: { VIGIL_DEMO_SCRIPT: scriptFile },
      prepareWorkspace: (workspace) => {
        writeFileSync(path.join(workspace, 'notes.txt'), 'original notes\n');
        writeFileSync(path.join(workspace, 'untouched.txt'), 'as before\n');
      },
    });
  });

  after(async function () {
    await session?.close();
  });

  it('restores what a shell command of the turn wrote, asks about a file changed since, and never touches other files', async () => {
    const view = new SessionView(session.workbench);
    const page = session.workbench.page;
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitPhase('idle');
    await view.send('Please update the notes.');
    const restore = view.locator('.entry.checkpoint .restore-checkpoint');
    await restore.waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(read('notes.txt'), 'changed by the turn\n');
    assert.strictEqual(read('made/created.txt'), 'new\n');

    // After the turn the person edits a file the turn never touched, and the one it did.
    writeFileSync(file('untouched.txt'), 'edited by the person\n');
    writeFileSync(file('notes.txt'), 'my own edit after the turn\n');

    await restore.click();
    // The preview names every file and what happens to it.
    const quickInput = page.locator('.quick-input-widget');
    await quickInput.locator('.monaco-list-row', { hasText: 'notes.txt' }).waitFor({ timeout: uiTimeout });
    const rows = await quickInput.locator('.monaco-list-row').allInnerTexts();
    assert.ok(rows.some((r) => /made\/created\.txt/.test(r) && /added by the turn.*will be deleted/.test(r.replace(/\s+/g, ' '))), rows.join(' | '));
    assert.ok(rows.some((r) => /notes\.txt/.test(r) && /changed again/.test(r.replace(/\s+/g, ' '))), rows.join(' | '));
    assert.ok(!rows.some((r) => /untouched\.txt/.test(r)), 'a file the turn did not change is not in the preview');
    // What restoring changes, file by file, in VS Code's multi-file diff; the preview stays open beside it.
    await quickInput.locator('.monaco-list-row', { hasText: 'Show what restoring changes' }).click();
    await page.locator('.tab', { hasText: 'Restoring to before the turn' }).waitFor({ timeout: uiTimeout });
    await page.locator('.editor-group-container', { hasText: 'original notes' }).first().waitFor({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-checkpoints-preview');
    await quickInput.locator('.monaco-list-row', { hasText: 'Restore 2 files' }).click();
    // notes.txt changed again since the turn: asked, and kept.
    await answerModal(page, /changed again after this turn/, /^Keep Them$/, uiTimeout);
    await waitDisk(() => !existsSync(file('made/created.txt')), 'the created file to be removed');
    assert.strictEqual(read('notes.txt'), 'my own edit after the turn\n', 'a file changed since is kept when the person says so');
    assert.strictEqual(read('untouched.txt'), 'edited by the person\n', 'a file the turn did not change is never touched');

    // From the palette: pick the turn, confirm the preview, overwrite the file changed since.
    await session.workbench.runCommand('Vigil: Restore Checkpoint…');
    await session.workbench.pickQuickItem('Please update the notes');
    await quickInput.locator('.monaco-list-row', { hasText: 'notes.txt' }).waitFor({ timeout: uiTimeout });
    await quickInput.locator('input.input').press('Enter');
    await answerModal(page, /changed again after this turn/, /^Overwrite$/, uiTimeout);
    await waitDisk(() => read('notes.txt') === 'original notes\n', 'notes.txt to be restored');
    assert.strictEqual(read('untouched.txt'), 'edited by the person\n');
    session.workbench.assertStayedOnMachine();
  });
});
