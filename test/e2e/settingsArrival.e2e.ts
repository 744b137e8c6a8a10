// A window that never got the person's agent setting (settings.json names a third-party agent the workbench
// did not pass to the extension host): the message waits, the view says so, and nothing reaches any agent —
// not the built-in one — until Vigil can know which agent was chosen.

import * as assert from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { waitForLogLines } from '../harness/runFiles';
import { SessionView, uiTimeout } from '../harness/sessionView';

const fakeAgent = path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'fakeAcpAgent.js');

describe('a message waits for the agent the settings name (real workbench)', function () {
  let session: E2eSession;
  let view: SessionView;

  before(async function () {
    session = await openE2eSession({ name: 'settings-arrival', settings: {} });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
  });

  after(async function () {
    await session?.close();
  });

  it('holds the message with "Waiting for settings…", never sends it to the built-in agent, and gives the draft back', async () => {
    // The file names an agent behind the workbench's back: this workbench does not pass such a write on,
    // which is the state of a window whose first read of the user settings failed.
    const settingsFile = path.join(session.server.runDir, 'user-data', 'User', 'settings.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(settingsFile, JSON.stringify({ ...settings, 'vigil.agent': { command: process.execPath, args: [fakeAgent] } }, null, 2));

    await view.send('Which agent are you?');
    const waiting = view.locator('.notice-banner.info-notice', { hasText: 'Waiting for settings…' });
    const answered = view.locator('.entry.agent');
    // Either the workbench passes the setting on (then the fake agent answers) or it never does (then the bound
    // ends the wait); in neither case may the built-in agent be asked.
    await Promise.race([waiting.waitFor({ timeout: uiTimeout }), answered.first().waitFor({ timeout: uiTimeout })]);
    if (await answered.count()) {
      assert.doesNotMatch((await view.texts('.entry.agent')).join('\n'), /Vigil demo model/, 'the built-in agent answered');
      return;
    }
    await session.workbench.screenshot('e2e-settings-waiting');
    // One box says why, beside the draft it gave back; the waiting notice is gone.
    const failed = view.locator('.notice-banner.host-error', { hasText: 'cannot tell which agent you chose' });
    await failed.waitFor({ timeout: 60_000 });
    assert.strictEqual(await waiting.count(), 0, 'the waiting notice left with the wait');
    assert.strictEqual(await view.count('.notice-banner'), 1, 'the reason is shown once');
    assert.strictEqual(await view.count('.entry.user'), 0, 'the message was not stored as sent');
    assert.strictEqual(await view.count('.entry.agent'), 0, 'no agent answered');
    assert.strictEqual((await view.locator('#prompt-input').inputValue()).trim(), 'Which agent are you?', 'the draft is back in the input');
    await waitForLogLines(session.server, /sets vigil\.agent differently from what VS Code reports/, 1);
    await session.workbench.screenshot('e2e-settings-not-sent');
  });
});
