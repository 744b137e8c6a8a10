// Restricted Mode with an agent of the person's own (vigil.agent in their user settings), in the real workbench with
// workspace trust enabled and the folder not trusted. That agent runs its own tools, which Vigil cannot confine: it
// starts only after the person allows it for the folder, in a modal that names it (never its arguments or
// environment, hostile characters escaped) and says what it can do outside Vigil's control. "Not now": the built-in
// agent answers, read-only (its write and its command refused by Vigil, unasked), and the view says so in one line
// with Change…. Allowed: the agent starts in its plan mode, also in a new session of the folder, until the consent is
// forgotten. Trusting the folder later needs no consent.

import * as assert from 'node:assert';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { waitForLogLines, writeModelScript } from '../harness/runFiles';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { answerModal, modalDialog } from '../harness/workspaceTrust';

const optionsAgent = path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'fakeOptionsAgent.js');
const question = /work in this folder in Restricted Mode\?/;

describe('Restricted Mode with your own agent (real workbench, folder not trusted)', function () {
  const runRoot = mkdtempSync(path.join(repoRoot, '.vscode-test', 'e2e-restricted-'));
  mkdirSync(runRoot, { recursive: true });
  // Every start of the agent appends a line here: whether (and how often) it ran is read, never guessed.
  const marker = path.join(runRoot, 'agent-starts.log');
  // A name with a right-to-left override: the modal must show it escaped.
  const agentCommand = path.join(runRoot, 'options\u202eagent');
  const script = path.join(runRoot, 'builtin-script.json');
  let session: E2eSession;
  let view: SessionView;
  const starts = () => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0);

  /** Waits for `what`, failing at once if the agent started meanwhile (without the consent, it must not). */
  async function unlessAgentStarted<T>(what: Promise<T>): Promise<T> {
    let settled = false;
    const watch = (async () => {
      while (!settled) {
        if (starts() > 0) throw new Error(`your agent started without being allowed: ${marker} exists`);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    try {
      return await Promise.race([what, watch as Promise<never>]);
    } finally {
      settled = true;
      await watch.catch(() => undefined);
    }
  }

  before(async function () {
    writeFileSync(agentCommand, `#!/bin/sh\necho started >> '${marker}'\nexec '${process.execPath}' '${optionsAgent}' "$@"\n`);
    chmodSync(agentCommand, 0o755);
    // The built-in agent tries a write and a command; Vigil refuses both in Restricted Mode.
    writeModelScript(script, [
      { text: 'I will write notes.txt.', toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'written by the agent' } }] },
      { text: 'Now a command.', toolCalls: [{ name: 'run_command', arguments: { command: 'touch ran-by-builtin' } }] },
      { text: 'Neither was allowed; nothing changed.' },
      { text: 'Second answer of the built-in agent.' },
    ]);
    session = await openE2eSession({
      name: 'restricted-agent',
      workspaceTrust: 'restricted',
      settings: { 'vigil.agent': { command: agentCommand, args: ['--token=hostile-arg-secret'], env: { AGENT_SERVICE_TOKEN: 'hostile-env-secret' } } },
      env: { VIGIL_DEMO_SCRIPT: script },
    });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent('options');
  });

  after(async function () {
    await session?.close();
  });

  const line = () => view.locator('#restricted-agent');

  it('asks before your agent starts, naming it and what it can do outside Vigil; "Not now": the built-in agent answers, read-only, and the view says so', async () => {
    const page = session.workbench.page;
    await view.send('Please write notes.txt and run a command.');
    const dialog = modalDialog(page, question);
    await unlessAgentStarted(dialog.waitFor({ timeout: uiTimeout }));
    const shown = (await dialog.innerText()).replace(/\s+/g, ' ');
    assert.ok(shown.includes('options\\u{202e}agent'), `the agent is named, its override escaped: ${shown}`);
    assert.doesNotMatch(shown, /\u202e/, 'no raw bidi override reaches the modal');
    assert.match(shown, /can run commands and read and write files anywhere you can/);
    assert.match(shown, /outside Vigil's control/);
    assert.match(shown, /read-only or plan mode/);
    assert.doesNotMatch(shown, /hostile-arg-secret|hostile-env-secret|AGENT_SERVICE_TOKEN/, 'neither arguments nor environment are shown');
    await session.workbench.screenshot('e2e-restricted-1-consent-modal');
    await answerModal(page, question, /^Not now$/);

    await unlessAgentStarted(view.locator('.entry.agent', { hasText: 'Neither was allowed; nothing changed.' }).waitFor({ timeout: uiTimeout }));
    await view.waitPhase('idle');
    await line().filter({ hasText: 'Restricted Mode: the built-in agent answers, read-only.' }).waitFor({ timeout: uiTimeout });
    await view.waitAgent('built-in, read-only');
    assert.strictEqual(await view.count('#restricted-agent #restricted-change'), 1, 'the line offers Change…');
    for (const tool of ['write_file', 'run_command']) {
      const card = view.locator('.entry.tool-call', { hasText: tool }).first();
      assert.notStrictEqual(await card.getAttribute('data-status'), 'completed', `${tool} was refused`);
    }
    assert.ok(!existsSync(path.join(session.workspace, 'notes.txt')), 'nothing was written');
    assert.ok(!existsSync(path.join(session.workspace, 'ran-by-builtin')), 'no command ran');
    assert.strictEqual(await view.count('#approvals .approval'), 0, 'refused by Vigil without asking');
    assert.strictEqual(starts(), 0, 'your agent never started');
    await session.workbench.screenshot('e2e-restricted-2-read-only-notice');
  });

  it('"Not now" holds in this window: the next message is answered without a second question', async () => {
    await view.send('And again.');
    await unlessAgentStarted(view.locator('.entry.agent', { hasText: 'Second answer of the built-in agent.' }).waitFor({ timeout: uiTimeout }));
    await view.waitPhase('idle');
    assert.strictEqual(await modalDialog(session.workbench.page, question).count(), 0);
    await waitForLogLines(session.server, /\[restricted\] asking whether/, 1);
  });

  it('Change… asks again; allowed, your agent starts in its plan mode and the line says it works outside Vigil', async () => {
    await view.locator('#restricted-change').click();
    await answerModal(session.workbench.page, question, /^Allow$/);
    await line().filter({ hasText: "works outside Vigil's control" }).waitFor({ timeout: uiTimeout });
    await view.send('hello');
    await view.locator('.entry.agent', { hasText: /fake options agent: mode=plan .*text=hello/ }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    await view.locator('#agent-options .agent-option[data-category="mode"]', { hasText: 'Plan' }).waitFor({ timeout: uiTimeout });
    assert.strictEqual(starts(), 1, 'your agent started once, after you allowed it');
    await session.workbench.screenshot('e2e-restricted-3-allowed-plan-mode');
  });

  it('the consent belongs to the folder: a new session starts your agent, in plan mode, without asking', async () => {
    const first = await view.sessionId();
    await session.workbench.runCommand('Vigil: New Session');
    // The message goes to the new session only once the view shows it (on a loaded machine it can take a moment).
    await view.locator(`#app[data-painted-seq]:not([data-session-id=""]):not([data-session-id="${first}"])`).waitFor({ timeout: uiTimeout });
    await view.send('second session');
    await view.locator('.entry.agent', { hasText: /mode=plan .*text=second session/ }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(await modalDialog(session.workbench.page, question).count(), 0);
    assert.strictEqual(starts(), 2);
    await waitForLogLines(session.server, /\[restricted\] asking whether/, 2);
  });

  it('"Forget Agent Consent for This Folder": the next start asks again', async () => {
    await session.workbench.runCommand('Vigil: Forget Agent Consent for This Folder');
    await waitForLogLines(session.server, /\[restricted\] agent consent for .* forgotten/, 1);
    await view.send('after forgetting');
    await answerModal(session.workbench.page, question, /^Not now$/);
    await view.locator('.entry.agent', { hasText: 'I will write notes.txt.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    await line().filter({ hasText: 'the built-in agent answers, read-only' }).waitFor({ timeout: uiTimeout });
    assert.strictEqual(starts(), 2, 'your agent did not start again');
  });

  it('trusting the folder later: your agent starts as configured, without consent, and the line goes', async () => {
    const page = session.workbench.page;
    await session.workbench.runCommand('Workspaces: Manage Workspace Trust');
    await page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust( Folder)?$/ }).first().click({ timeout: uiTimeout });
    await waitForLogLines(session.server, /the workspace is trusted now/, 1);
    await line().waitFor({ state: 'detached', timeout: uiTimeout });
    await view.send('trusted now');
    await view.locator('.entry.agent', { hasText: /mode=code .*text=trusted now/ }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(await modalDialog(page, question).count(), 0, 'nothing is asked in a trusted folder');
    assert.strictEqual(starts(), 3);
    session.workbench.assertStayedOnMachine();
  });
});
