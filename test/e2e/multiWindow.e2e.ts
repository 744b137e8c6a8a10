// Many windows on one session, in the real workbench: two browser pages on one code-server are two
// extension hosts. A turn run by window A is shown live in window B (never "Idle"), its approval is
// answered from B; then A's page is closed while its host lives on (and stops answering), B sees the
// approval waiting, stops the turn, takes it over after the bound, and sends a new message.

import * as assert from 'node:assert';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { writeModelScript } from '../harness/runFiles';
import { leaseHolderPid, openAnotherWindow } from '../harness/secondWindow';
import { SessionView, uiTimeout } from '../harness/sessionView';
import type { Workbench } from '../harness/workbench';
import { afterTakeover, multiWindowScript } from '../fixtures/e2e/multiWindowScripts';

describe('many windows on one session (real workbench, two pages on one code-server)', function () {
  let session: E2eSession;
  let windowB: Workbench | undefined;
  let frozen: number | undefined;
  const scriptFile = path.join(mkdtempSync(path.join(repoRoot, '.vscode-test', 'e2e-script-')), 'model-script.json');

  before(async function () {
    writeModelScript(scriptFile, multiWindowScript);
    session = await openE2eSession({
      name: 'multiwindow',
      settings: { 'vigil.approvals.policy': 'ask' },
      env: { VIGIL_DEMO_SCRIPT: scriptFile },
    });
  });

  after(async function () {
    if (frozen !== undefined) {
      try {
        process.kill(frozen, 'SIGCONT');
      } catch {
        // already gone
      }
    }
    await windowB?.close();
    await session?.close();
  });

  it('a turn of window A is live in window B, answered there, then taken over from B when A stops answering', async () => {
    const a = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await a.waitPainted();
    await a.send('Write the first note please');
    await a.locator('#approvals .approval').waitFor({ timeout: uiTimeout });
    const sessionId = await a.sessionId();

    // Window B: a second page on the same server, opening the same session.
    windowB = await openAnotherWindow(session.server);
    const b = new SessionView(windowB);
    await windowB.runCommand('Vigil: Open Session…');
    await windowB.pickQuickItem('Write the first note please');
    await b.waitPainted(sessionId);
    await b.locator('#turn-status .where').waitFor({ timeout: uiTimeout });
    await b.waitPhase('awaitingApproval');
    assert.match(await b.locator('#turn-status').innerText(), /another window/);
    await b.locator('.entry.agent', { hasText: 'I will write the note now.' }).waitFor({ timeout: uiTimeout });
    await b.locator('.entry.tool-call', { hasText: 'note-1.txt' }).waitFor({ timeout: uiTimeout });
    await b.waitStatus(/^Vigil needs your approval · in another window$/);
    await windowB.screenshot('e2e-multiwindow-1-b-follows-a');

    // B answers; A's own prompt goes away and the turn completes in A.
    await b.locator('#approvals .approval .allow-once').click();
    await a.locator('#approvals .approval').waitFor({ state: 'detached', timeout: uiTimeout });
    await a.locator('.entry.agent', { hasText: 'The first note is written.' }).waitFor({ timeout: uiTimeout });
    await a.waitPhase('idle');
    await b.locator('.entry.agent', { hasText: 'The first note is written.' }).waitFor({ timeout: uiTimeout });
    await b.waitPhase('idle');
    assert.strictEqual(readFileSync(path.join(session.workspace, 'note-1.txt'), 'utf8'), 'first note\n', 'the write B approved happened in A');
    await b.waitStatus(/^Vigil$/);

    // Second turn from A; A's extension host stops answering (frozen, as a disconnected window's
    // host that hangs would), then A's page closes. Freezing first matters: a page that closes
    // cleanly may let code-server end its host, and then there would be nothing left to take over from.
    await a.send('Now the second note');
    await a.locator('#approvals .approval').waitFor({ timeout: uiTimeout });
    await b.locator('#approvals .approval').waitFor({ timeout: uiTimeout });
    const holder = leaseHolderPid(session.server, sessionId);
    assert.ok(holder !== undefined && holder !== process.pid, 'the lease names window A’s extension host');
    process.kill(holder, 'SIGSTOP');
    frozen = holder;
    await session.workbench.close();
    await b.waitPhase('awaitingApproval');
    await windowB.screenshot('e2e-multiwindow-2-approval-waiting-a-gone');

    // B stops the turn: no acknowledgement within the bound, so B takes the turn over.
    writeModelScript(scriptFile, afterTakeover);
    await b.locator('#stop').click();
    await b.waitPhase('interrupted');
    await b.locator('#notices .interrupted-notice', { hasText: 'did not answer when asked to stop' }).first().waitFor({ timeout: uiTimeout });
    assert.strictEqual(await b.count('#approvals .approval'), 0, 'the approval of the taken-over turn is gone');
    assert.ok(!existsSync(path.join(session.workspace, 'note-2.txt')), 'the unanswered write never happened');
    await windowB.screenshot('e2e-multiwindow-3-taken-over');

    // And B can go on: a new message runs in B.
    await b.send('Carry on here');
    await b.locator('.entry.agent', { hasText: 'A new message answered in the window that took over.' }).waitFor({ timeout: uiTimeout });
    await b.waitPhase('idle');
    await windowB.screenshot('e2e-multiwindow-4-b-continues');
    windowB.assertStayedOnMachine();
  });
});
