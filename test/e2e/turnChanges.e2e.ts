// A third-party agent's changes in VS Code's diff editor, as a person reviews them: Codex ACP (the real agent, offline
// against the local model endpoint) changes, adds and deletes files with its own shell command, never through Vigil's
// file methods; the turn ends with "Changed 3 files +a −r" from its checkpoint, each file's Open diff shows before and
// after the turn, Review all opens the whole turn in one multi-file diff editor, and one file's Restore puts back only
// that file.

import * as assert from 'node:assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { E2eSession } from '../harness/e2eSession';
import { openRealAgentSession, type RealAgentSession } from '../harness/realAgentSession';
import { type SessionView, uiTimeout } from '../harness/sessionView';
import { text, toolCall } from '../fakes/modelEndpoints/script';

describe('a third-party agent\'s changes in the diff editor (real workbench, Codex ACP offline)', function () {
  let opened: RealAgentSession;
  let session: E2eSession;
  let view: SessionView;
  const file = (rel: string) => path.join(session.workspace, rel);
  const read = (rel: string) => readFileSync(file(rel), 'utf8');

  /** Polls the disk until `check` holds (the restore runs in the extension host): one animation frame between looks. */
  async function waitDisk(check: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + uiTimeout;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await session.workbench.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))));
    }
  }

  before(async function () {
    opened = await openRealAgentSession('codex', {
      name: 'turnchanges',
      prepareWorkspace: (workspace) => {
        writeFileSync(path.join(workspace, 'notes.txt'), 'first line\nsecond line\nthird line\n');
        writeFileSync(path.join(workspace, 'obsolete.txt'), 'no longer needed\n');
      },
    });
    ({ session, view } = opened);
  });

  after(async function () {
    await opened?.close();
  });

  it('lists what the agent\'s own shell changed, opens each file\'s diff and the whole turn, and restores one file', async () => {
    const { page } = session.workbench;
    const command = "printf 'first line\\nsecond line, edited by codex\\nthird line\\nfourth line\\n' > notes.txt && mkdir -p src && printf 'export const made = 1;\\n' > src/made.ts && rm obsolete.txt";
    const { recipe, endpoint } = opened;
    const call = recipe.tools.shell(command);
    endpoint.script(toolCall(call.name, call.args), text('Updated the notes, added src/made.ts and removed obsolete.txt.'));
    await view.send('Tidy up the notes.');

    const changes = view.locator('.entry.checkpoint .turn-changes');
    await changes.waitFor({ timeout: uiTimeout * 2 });
    await view.waitPhase('idle');
    assert.strictEqual(read('src/made.ts'), 'export const made = 1;\n', 'the agent wrote with its own shell');
    const head = (await changes.locator('.turn-changes-label').innerText()).replace(/\s+/g, ' ').trim();
    assert.strictEqual(head, 'Changed 3 files +3 −2');
    const rows = changes.locator('.turn-file');
    assert.deepStrictEqual(await rows.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-path')} ${e.getAttribute('data-change')}`)), [
      'notes.txt modified', 'obsolete.txt deleted', 'src/made.ts added',
    ]);
    assert.strictEqual(await view.count('.entry.edits'), 0, 'one list of the turn\'s files, from its checkpoint');
    await session.workbench.screenshot('e2e-turnchanges-entry');

    // One file: before the turn on the left (from the checkpoint), the file as the turn left it on the right.
    await rows.filter({ hasText: 'notes.txt' }).locator('.open-diff').click();
    const diffTab = page.locator('.tab', { hasText: "notes.txt (this turn's change)" });
    await diffTab.waitFor({ timeout: uiTimeout });
    const diff = page.locator('.monaco-diff-editor').first();
    await diff.locator('.editor.original', { hasText: 'second line' }).waitFor({ timeout: uiTimeout });
    await diff.locator('.editor.modified', { hasText: 'second line, edited by codex' }).waitFor({ timeout: uiTimeout });
    assert.ok(!(await diff.locator('.editor.original').innerText()).includes('edited by codex'), 'the left side is before the turn');
    await session.workbench.screenshot('e2e-turnchanges-diff');

    // The whole turn, one click away.
    await changes.locator('.review-turn').click();
    await page.locator('.tab', { hasText: 'Changes of the turn' }).waitFor({ timeout: uiTimeout });
    const review = page.locator('.multiDiffEditor, .multi-diff-editor').first();
    await review.waitFor({ timeout: uiTimeout });
    for (const name of ['notes.txt', 'obsolete.txt', 'made.ts']) await review.getByText(name, { exact: false }).first().waitFor({ timeout: uiTimeout });
    await review.getByText('no longer needed').first().waitFor({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-turnchanges-review');

    // One file's Restore: only that file is put back.
    await rows.filter({ hasText: 'obsolete.txt' }).locator('.restore-file').click();
    const quickInput = page.locator('.quick-input-widget');
    await quickInput.locator('.monaco-list-row', { hasText: 'obsolete.txt' }).waitFor({ timeout: uiTimeout });
    const offered = await quickInput.locator('.monaco-list-row').allInnerTexts();
    assert.ok(!offered.some((r) => /notes\.txt|made\.ts/.test(r)), `only that file is offered: ${offered.join(' | ')}`);
    await quickInput.locator('.monaco-list-row', { hasText: 'Restore 1 file' }).click();
    await waitDisk(() => existsSync(file('obsolete.txt')), 'obsolete.txt to be brought back');
    assert.strictEqual(read('obsolete.txt'), 'no longer needed\n');
    assert.match(read('notes.txt'), /edited by codex/, 'the other files of the turn stay as the turn left them');
    assert.ok(existsSync(file('src/made.ts')));
    session.workbench.assertStayedOnMachine();
  });
});
