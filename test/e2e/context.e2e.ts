// Prompt context and elicitations in the real workbench, with a fake ACP agent that records what it
// receives: a person types `@`, picks a file with the keyboard, sends, and the agent gets a
// resource_link; the agent asks for a form, the person fills it in and accepts, and the agent gets it; a form
// waiting in one window is answered in another.

import * as assert from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { openAnotherWindow } from '../harness/secondWindow';
import { SessionView, uiTimeout } from '../harness/sessionView';

const contextAgent = path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'fakeContextAgent.js');

describe('prompt context and elicitations (real workbench)', function () {
  let session: E2eSession;
  let view: SessionView;
  let logDir: string;
  let log: string;

  const received = (): Array<Record<string, unknown>> =>
    existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];

  before(async function () {
    logDir = mkdtempSync(path.join(os.tmpdir(), 'vigil-context-e2e-'));
    log = path.join(logDir, 'received.jsonl');
    session = await openE2eSession({
      name: 'context',
      settings: { 'vigil.agent': { command: process.execPath, args: [contextAgent], env: { FAKE_CONTEXT_LOG: log } } },
    });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent('fakeContextAgent');
  });

  after(async function () {
    await session?.close();
    if (logDir) rmSync(logDir, { recursive: true, force: true });
  });

  it('@ opens an accessible picker; Escape closes it without stopping anything', async () => {
    const input = view.locator('#prompt-input');
    await input.click();
    await input.pressSequentially('@');
    const list = view.locator('#mention-list[role="listbox"]');
    await list.waitFor({ timeout: uiTimeout });
    await view.locator('#mention-list [role="option"]').first().waitFor({ timeout: uiTimeout });
    assert.strictEqual(await input.getAttribute('aria-expanded'), 'true');
    assert.strictEqual(await input.getAttribute('aria-activedescendant'), 'mention-opt-0');
    await input.press('Escape');
    await list.waitFor({ state: 'detached', timeout: uiTimeout });
    assert.strictEqual(await input.getAttribute('aria-expanded'), 'false');
    await input.fill('');
  });

  it('a file picked with the keyboard is sent as a resource_link and shown on the message', async () => {
    const input = view.locator('#prompt-input');
    await input.click();
    await input.pressSequentially('explain @READ');
    const option = view.locator('#mention-list [role="option"]', { hasText: 'README.md' });
    await option.waitFor({ timeout: uiTimeout });
    // Move the highlight to README.md with the arrow keys, as a person would, then Enter.
    for (let i = 0; i < 10 && (await option.getAttribute('aria-selected')) !== 'true'; i += 1) await input.press('ArrowDown');
    assert.strictEqual(await option.getAttribute('aria-selected'), 'true');
    await session.workbench.screenshot('e2e-context-1-mention-picker');
    await input.press('Enter');
    const chip = view.locator('.attachment-chips .chip', { hasText: 'README.md' });
    await chip.waitFor({ timeout: uiTimeout });
    assert.strictEqual((await input.inputValue()).trim(), 'explain', 'the @query left the draft');
    await view.locator('#send:not([disabled])').click();
    await view.locator('.entry.agent', { hasText: 'resource_link(README.md)' }).waitFor({ timeout: uiTimeout });
    await view.locator('.entry.user .entry-attachment', { hasText: 'README.md' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const prompt = received().filter((e) => e.kind === 'prompt').pop();
    const blocks = prompt?.blocks as Array<Record<string, unknown>>;
    assert.deepStrictEqual(blocks[0], { type: 'text', text: 'explain' });
    assert.strictEqual(blocks[1].type, 'resource_link');
    assert.strictEqual(blocks[1].uri, pathToFileURL(path.join(session.workspace, 'README.md')).href);
    assert.strictEqual(blocks[1].name, 'README.md');
    await session.workbench.screenshot('e2e-context-2-file-sent');
  });

  it('an elicitation form is filled in, checked, and accepted; the agent receives the answer', async () => {
    await view.send('form');
    const form = view.locator('#elicitations form.elicitation');
    await form.waitFor({ timeout: uiTimeout });
    await view.waitPhase('awaitingApproval');
    // The agent's markup is shown as text.
    assert.strictEqual(await form.locator('b').count(), 0);
    assert.match(await form.locator('.elicitation-message').innerText(), /Please <b>fill<\/b> in/);
    // Accept with a required field missing: the view says what is wrong and sends nothing.
    await form.locator('button.elicitation-accept').click();
    await form.locator('[data-field="name"] .field-error').waitFor({ timeout: uiTimeout });
    await form.locator('[data-field="name"] input').fill('vigil');
    await form.locator('[data-field="region"] select').selectOption('eu');
    await form.locator('[data-field="replicas"] input').fill('3');
    await session.workbench.screenshot('e2e-context-3-elicitation-form');
    await form.locator('button.elicitation-accept').click();
    await form.waitFor({ state: 'detached', timeout: uiTimeout });
    await view.locator('.entry.agent', { hasText: '"action":"accept"' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const answer = received().filter((e) => e.kind === 'elicitation').pop()?.answer as { result?: unknown };
    assert.deepStrictEqual(answer.result, { action: 'accept', content: { name: 'vigil', region: 'eu', replicas: 3, confirm: false } });
  });

  it('a form waiting in one window is answered in another; the first window’s form closes', async () => {
    const sessionId = await view.sessionId();
    const windowB = await openAnotherWindow(session.server);
    try {
      const b = new SessionView(windowB);
      await windowB.runCommand('Vigil: Open Session…');
      await windowB.pickQuickItem('explain');
      await b.waitPainted(sessionId);
      await view.send('form');
      await view.locator('#elicitations form.elicitation').waitFor({ timeout: uiTimeout });
      const form = b.locator('#elicitations form.elicitation');
      await form.waitFor({ timeout: uiTimeout });
      await b.waitPhase('awaitingApproval');
      await form.locator('[data-field="name"] input').fill('from-b');
      await form.locator('[data-field="region"] select').selectOption('us');
      await form.locator('[data-field="replicas"] input').fill('2');
      await windowB.screenshot('e2e-context-5-elicitation-in-another-window');
      await form.locator('button.elicitation-accept').click();
      await form.waitFor({ state: 'detached', timeout: uiTimeout });
      await view.locator('#elicitations form.elicitation').waitFor({ state: 'detached', timeout: uiTimeout });
      await view.waitPhase('idle');
      const answer = received().filter((e) => e.kind === 'elicitation').pop()?.answer as { result?: unknown };
      assert.deepStrictEqual(answer.result, { action: 'accept', content: { name: 'from-b', region: 'us', replicas: 2, confirm: false } });
      windowB.assertStayedOnMachine();
    } finally {
      await windowB.close();
    }
  });

  it('@selection attaches the editor selection; the agent gets it as an embedded resource', async () => {
    const page = session.workbench.page;
    await page.keyboard.press('Control+P');
    const quick = page.locator('.quick-input-widget input.input');
    await quick.waitFor({ state: 'visible', timeout: uiTimeout });
    await quick.fill('README.md');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'README.md' }).first().waitFor({ timeout: uiTimeout });
    await quick.press('Enter');
    const editor = page.locator('.editor-instance .monaco-editor textarea').first();
    await editor.waitFor({ timeout: uiTimeout });
    await editor.focus();
    await page.keyboard.press('Control+A');
    const input = view.locator('#prompt-input');
    await input.click();
    await input.pressSequentially('what is @sel');
    const option = view.locator('#mention-list [role="option"][data-kind="selection"]');
    await option.waitFor({ timeout: uiTimeout });
    await option.dispatchEvent('mousedown');
    await view.locator('.attachment-chips .chip[data-kind="selection"]', { hasText: 'README.md:1' }).waitFor({ timeout: uiTimeout });
    await view.locator('#send:not([disabled])').click();
    await view.locator('.entry.agent', { hasText: 'resource(file://' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const blocks = received().filter((e) => e.kind === 'prompt').pop()?.blocks as Array<{ type: string; resource?: { uri: string; text: string } }>;
    assert.strictEqual(blocks[1].type, 'resource');
    assert.match(blocks[1].resource?.uri ?? '', /README\.md#L1-L\d+$/);
    assert.strictEqual(blocks[1].resource?.text, readFileSync(path.join(session.workspace, 'README.md'), 'utf8'));
  });

  it('a URL elicitation shows the host; the person opens it, and the agent completes it', async () => {
    await view.send('url');
    const card = view.locator('#elicitations .elicitation[data-mode="url"]');
    await card.waitFor({ timeout: uiTimeout });
    assert.match(await card.locator('.elicitation-host').innerText(), /^127\.0\.0\.1:\d+$/);
    await session.workbench.screenshot('e2e-context-4-elicitation-url');
    const opened = session.workbench.context.waitForEvent('page', { timeout: uiTimeout });
    await card.locator('button.elicitation-open').click();
    // VS Code may ask before opening an external site: answer it as a person would.
    const confirm = session.workbench.page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Open$/ });
    await Promise.race([opened, confirm.waitFor({ timeout: uiTimeout }).then(() => confirm.click())]);
    const tab = await opened;
    await card.waitFor({ state: 'detached', timeout: uiTimeout });
    await view.locator('.entry.agent', { hasText: 'elicitation: {"action":"accept"}' }).waitFor({ timeout: uiTimeout });
    await tab.close();
    session.workbench.assertStayedOnMachine();
  });
});
