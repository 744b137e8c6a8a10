// Sessions in editor tabs, driven as a person does: a session of the side bar opened in a tab from the
// session list, a message sent in the tab showing in the side bar too (one model), a second session started
// with the tab's title button opening beside it, a session opened again revealing its tab, the chat input
// focused with its key, and a closed tab leaving the side bar working. (Tabs restored after a reload: the
// extension-host suite's sessionTabRestore.test.ts; whether VS Code saved the layout before a reload is its own.) Screenshots in .vscode-test/screenshots.

import * as assert from 'node:assert';
import { mkdtempSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { sessionRowLabels } from '../harness/sideBar';
import { repoRoot } from '../harness/codeServer';
import { writeModelScript } from '../harness/runFiles';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { chooseFromContextMenu, editorTabs, sessionFrames, waitSessionFrame } from '../harness/editorTabs';
import { SessionView, uiTimeout } from '../harness/sessionView';

async function sendIn(frame: Frame, text: string): Promise<void> {
  await frame.locator('#prompt-input').fill(text);
  await frame.locator('#send:not([disabled])').click({ timeout: uiTimeout });
}

const userTexts = (frame: Frame) => frame.locator('.entry.user').allInnerTexts();

/** Waits until the Sessions list's row of `title` says the state the views say (the list redraws a moment later). */
async function waitListed(page: Page, title: string, state: string): Promise<void> {
  const deadline = Date.now() + uiTimeout;
  let labels: string[] = [];
  while (Date.now() < deadline) {
    labels = await sessionRowLabels(page);
    // The title is the first prompt, or the name the agent gave the session (the demo's "Demo: …").
    if (labels.some((l) => l.startsWith(`${title}, ${state}`) || l.startsWith(`Demo: ${title}, ${state}`))) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`the Sessions list never showed "${title}" as ${state}; its rows: ${JSON.stringify(labels)}`);
}

describe('sessions in editor tabs (real workbench)', function () {
  let session: E2eSession;
  let view: SessionView;

  const scriptFile = path.join(mkdtempSync(path.join(repoRoot, '.vscode-test', 'e2e-script-')), 'model-script.json');

  before(async function () {
    // Each session's agent reads the script from the top: plain answers, no tools.
    writeModelScript(scriptFile, ['one', 'two', 'three', 'four', 'five'].map((n) => ({ text: `Answer ${n}.` })));
    session = await openE2eSession({ name: 'tabs', env: { VIGIL_DEMO_SCRIPT: scriptFile } });
    view = new SessionView(session.workbench);
  });

  afterEach(async function () {
    // What the workbench showed when a step failed: the first thing to look at.
    if (this.currentTest?.state === 'failed') await session?.workbench.screenshot(`failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });

  after(async function () {
    await session?.close();
  });

  it('a session opened from the list in a tab stays in step with the side bar; a second one opens beside it', async () => {
    const page = session.workbench.page;
    await session.workbench.runCommand('Vigil: New Session');
    const first = await view.waitPainted();
    await view.send('Hello from the side bar');
    await view.locator('.entry.agent').first().waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');

    // The session list's context menu, as a person right-clicks its row.
    const row = page.locator('.monaco-list[aria-label="Sessions"] .monaco-list-row', { hasText: 'Hello from the side bar' }).first();
    await row.waitFor({ timeout: uiTimeout });
    await chooseFromContextMenu(page, row, 'Open Session in Editor');
    const tab = await waitSessionFrame(page, 'tab', first);
    await editorTabs(page, 'Hello from the side bar').first().waitFor({ timeout: uiTimeout });
    assert.deepStrictEqual((await userTexts(tab)).map((t) => t.trim()).filter((t) => t.includes('Hello')).length, 1, 'the tab shows the transcript so far');

    await sendIn(tab, 'Hello from the tab');
    const sideBar = await waitSessionFrame(page, 'view', first);
    // One model: the message and the answer reach the side bar's view of the same session too.
    await sideBar.locator('.entry.user', { hasText: 'Hello from the tab' }).waitFor({ timeout: uiTimeout });
    await tab.locator('#app[data-phase="idle"]').waitFor({ timeout: uiTimeout });
    await sideBar.locator('#app[data-phase="idle"]').waitFor({ timeout: uiTimeout });
    assert.strictEqual(await tab.locator('.entry.agent').count(), await sideBar.locator('.entry.agent').count(), 'both show the same answers');
    await waitListed(page, 'Hello from the side bar', 'idle');
    await session.workbench.screenshot('e2e-tabs-1-tab-and-side-bar-in-step');

    // The tab's title button starts a new session in a tab beside it, with the keyboard in its input.
    await tab.locator('#prompt-input').click();
    await page.locator('.editor-actions .action-label[aria-label*="New Session in Editor"]').first().click({ timeout: uiTimeout });
    let second = '';
    for (const deadline = Date.now() + uiTimeout; !second && Date.now() < deadline; await page.waitForTimeout(100)) {
      second = (await sessionFrames(page)).find((f) => f.where === 'tab' && f.sessionId !== first && f.sessionId !== '')?.sessionId ?? '';
    }
    assert.ok(second, 'a second session opened in a tab');
    const secondTab = await waitSessionFrame(page, 'tab', second);
    await secondTab.waitForFunction(() => document.activeElement?.id === 'prompt-input', undefined, { timeout: uiTimeout });
    assert.strictEqual(await page.locator('.editor-group-container').count(), 2, 'side by side: two editor groups');
    await page.keyboard.type('Second session, typed at once');
    await secondTab.locator('#send:not([disabled])').click({ timeout: uiTimeout });
    await editorTabs(page, 'Second session, typed at once').first().waitFor({ timeout: uiTimeout });
    await secondTab.locator('.entry.agent', { hasText: 'Answer one.' }).waitFor({ timeout: uiTimeout });
    await secondTab.locator('#app[data-phase="idle"]').waitFor({ timeout: uiTimeout });
    await waitListed(page, 'Second session, typed at once', 'idle');
    assert.strictEqual(await view.sessionId(), first, 'the side bar keeps its own session');
    await session.workbench.screenshot('e2e-tabs-2-two-sessions-side-by-side');
  });

  it('a session opened again reveals its tab; Focus Chat Input puts the keyboard in the composer', async () => {
    const page = session.workbench.page;
    const first = await view.sessionId();
    await session.workbench.runCommand('Vigil: Open Session in Editor');
    await session.workbench.pickQuickItem('Hello from the side bar');
    // The focused group's tab is the session's: its tab was revealed, not opened again.
    await page.locator('.editor-group-container.active .tab.active', { hasText: 'Hello from the side bar' }).waitFor({ timeout: uiTimeout });
    assert.strictEqual(await editorTabs(page, 'Hello from the side bar').count(), 1, 'one tab per session');

    // The key works from a text editor: the last used composer (this tab's) gets the keyboard.
    await page.keyboard.press('Control+Alt+K');
    const tab = await waitSessionFrame(page, 'tab', first);
    await tab.waitForFunction(() => document.activeElement?.id === 'prompt-input', undefined, { timeout: uiTimeout });
    await page.keyboard.type('typed after Ctrl+Alt+K');
    assert.strictEqual(await tab.locator('#prompt-input').inputValue(), 'typed after Ctrl+Alt+K');
    await session.workbench.screenshot('e2e-tabs-3-focus-chat-input');
    await tab.locator('#prompt-input').fill('');
  });

  it('a closed tab leaves the side bar showing and running its session', async () => {
    const page = session.workbench.page;
    const first = await view.sessionId();
    const tabs = editorTabs(page, 'Hello from the side bar');
    await tabs.first().hover();
    await tabs.first().locator('.tab-actions .action-label').click({ timeout: uiTimeout });
    await tabs.first().waitFor({ state: 'detached', timeout: uiTimeout });
    await view.send('After the tab closed');
    await view.locator('.entry.user', { hasText: 'After the tab closed' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual((await sessionFrames(page)).filter((f) => f.sessionId === first && f.where === 'tab').length, 0);
    session.workbench.assertStayedOnMachine();
  });
});
