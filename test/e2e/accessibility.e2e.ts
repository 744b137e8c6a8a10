// The session view as a keyboard and screen-reader user meets it, in the real workbench: the ARIA
// snapshot during a turn (a live status that names the phase and holds no clock, named buttons, no
// icon glyphs), an approval that takes focus and is answered with Enter, Alt+A back to it, Stop reached
// with Tab; then Copy on a message (read back from the clipboard) and Export Session as Markdown
// through VS Code's own save dialog.

import * as assert from 'node:assert';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { writeModelScript, type ScriptedResponse } from '../harness/runFiles';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { longStory } from '../fixtures/e2e/modelScripts';

const words = (text: string) => text.split(/(?<= )/);
const script: ScriptedResponse[] = [
  { chunks: words('I will write the note now.'), toolCalls: [{ name: 'write_file', arguments: { path: 'note.txt', content: 'a note with ```backticks```\n' } }] },
  { chunks: words('The note is written. Run `cat note.txt` to see it.') },
  longStory(200),
];

/** Private-use code points: what a codicon glyph reads as when it is not hidden. */
const glyph = /[\uE000-\uF8FF]/;

describe('accessibility and export of the session view (real workbench, scripted model)', function () {
  let session: E2eSession;
  let view: SessionView;
  const scriptFile = path.join(mkdtempSync(path.join(repoRoot, '.vscode-test', 'e2e-script-')), 'model-script.json');

  async function focused(frame: Frame): Promise<string> {
    return frame.evaluate(() => {
      const el = document.activeElement;
      return el ? `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}` : '';
    });
  }

  before(async function () {
    writeModelScript(scriptFile, script);
    session = await openE2eSession({
      name: 'a11y',
      settings: { 'vigil.approvals.policy': 'ask' },
      env: { VIGIL_DEMO_SCRIPT: scriptFile },
    });
    view = new SessionView(session.workbench);
  });

  after(async function () {
    await session?.close();
  });

  it('announces the phase without the clock, names its buttons, and hands the keyboard an approval', async () => {
    await session.workbench.runCommand('Vigil: New Session');
    await view.locator('#app[data-painted-seq]:not([data-session-id=""])').waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const frame = await view.frame();

    // Keyboard only from here: focus the composer, type, Enter sends.
    const input = view.locator('#prompt-input');
    await input.focus();
    await session.workbench.page.keyboard.type('Write the note please');
    await session.workbench.page.keyboard.press('Enter');

    await view.locator('#approvals .approval').waitFor({ timeout: uiTimeout });
    await view.waitPhase('awaitingApproval');
    await frame.waitForFunction(() => document.activeElement?.classList.contains('allow-once') === true, undefined, { timeout: uiTimeout });

    const snapshot = await view.locator('#app').ariaSnapshot({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-a11y-approval');
    assert.doesNotMatch(snapshot, glyph, `no icon glyph reaches the accessibility tree:\n${snapshot}`);
    assert.match(snapshot, /- status: Needs your approval — Alt\+A to answer\n/, `the live status says the phase:\n${snapshot}`);
    for (const name of ['Allow once', 'Allow always', 'Reject', 'Copy your message as Markdown', 'Send', 'Stop', 'Open…']) {
      assert.ok(snapshot.includes(`button "${name}"`), `a button named "${name}":\n${snapshot}`);
    }
    assert.match(snapshot, /- log "Transcript"/);

    // Alt+A brings the person back to the approval from a draft, without losing it.
    await input.focus();
    await session.workbench.page.keyboard.type('a draft');
    assert.strictEqual(await focused(frame), 'textarea#prompt-input');
    await session.workbench.page.keyboard.press('Alt+A');
    assert.strictEqual(await focused(frame), 'button.button.allow-once');
    assert.strictEqual(await input.inputValue(), 'a draft');

    await session.workbench.page.keyboard.press('Enter');
    await view.locator('#approvals .approval').waitFor({ state: 'detached', timeout: uiTimeout });
    await view.locator('.entry.agent', { hasText: 'The note is written.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.ok(existsSync(path.join(session.workspace, 'note.txt')), 'the approved write happened');
  });

  it('keeps the ticking clock out of the live region while a turn runs, and Stop is reached with Tab', async () => {
    const frame = await view.frame();
    const input = view.locator('#prompt-input');
    await input.focus();
    await input.fill('');
    await session.workbench.page.keyboard.type('Tell me a long story');
    await session.workbench.page.keyboard.press('Enter');
    await view.waitPhase('running');
    const elapsed = view.locator('#turn-status .turn-elapsed');
    await elapsed.waitFor({ timeout: uiTimeout });
    const firstTick = await elapsed.innerText();
    const liveBefore = await view.locator('#turn-phase').innerText();
    // The next second on the clock, whenever it comes: the live region must not have moved with it.
    await frame.waitForFunction((t) => (document.querySelector('#turn-status .turn-elapsed')?.textContent ?? t) !== t, firstTick, { timeout: uiTimeout });
    assert.strictEqual(await view.locator('#turn-phase').innerText(), liveBefore);
    assert.strictEqual(liveBefore.trim(), 'Running');

    const status = await view.locator('#turn-status').ariaSnapshot();
    assert.match(status, /- status: Running\n/, status);
    assert.match(status, /- timer/, `the clock is a timer beside the live status:\n${status}`);
    assert.strictEqual(await view.locator('#turn-phase vigil-elapsed').count(), 0, 'no clock inside the live region');
    assert.strictEqual(await elapsed.getAttribute('aria-live'), 'off');
    // Clocks in the transcript (a log, polite by default) are never announced either.
    assert.strictEqual(await view.locator('vigil-elapsed:not([aria-live="off"])').count(), 0);

    // From the composer, Tab reaches Stop; Enter on it stops the turn.
    await input.focus();
    for (let i = 0; i < 6 && (await focused(frame)) !== 'button#stop.button.secondary'; i++) await session.workbench.page.keyboard.press('Tab');
    assert.strictEqual(await focused(frame), 'button#stop.button.secondary');
    assert.ok(await frame.evaluate(() => document.activeElement!.matches(':focus-visible')), 'Stop shows its keyboard focus ring');
    await session.workbench.page.keyboard.press('Enter');
    await view.locator('#notices .resume').first().waitFor({ timeout: uiTimeout });
    const stopped = await view.locator('#turn-status').ariaSnapshot();
    assert.match(stopped, /- status: Stopped$/m, stopped);
    assert.ok((await view.locator('#notices').ariaSnapshot()).includes('button "Resume"'));
  });

  it('copies a message as Markdown from the keyboard, through the host', async () => {
    await session.workbench.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(session.server.url).origin });
    const copy = view.locator('.entry.agent', { hasText: 'The note is written.' }).locator('.copy-entry');
    assert.strictEqual(await copy.getAttribute('aria-label'), 'Copy the agent’s message as Markdown');
    await copy.focus();
    await session.workbench.page.keyboard.press('Enter');
    await session.workbench.page.locator('.statusbar', { hasText: 'message copied as Markdown' }).waitFor({ timeout: uiTimeout });
    const text = await session.workbench.page.evaluate(() => navigator.clipboard.readText());
    assert.strictEqual(text, 'The note is written. Run `cat note.txt` to see it.');
  });

  it('exports the session as Markdown through the save dialog', async () => {
    const target = path.join(session.workspace, 'exported-session.md');
    await session.workbench.runCommand('Vigil: Export Session as Markdown…');
    const input = session.workbench.page.locator('.quick-input-widget input.input');
    await input.waitFor({ state: 'visible', timeout: uiTimeout });
    // VS Code's own dialog proposes a name from the session title in the workspace folder.
    await session.workbench.page.waitForFunction(() => /Write-the-note-please\.md$/.test((document.querySelector('.quick-input-widget input.input') as HTMLInputElement | null)?.value ?? ''), undefined, { timeout: uiTimeout });
    await input.fill(target);
    await input.press('Enter');
    await session.workbench.page.locator('.notifications-toasts', { hasText: 'exported' }).waitFor({ timeout: uiTimeout });
    const md = readFileSync(target, 'utf8');
    // The title is the first prompt until the agent names the session (the built-in agent on a script: "Demo: …").
    assert.match(md, /^# (Demo: )?Write the note please\n/);
    for (const part of ['## You', 'Write the note please', '## Agent', 'The note is written. Run `cat note.txt` to see it.', '### Tool: ', 'note.txt', '## You', 'Tell me a long story', 'word0 word1']) {
      assert.ok(md.includes(part), `the export has "${part}":\n${md.slice(0, 3000)}`);
    }
    // The written content holds a triple backtick run: its fence is longer.
    assert.match(md, /````json\n/);
    await session.workbench.screenshot('e2e-a11y-exported');
    session.workbench.assertStayedOnMachine();
  });
});
