// A hostile third-party ACP agent in the real workbench, under the "ask" policy: the command it runs in
// "/" and the file it writes without asking are asked in the session view (rejected: nothing runs or
// changes), and the links in its markdown answer are text unless they are https or workspace files.

import * as assert from 'node:assert';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { SessionView, uiTimeout } from '../harness/sessionView';

const fakeAgent = path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'fakeAcpAgent.js');

describe('hostile third-party agent (real workbench)', function () {
  let session: E2eSession;
  let view: SessionView;
  let outside: string;

  before(async function () {
    outside = mkdtempSync(path.join(os.tmpdir(), 'vigil-hostile-outside-'));
    session = await openE2eSession({
      name: 'hostile',
      settings: {
        'vigil.agent': { command: process.execPath, args: [fakeAgent] },
        'vigil.approvals.policy': 'ask',
      },
    });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
  });

  after(async function () {
    await session?.close();
    if (outside) rmSync(outside, { recursive: true, force: true });
  });

  /** Waits for Vigil's question, checks what it shows, screenshots it, and rejects it as a person would. */
  async function rejectQuestion(expected: string, screenshot: string): Promise<void> {
    const approval = view.locator('#approvals .approval');
    await approval.waitFor({ timeout: uiTimeout });
    const title = (await view.texts('#approvals .approval-title'))[0];
    assert.ok(title.includes(expected), `the question shows what will happen: "${title}" should include "${expected}"`);
    await view.waitPhase('awaitingApproval');
    await session.workbench.screenshot(screenshot);
    await view.locator('#approvals .approval button.reject').click();
    await approval.waitFor({ state: 'detached', timeout: uiTimeout });
  }

  it('asks before a command in "/" that the agent never asked permission for; rejected, it does not run', async () => {
    const marker = path.join(outside, 'ran-in-root');
    await view.send(`script ${JSON.stringify([{ terminal: { command: `touch ${marker}`, cwd: '/' } }])}`);
    await rejectQuestion(`run \`touch ${marker}\` in / (outside the workspace)`, 'e2e-hostile-1-command-in-root-asked');
    await view.locator('.entry.agent', { hasText: 'step 1 terminal: refused: Refused to run' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(existsSync(marker), false, 'the command did not run');
  });

  it('asks before a write the agent never asked permission for; rejected, nothing changes', async () => {
    const target = path.join(session.workspace, 'src', 'planted.js');
    await view.send(`script ${JSON.stringify([{ write: { path: target, content: 'process.exit(1)' } }])}`);
    await rejectQuestion(`write ${target} (the agent did not ask for permission first)`, 'e2e-hostile-2-unrequested-write-asked');
    await view.locator('.entry.agent', { hasText: 'step 1 write: refused: Refused to write' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(existsSync(target), false, 'the file was not written');
  });

  it('renders command: and vscode:// links in a markdown answer as text; https and workspace files stay links', async () => {
    await view.send(
      'say Try [the terminal](command:workbench.action.terminal.new), [the clone](vscode://vscode.git/clone?url=https%3A%2F%2Fevil.example%2Fr.git), ' +
        '[a script](javascript:alert(1)), [the docs](https://example.com/docs) and [the readme](README.md#L2).',
    );
    const answer = view.locator('.entry.agent', { hasText: 'Try the terminal' });
    await answer.waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const links = await answer.locator('a').evaluateAll((nodes) =>
      nodes.map((n) => ({ text: n.textContent, href: n.getAttribute('href'), file: n.getAttribute('data-vigil-file') })),
    );
    assert.deepStrictEqual(
      links,
      [
        { text: 'the docs', href: 'https://example.com/docs', file: null },
        { text: 'the readme', href: null, file: path.join(session.workspace, 'README.md') },
      ],
      'only the https link and the workspace file are links',
    );
    const html = await answer.locator('.markdown').innerHTML();
    assert.doesNotMatch(html, /command:|vscode:|javascript:/, 'no hostile target is anywhere in the DOM');
    assert.match((await answer.innerText()).replace(/\s+/g, ' '), /Try the terminal, the clone, a script, the docs and the readme\./, 'their labels are kept as text');
    await session.workbench.screenshot('e2e-hostile-3-links-as-text');

    // The workspace file link opens the file in an editor, through the host's check.
    await answer.locator('a.file-link').click();
    await session.workbench.page.locator('.tab', { hasText: 'README.md' }).first().waitFor({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-hostile-4-file-link-opened');
    session.workbench.assertStayedOnMachine();
  });
});
