// Context from the editor, driven as a person does: the editor's context menu adds the selection and the file
// to the composer as the same chips `@` makes, a file dragged from the Explorer onto the composer becomes a
// mention, a dropped path outside the folder is refused with why, and the Problems button attaches the
// active file's Problems; the agent receives each. Screenshots in .vscode-test/screenshots.

import * as assert from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { chooseFromContextMenu, waitSessionFrame } from '../harness/editorTabs';

const contextAgent = path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'fakeContextAgent.js');

describe('context from the editor (real workbench)', function () {
  let session: E2eSession;
  let view: SessionView;
  let logDir: string;
  let log: string;

  const lastPrompt = (): Array<Record<string, unknown>> => {
    const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];
    return (lines.filter((e) => e.kind === 'prompt').pop()?.blocks as Array<Record<string, unknown>>) ?? [];
  };

  /** Opens a workspace file with Quick Open, as a person does, and returns the editor's input. */
  const openFile = async (name: string) => {
    const page = session.workbench.page;
    await page.keyboard.press('Control+P');
    const quick = page.locator('.quick-input-widget input.input');
    await quick.waitFor({ state: 'visible', timeout: uiTimeout });
    await quick.fill(name);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ timeout: uiTimeout });
    await quick.press('Enter');
    await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ timeout: uiTimeout });
    const editor = page.locator('.editor-instance .monaco-editor textarea').first();
    await editor.waitFor({ timeout: uiTimeout });
    return editor;
  };

  before(async function () {
    logDir = mkdtempSync(path.join(os.tmpdir(), 'vigil-editor-context-e2e-'));
    log = path.join(logDir, 'received.jsonl');
    session = await openE2eSession({
      name: 'editor-context',
      settings: { 'vigil.agent': { command: process.execPath, args: [contextAgent], env: { FAKE_CONTEXT_LOG: log } } },
      // A JSON file with a mistake: the JSON language service reports it in the Problems list.
      prepareWorkspace: (workspace) => writeFileSync(path.join(workspace, 'broken.json'), '{\n  "name": "demo",\n  "version": 1,,\n}\n'),
    });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent('fakeContextAgent');
  });

  afterEach(async function () {
    // What the workbench showed when a step failed: the first thing to look at.
    if (this.currentTest?.state === 'failed') await session?.workbench.screenshot(`failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });

  after(async function () {
    await session?.close();
    if (logDir) rmSync(logDir, { recursive: true, force: true });
  });

  it('the editor context menu adds the selection and the file; the agent gets both', async () => {
    const page = session.workbench.page;
    const editor = await openFile('README.md');
    await editor.focus();
    await page.keyboard.press('Control+A');
    const text = page.locator('.editor-instance .monaco-editor .view-lines').first();
    await chooseFromContextMenu(page, text, 'Add Selection to Vigil');
    await view.locator('.attachment-chips .chip[data-kind="selection"]', { hasText: 'README.md:1' }).waitFor({ timeout: uiTimeout });

    await chooseFromContextMenu(page, text, 'Add File to Vigil');
    await view.locator('.attachment-chips .chip[data-kind="file"]', { hasText: 'README.md' }).waitFor({ timeout: uiTimeout });
    // The keyboard is in the composer: a person types the question straight away.
    const frame = await view.frame();
    await frame.waitForFunction(() => document.activeElement?.id === 'prompt-input', undefined, { timeout: uiTimeout });
    await page.keyboard.type('what is this');
    await session.workbench.screenshot('e2e-editor-context-1-selection-and-file');
    await view.locator('#send:not([disabled])').click();
    await view.locator('.entry.user .entry-attachment', { hasText: 'README.md' }).first().waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const blocks = lastPrompt();
    assert.deepStrictEqual(blocks[0], { type: 'text', text: 'what is this' });
    assert.strictEqual(blocks.find((b) => b.type === 'resource_link')?.uri, pathToFileURL(path.join(session.workspace, 'README.md')).href);
    assert.ok(blocks.some((b) => b.type === 'resource'), 'the selection is embedded');
  });

  it('a file dragged from the Explorer onto the composer of a tab becomes a mention', async () => {
    const page = session.workbench.page;
    const sessionId = await view.sessionId();
    // The Explorer and the Vigil view share the side bar: the session goes to a tab, beside the Explorer.
    await session.workbench.runCommand('Vigil: Open Session in Editor');
    await session.workbench.pickQuickItem('what is this');
    const tab = await waitSessionFrame(page, 'tab', sessionId);
    await page.keyboard.press('Control+Shift+E');
    const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'package.json' }).first();
    await row.waitFor({ timeout: uiTimeout });
    const input = await tab.locator('#prompt-input').boundingBox();
    const from = await row.boundingBox();
    assert.ok(input && from);
    // A person drags with the mouse, holding Shift so the workbench lets the webview take the drop.
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 30, from.y + from.height / 2, { steps: 4 });
    await page.keyboard.down('Shift');
    await page.mouse.move(input.x + 40, input.y + 20, { steps: 8 });
    await page.mouse.move(input.x + 60, input.y + 24, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await tab.locator('.attachment-chips .chip[data-kind="file"]', { hasText: 'package.json' }).waitFor({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-editor-context-2-dropped-from-explorer');
  });

  it('a dropped path outside the folder is refused with why; nothing is attached', async () => {
    const page = session.workbench.page;
    const tab = await waitSessionFrame(page, 'tab', await view.sessionId());
    // What a hostile page or drag could claim: a file outside the workspace, and a folder in it.
    await tab.evaluate((uris) => {
      const data = new DataTransfer();
      data.setData('text/uri-list', uris.join('\r\n'));
      const composer = document.getElementById('composer')!;
      composer.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, ['file:///etc/passwd', pathToFileURL(path.join(session.workspace, 'src')).href]);
    const problem = tab.locator('.composer-problem');
    await problem.waitFor({ timeout: uiTimeout });
    const text = await problem.innerText();
    assert.match(text, /"\/etc\/passwd" is outside the session's folder/);
    assert.match(text, /is a folder; mention the files in it instead/);
    assert.strictEqual(await tab.locator('.attachment-chips .chip', { hasText: 'passwd' }).count(), 0);
    await session.workbench.screenshot('e2e-editor-context-3-hostile-drop-refused');
    // The tab closes; the side bar shows the session on.
    const tabLabel = page.locator('.tabs-container .tab', { hasText: 'what is this' }).first();
    await tabLabel.hover();
    await tabLabel.locator('.tab-actions .action-label').click({ timeout: uiTimeout });
    await tabLabel.waitFor({ state: 'detached', timeout: uiTimeout });
  });

  it('the Problems button attaches the active file’s Problems; the agent gets them', async () => {
    const page = session.workbench.page;
    await openFile('broken.json');
    await page.locator('.activitybar .action-item a[aria-label^="Vigil"]').first().click();
    // The JSON service has reported the mistake (the status bar's problem count moves off zero).
    await page.locator('.statusbar-item[id="status.problems"]', { hasText: /[1-9]/ }).waitFor({ timeout: uiTimeout });
    await view.locator('#attach-problems').click();
    const chip = view.locator('.attachment-chips .chip[data-kind="problems"]', { hasText: 'Problems of broken.json' });
    await chip.waitFor({ timeout: uiTimeout });
    await view.locator('#prompt-input').fill('fix these');
    await session.workbench.screenshot('e2e-editor-context-4-problems-of-active-file');
    await view.locator('#send:not([disabled])').click();
    await view.locator('.entry.user .entry-attachment', { hasText: 'Problems of broken.json' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const problems = lastPrompt().find((b) => b.type === 'resource') as { resource?: { text?: string } } | undefined;
    assert.match(problems?.resource?.text ?? '', /^broken\.json:\d+:\d+ error: /m);
    session.workbench.assertStayedOnMachine();
  });
});
