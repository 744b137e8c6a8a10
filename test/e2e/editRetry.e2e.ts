// Edit, Retry and Regenerate as a person uses them, with the built-in agent against a local scripted endpoint: the
// last message is edited in place and sent again (the files its turn wrote restored first, because the person said
// so), a stopped turn is retried with one click (also offered in the palette), and the last answer is regenerated.
// Each time the model's next request shows the agent's history without the exchange that was replaced, while the
// transcript keeps that exchange, dimmed.

import * as assert from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { scriptedModelSessionForSuite } from '../harness/scriptedModelSession';
import { uiTimeout } from '../harness/sessionView';
import { answerModal, modalDialog } from '../harness/workspaceTrust';
import { hang, text, toolCall, userMessages, type RecordedRequest } from '../fakes/modelEndpoints/script';

describe('edit, retry and regenerate the last exchange (real workbench, built-in agent)', function () {
  const scripted = scriptedModelSessionForSuite('edit-retry', { 'vigil.approvals.policy': 'allowAll' });
  const lastRequest = (): RecordedRequest => scripted.current.endpoint.mainRequests().at(-1)!;
  const history = (r: RecordedRequest) => JSON.stringify((r.body as { messages?: unknown[] }).messages ?? []);
  const file = (rel: string) => path.join(scripted.current.session.workspace, rel);

  async function waitDisk(check: () => boolean, what: string): Promise<void> {
    const page = scripted.current.session.workbench.page;
    const deadline = Date.now() + uiTimeout;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      // One animation frame of the workbench between looks, not a fixed sleep.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))));
    }
  }

  before(async function () {
    // The Sessions list folded, the session view has the side bar's height: the screenshots show whole exchanges.
    const page = scripted.current.session.workbench.page;
    await page.locator('.pane-header', { hasText: 'Sessions' }).first().click();
    await page.locator('.pane-header[aria-expanded="false"]', { hasText: 'Sessions' }).first().waitFor({ timeout: uiTimeout });
  });

  it('edits the last message in place and sends it again, restoring the files its turn wrote when asked to', async () => {
    const { endpoint, view, session } = scripted.current;
    const page = session.workbench.page;
    endpoint.script(toolCall('write_file', { path: 'hello.txt', content: 'first draft\n' }), text('Wrote the first draft.'));
    await view.send('Write hello.txt with a greeting.');
    await view.locator('.entry.agent', { hasText: 'Wrote the first draft.' }).waitFor({ timeout: uiTimeout });
    await view.locator('.entry.checkpoint .restore-checkpoint').waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(readFileSync(file('hello.txt'), 'utf8'), 'first draft\n');

    // Edit: the message becomes an editor with its text; Escape gives it back unchanged.
    const last = view.locator('.entry.user').last();
    await last.hover();
    await last.locator('.edit-message').click();
    const input = view.locator('.entry.user.editing .edit-input');
    await input.waitFor({ timeout: uiTimeout });
    assert.strictEqual(await input.inputValue(), 'Write hello.txt with a greeting.');
    await input.press('Escape');
    await view.locator('.entry.user.editing').waitFor({ state: 'detached', timeout: uiTimeout });
    await last.hover();
    await last.locator('.edit-message').click();
    await input.fill('Write hello.txt with a short greeting.');
    await session.workbench.screenshot('e2e-edit-retry-1-editing');
    endpoint.script(toolCall('write_file', { path: 'hello.txt', content: 'hi\n' }), text('Wrote a short one.'));
    await input.press('Enter');

    // The turn being replaced wrote a file: the person is asked, and chooses to restore before sending.
    await modalDialog(page, /changed 1 file/).waitFor({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-edit-retry-2-restore-question');
    await answerModal(page, /changed 1 file/, /^Restore Files, Then Send$/, uiTimeout);
    const quickInput = page.locator('.quick-input-widget');
    await quickInput.locator('.monaco-list-row', { hasText: 'hello.txt' }).waitFor({ timeout: uiTimeout });
    await quickInput.locator('input.input').press('Enter');
    await view.locator('.entry.agent', { hasText: 'Wrote a short one.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    await waitDisk(() => existsSync(file('hello.txt')) && readFileSync(file('hello.txt'), 'utf8') === 'hi\n', 'the edited turn to write hello.txt');

    // The model was asked with the edit, without the replaced exchange; the transcript keeps that one, dimmed.
    const asked = lastRequest();
    assert.deepStrictEqual(userMessages(asked).filter((m) => /hello\.txt/.test(m)), ['Write hello.txt with a short greeting.']);
    assert.ok(!history(asked).includes('Wrote the first draft.'), 'the replaced answer is out of the agent history');
    await view.locator('.replaced .entry.agent', { hasText: 'Wrote the first draft.' }).waitFor({ timeout: uiTimeout });
    await view.locator('.entry.user[data-redo="edit"]', { hasText: 'short greeting' }).waitFor({ timeout: uiTimeout });
    // Sending the edit follows the transcript's tail, as Send does: the new answer is on screen.
    await view.locator('#jump-to-latest').waitFor({ state: 'detached', timeout: uiTimeout });
    await session.workbench.screenshot('e2e-edit-retry-3-edited');
  });

  it('regenerates the last answer: the agent is asked again without it', async () => {
    const { endpoint, view, session } = scripted.current;
    endpoint.script(text('Crimson, the first colour.'));
    await view.send('Name one colour.');
    await view.locator('.entry.agent', { hasText: 'Crimson, the first colour.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    endpoint.script(text('Teal, asked again.'));
    await view.locator('#turn-actions .regenerate-answer').click();
    await view.locator('.entry.agent', { hasText: 'Teal, asked again.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const asked = lastRequest();
    assert.strictEqual(userMessages(asked).filter((m) => m === 'Name one colour.').length, 1, 'the question is asked once, not twice');
    assert.ok(!history(asked).includes('Crimson'), 'the regenerated answer is out of the agent history');
    assert.ok(history(asked).includes('Wrote a short one.'), 'the exchanges before it stay');
    await view.locator('.entry.user[data-redo="regenerate"]').waitFor({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-edit-retry-4-regenerated');
  });

  it('retries a turn the person stopped, from the transcript; the palette offers Retry Last Turn only then', async () => {
    const { endpoint, view, session } = scripted.current;
    assert.strictEqual(await session.workbench.paletteHas('Vigil: Retry Last Turn'), false, 'nothing to retry after an answered turn');
    endpoint.script(hang());
    await view.send('Count to three.');
    await view.waitPhase('running');
    assert.strictEqual(await view.count('.edit-message'), 0, 'no edit while the turn runs');
    await view.locator('#stop').click();
    await view.waitPhase('aborted');
    await view.locator('#turn-actions .retry-turn').waitFor({ timeout: uiTimeout });
    assert.strictEqual(await session.workbench.paletteHas('Vigil: Retry Last Turn'), true);
    await session.workbench.screenshot('e2e-edit-retry-5-stopped');
    endpoint.script(text('One, two, three.'));
    await view.locator('#turn-actions .retry-turn').click();
    await view.locator('.entry.agent', { hasText: 'One, two, three.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(userMessages(lastRequest()).filter((m) => m === 'Count to three.').length, 1, 'the stopped prompt is sent once more, not twice');
    await view.locator('.entry.user[data-redo="retry"]', { hasText: 'Count to three.' }).waitFor({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-edit-retry-6-retried');
    session.workbench.assertStayedOnMachine();
  });
});
