// Switching sessions in the real workbench while a turn runs: the session left keeps its own model, so coming
// back shows it running as it stands, and its answer streams into it, not into the session shown meanwhile.

import * as assert from 'node:assert';
import { scriptedModelSessionForSuite } from '../harness/scriptedModelSession';
import { uiTimeout } from '../harness/sessionView';
import { hang } from '../fakes/modelEndpoints/script';

describe('switching sessions during a turn (real workbench)', function () {
  const scripted = scriptedModelSessionForSuite('session-switch');

  it('a running session left for another and opened again shows its turn running, then its answer', async () => {
    const { session, endpoint, view } = scripted.current;
    const workbench = session.workbench;
    endpoint.script(hang());
    const first = await view.sessionId();
    await view.send('Keep working on the parser');
    await view.waitPhase('running');
    await endpoint.waitFor(() => endpoint.hangingCount === 1, 'the agent to open the held stream');

    await workbench.runCommand('Vigil: New Session');
    // The first session's paint marks still stand until the new one is shown: wait for another session's.
    await view.locator(`#app[data-painted-seq]:not([data-session-id="${first}"])`).waitFor({ timeout: uiTimeout });
    const second = await view.sessionId();
    assert.notStrictEqual(second, first);
    await view.locator(`#app[data-session-id="${second}"]`).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');

    await workbench.runCommand('Vigil: Open Session…');
    await workbench.pickQuickItem('Keep working on the parser');
    await view.waitPainted(first);
    await view.waitPhase('running');
    await view.locator('.entry.user', { hasText: 'Keep working on the parser' }).waitFor({ timeout: uiTimeout });

    endpoint.release('The parser is done.');
    await view.locator('.entry.agent', { hasText: 'The parser is done.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(await view.count('.entry.user'), 1, 'the session shows its one prompt, once');
    assert.strictEqual(await view.count('.entry.agent'), 1, 'and its one answer, once');
    await workbench.screenshot('e2e-session-switch-back-during-turn');
    workbench.assertStayedOnMachine();
  });
});
