// A third-party ACP agent that wedges (a synchronous infinite loop) in the real workbench: the
// watchdog aborts the turn, the agent is killed as a tree, and the next message works without a reload.

import * as assert from 'node:assert';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { runProcesses } from '../harness/runFiles';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { readStatusTexts, startStatusProbe } from '../harness/viewProbe';

const fakeAgent = path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'fakeAcpAgent.js');
const graceSeconds = 2;

describe('wedged third-party agent (real workbench)', function () {
  let session: E2eSession;
  let view: SessionView;

  before(async function () {
    session = await openE2eSession({
      name: 'wedged',
      settings: {
        'vigil.agent': { command: process.execPath, args: [fakeAgent] },
        'vigil.approvals.policy': 'allowAll',
        'vigil.turnLiveness.timeoutSeconds': 6,
        'vigil.turnLiveness.toolTimeoutSeconds': 6,
        'vigil.turnLiveness.graceSeconds': graceSeconds,
      },
    });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await startStatusProbe(session.workbench.page);
  });

  after(async function () {
    await session?.close();
  });

  it('6: a spinning agent is aborted and killed, and the next message works without a reload', async () => {
    await view.send('spin');
    await view.locator('.entry.agent', { hasText: 'fake agent: spin' }).waitFor({ timeout: uiTimeout });
    const [spinning] = await runProcesses(session.server, /fakeAcpAgent\.js/);
    assert.ok(spinning, 'the agent process runs');
    // Silent past the bound: the watchdog aborts; the agent ignores session/cancel (its loop never yields).
    const abort = view.locator('#notices .abort-notice .notice-text, #notices .interrupted-notice .notice-text', { hasText: /^Stopped: no progress for \d+ s$/ });
    await abort.waitFor({ timeout: uiTimeout });
    await view.locator('.entry.notice', { hasText: 'The agent did not stop, so Vigil is ending its process' }).waitFor({ timeout: uiTimeout });
    assert.match((await view.locator('.entry.notice .notice-detail', { hasText: "Killing the agent's process tree" }).first().textContent()) ?? '', /did not stop within \d+ s of the abort/, 'the details say how');
    await view.waitPhase('interrupted');
    await view.waitStatus(/^Vigil turn stopped — Resume$/);
    assert.strictEqual(await view.count('#notices .resume'), 1, 'one Resume for one aborted turn');
    assert.deepStrictEqual(await pollGone(session, spinning), [], 'the wedged agent process is gone');
    const status = await readStatusTexts(session.workbench.page);
    assert.ok(status.some((t) => /^Vigil quiet \d+s$/.test(t)), `the status bar warned of the silence first: ${JSON.stringify(status)}`);
    await session.workbench.screenshot('e2e-6-wedged-agent-killed');

    // No reload: the next message starts a fresh agent process and is answered.
    await view.send('stream');
    await view.locator('.entry.agent', { hasText: 'part 4' }).waitFor({ timeout: uiTimeout });
    await view.locator('.entry.tool-call[data-status="completed"]', { hasText: 'grep TODO' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const now = await runProcesses(session.server, /fakeAcpAgent\.js/);
    assert.ok(now.length === 1 && now[0] !== spinning, `a fresh agent process serves the session: ${JSON.stringify(now)}`);
    assert.strictEqual(await view.waitStatus(/^Vigil$/), 'Vigil');
    await session.workbench.screenshot('e2e-6-next-message-after-kill');
    session.workbench.assertStayedOnMachine();
  });
});

/** Polls until `pid` no longer runs (bounded well past the grace period); returns what still runs. */
async function pollGone(session: E2eSession, pid: number): Promise<number[]> {
  const deadline = Date.now() + (graceSeconds + 20) * 1000;
  for (;;) {
    const left = (await runProcesses(session.server, /fakeAcpAgent\.js/)).filter((p) => p === pid);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}
