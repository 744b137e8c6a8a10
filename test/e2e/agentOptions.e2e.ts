// A third-party agent's options in the real workbench: after the first message the header shows its
// model, mode and context usage and the session carries the agent's title; the person picks another
// mode from the header and another model with "Select Model…", types `/`, picks a command with the
// keyboard, and the agent receives it as text with the new mode.

import * as assert from 'node:assert';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { SessionView, uiTimeout } from '../harness/sessionView';

const optionsAgent = path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'fakeOptionsAgent.js');

describe('agent options, commands, usage and title (real workbench)', function () {
  let session: E2eSession;
  let view: SessionView;

  before(async function () {
    session = await openE2eSession({ name: 'agent-options', settings: { 'vigil.agent': { command: process.execPath, args: [optionsAgent] } } });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent('fakeOptionsAgent');
  });

  after(async function () {
    await session?.close();
  });

  const optionButton = (category: string) => view.locator(`#agent-options .agent-option[data-category="${category}"] .agent-option-value`);
  const waitText = async (selector: string, text: string | RegExp) => view.locator(selector, { hasText: text }).waitFor({ timeout: uiTimeout });

  it('shows the agent’s model, mode, usage and title in the header after the first message', async () => {
    await view.send('hello');
    await view.locator('.entry.agent', { hasText: 'mode=code model=fast-1' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    await waitText('#agent-options .agent-option[data-category="model"]', 'Fast One');
    await waitText('#agent-options .agent-option[data-category="mode"]', 'Code');
    await waitText('#agent-usage', /1k \/ 200k \(1%\) · \$0\.01/);
    await waitText('#session-title', 'Named by the agent');
    await session.workbench.screenshot('e2e-agent-options-1-header');
  });

  it('picks another mode from the header; the agent’s answer shows (and the reasoning it changed with it)', async () => {
    await view.locator('#agent-options .agent-option[data-category="mode"]').click();
    await session.workbench.pickQuickItem('Plan');
    await waitText('#agent-options .agent-option[data-category="mode"]', 'Plan');
    await waitText('#agent-options .agent-option[data-category="thought_level"]', 'High');
    assert.strictEqual((await optionButton('model').innerText()).trim(), 'Fast One');
  });

  it('"Select Model…" offers the agent’s own models', async () => {
    await session.workbench.runCommand('Vigil: Select Model…');
    await session.workbench.pickQuickItem('Deep One');
    await waitText('#agent-options .agent-option[data-category="model"]', 'Deep One');
  });

  it('/ lists the agent’s commands; the keyboard picks one, and it is sent as text', async () => {
    const input = view.locator('#prompt-input');
    await input.click();
    await input.pressSequentially('/');
    const list = view.locator('#command-list[role="listbox"]');
    await list.waitFor({ timeout: uiTimeout });
    assert.deepStrictEqual(await view.texts('#command-list .command-option .command-name'), ['/review', '/explain', '/compact']);
    assert.strictEqual(await input.getAttribute('aria-activedescendant'), 'command-option-0');
    await input.press('ArrowDown');
    await view.locator('#command-list .command-option.active[data-command="explain"][aria-selected="true"]').waitFor({ timeout: uiTimeout });
    assert.strictEqual(await input.getAttribute('aria-activedescendant'), 'command-option-1');
    await session.workbench.screenshot('e2e-agent-options-2-commands');
    await input.press('Enter');
    await list.waitFor({ state: 'detached', timeout: uiTimeout });
    assert.strictEqual(await input.inputValue(), '/explain ');
    await waitText('#command-hint', 'file or symbol to explain');
    await input.pressSequentially('README.md');
    await view.locator('#send:not([disabled])').click();
    await view.locator('.entry.agent', { hasText: 'mode=plan model=deep-1 thought=high web=false text=/explain README.md' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    await waitText('#agent-usage', /2k \/ 200k/);
  });

  it('Escape closes the command list without touching the draft', async () => {
    const input = view.locator('#prompt-input');
    await input.fill('');
    await input.pressSequentially('/re');
    await view.locator('#command-list').waitFor({ timeout: uiTimeout });
    await input.press('Escape');
    await view.locator('#command-list').waitFor({ state: 'detached', timeout: uiTimeout });
    assert.strictEqual(await input.inputValue(), '/re');
    await session.workbench.screenshot('e2e-agent-options-3-final');
  });
});
