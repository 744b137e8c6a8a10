// Edits in the real workbench, under `vigil.edits.review: ask`: a write waits as an approval that shows its diff and
// opens in VS Code's diff editor; rejected, the file stays untouched; accepted, it is written, its tool card and the
// turn's change list (from its checkpoint) show it with +/− counts, and Open diff shows before and after. A command approval reads as the
// command, its folder and whether it runs in the background, with the raw input one click away.

import * as assert from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { SessionView, uiTimeout } from '../harness/sessionView';

const fakeAgent = path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'fakeAcpAgent.js');

describe('edit review and readable approvals (real workbench)', function () {
  let session: E2eSession;
  let view: SessionView;
  let readme: string;
  let original: string;

  before(async function () {
    session = await openE2eSession({
      name: 'edits',
      settings: {
        'vigil.agent': { command: process.execPath, args: [fakeAgent] },
        'vigil.approvals.policy': 'ask',
        'vigil.edits.review': 'ask',
      },
    });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent('fakeAcpAgent');
    readme = path.join(session.workspace, 'README.md');
    original = readFileSync(readme, 'utf8');
  });

  after(async function () {
    await session?.close();
  });

  /** A tool call that writes README.md through fs/write_text_file, as agents do. */
  const writeScript = (id: string, content: string) =>
    `script ${JSON.stringify([
      { update: { sessionUpdate: 'tool_call', toolCallId: id, title: 'Edit README.md', kind: 'edit', status: 'in_progress', rawInput: { path: 'README.md' } } },
      { write: { path: readme, content } },
      { update: { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed' } },
    ])}`;

  const diffEditor = () => session.workbench.page.locator('.monaco-diff-editor').first();
  const diffTab = () => session.workbench.page.locator('.tab', { hasText: "README.md (agent's edit)" }).first();

  async function closeEditors(): Promise<void> {
    await session.workbench.runCommand('View: Close All Editors');
    await diffTab().waitFor({ state: 'detached', timeout: uiTimeout });
  }

  it('a write waits as an approval showing its diff, opens in the diff editor, and rejected leaves the file untouched', async () => {
    await view.send(writeScript('call-reject', `${original}Planted by the agent.\n`));
    const approval = view.locator('#approvals .approval');
    await approval.waitFor({ timeout: uiTimeout });
    await view.waitPhase('awaitingApproval');
    const title = (await view.texts('#approvals .approval-title'))[0];
    assert.match(title, /Review: edit README\.md \(\+1 −0\)/);
    assert.ok((await view.texts('#approvals .edit-details .diff-add')).some((t) => t.includes('Planted by the agent.')), 'the added line is shown in the approval');
    assert.strictEqual(await view.count('#approvals button.allow-always'), 0, 'an edit is accepted or rejected, not allowed always');

    await approval.locator('button.open-diff').click();
    await diffTab().waitFor({ timeout: uiTimeout });
    await diffEditor().waitFor({ timeout: uiTimeout });
    // The right side is the proposed content.
    await session.workbench.page.locator('.monaco-diff-editor .editor.modified .view-lines', { hasText: 'Planted by the agent.' }).waitFor({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-edits-1-review-diff-editor');
    await closeEditors();

    await approval.locator('button.reject').click();
    await approval.waitFor({ state: 'detached', timeout: uiTimeout });
    await view.locator('.entry.agent', { hasText: 'step 2 write: refused: Did not write README.md: the person rejected the edit' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(readFileSync(readme, 'utf8'), original, 'the file is untouched');
    assert.strictEqual(await view.count('.entry.edits'), 0, 'a turn that changed nothing lists no files');
  });

  it('accepted, the write lands; its card and the turn list it with +/−, and Open diff shows before and after', async () => {
    await view.send(writeScript('call-accept', `${original}Accepted line.\n`));
    const approval = view.locator('#approvals .approval');
    await approval.waitFor({ timeout: uiTimeout });
    await approval.locator('button.accept-edit').click();
    await approval.waitFor({ state: 'detached', timeout: uiTimeout });
    await view.locator('.entry.agent', { hasText: 'step 2 write: ok' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(readFileSync(readme, 'utf8'), `${original}Accepted line.\n`);

    const card = view.locator('.entry.tool-call[data-tool-call-id="call-accept"]');
    await card.locator('.edit-row[data-path="README.md"]').waitFor({ timeout: uiTimeout });
    assert.deepStrictEqual(await card.locator('.edit-row .edit-counts').allInnerTexts().then((t) => t.map((s) => s.trim())), ['+1 −0']);
    // The turn's list comes from its checkpoint, as every agent's does (one list, not a second one from the writes).
    const summary = view.locator('.entry.checkpoint .turn-changes');
    await summary.waitFor({ timeout: uiTimeout });
    assert.match((await summary.innerText()).replace(/\s+/g, ' '), /Changed 1 file \+1 −0 .*M README\.md \+1/);
    assert.strictEqual(await summary.locator('.turn-file[data-path="README.md"] .open-diff').count(), 1);
    assert.strictEqual(await view.count('.entry.edits'), 0);
    await session.workbench.screenshot('e2e-edits-2-card-and-turn-list');

    await card.locator('.edit-row button.open-diff').click();
    await diffTab().waitFor({ timeout: uiTimeout });
    await diffEditor().waitFor({ timeout: uiTimeout });
    // Before on the left, after on the right: only the right side has the accepted line.
    const original_ = session.workbench.page.locator('.monaco-diff-editor .editor.original');
    const modified = session.workbench.page.locator('.monaco-diff-editor .editor.modified');
    await modified.locator('.view-lines', { hasText: 'Accepted line.' }).waitFor({ timeout: uiTimeout });
    assert.ok(!(await original_.innerText()).includes('Accepted line.'), 'the left side is the file before the edit');
    await session.workbench.screenshot('e2e-edits-3-card-open-diff');
    await closeEditors();
  });

  it('a command approval shows the command, its folder and background; the raw input is one click away', async () => {
    const rawInput = { command: 'npm run build', cwd: session.workspace, run_in_background: true };
    await view.send(`script ${JSON.stringify([{ permission: { toolCallId: 'c1', title: 'Build', kind: 'execute', rawInput } }])}`);
    const approval = view.locator('#approvals .approval');
    await approval.waitFor({ timeout: uiTimeout });
    assert.strictEqual((await view.texts('#approvals .approval-command'))[0], 'npm run build');
    assert.strictEqual((await view.texts('#approvals .approval-cwd'))[0], session.workspace);
    assert.match((await view.texts('#approvals .approval-background'))[0], /^yes/);
    const raw = approval.locator('details.approval-raw');
    assert.strictEqual(await raw.locator('pre').isVisible(), false, 'the raw input starts folded');
    await raw.locator('summary').click();
    await raw.locator('pre', { hasText: 'run_in_background' }).waitFor({ state: 'visible', timeout: uiTimeout });
    await session.workbench.screenshot('e2e-edits-4-command-approval');
    await approval.locator('button.reject').click();
    await approval.waitFor({ state: 'detached', timeout: uiTimeout });
    await view.waitPhase('idle');
    session.workbench.assertStayedOnMachine();
  });
});
