// Notifications in the real workbench: a turn that finishes while the view shows another session raises one
// "finished" notification, and its "Open Session" button brings that session into the view.

import * as assert from 'node:assert';
import { scriptedModelSessionForSuite } from '../harness/scriptedModelSession';
import { uiTimeout } from '../harness/sessionView';
import { hang } from '../fakes/modelEndpoints/script';

describe('attention notifications (real workbench)', function () {
  const scripted = scriptedModelSessionForSuite('attention');

  it('a turn that finishes while another session is on screen notifies once, and Open Session shows it', async () => {
    const { session, endpoint, view } = scripted.current;
    const page = session.workbench.page;
    endpoint.script(hang());
    const first = await view.sessionId();
    await view.send('Hold this turn for a while');
    await view.waitPhase('running');
    // Released only once the agent's request is held: a release before it arrives would leave it hanging.
    await endpoint.waitFor(() => endpoint.hangingCount === 1, 'the agent to open the held stream');
    // The model holds its answer; meanwhile the person moves to a new session.
    await session.workbench.runCommand('Vigil: New Session');
    const second = await view.waitPaintedOther(first);
    assert.notStrictEqual(second, first);
    await view.locator(`#app[data-session-id="${second}"]`).waitFor({ timeout: uiTimeout });
    endpoint.release('The held answer.');
    // The session is named by the person's words, or already by the agent's title for it (sent as its first turn ends).
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: /the agent finished its turn in “(Hold this turn for a while|Scripted session)”/ });
    await toast.waitFor({ timeout: uiTimeout });
    // The pointer rests on the toast as a reader's would: the workbench hides an information toast 15 s after it
    // appears unless the pointer is over it, and on a loaded machine the screenshot alone can take seconds.
    await toast.hover();
    assert.strictEqual(await page.locator('.notifications-toasts .notification-toast', { hasText: 'finished its turn' }).count(), 1, 'one notification for one finished turn');
    await session.workbench.screenshot('e2e-attention-turn-finished');
    await toast.locator('.monaco-button', { hasText: 'Open Session' }).click();
    await view.waitPainted(first);
    await view.locator('.entry.agent', { hasText: 'The held answer.' }).waitFor({ timeout: uiTimeout });
    assert.strictEqual(await page.locator('.notifications-toasts .notification-toast', { hasText: 'finished its turn' }).count(), 0, 'the notification closed with its action');
    session.workbench.assertStayedOnMachine();
  });
});
