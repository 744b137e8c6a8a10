// Stop means stop, in the real workbench: an agent that runs its commands itself (like Codex or OpenCode)
// starts `sleep 600` and more in their own sessions and leaves them running on cancel; after the person's
// Stop none of them is left, the view says what was stopped, and the tool card reads "ended without a result".
// The agent's older helper and the background task Vigil owns keep running.

import * as assert from 'node:assert';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { runProcesses, vigilLog } from '../harness/runFiles';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { ModelEndpoint } from '../fakes/modelEndpoints/modelEndpoint';
import { hang, toolCall } from '../fakes/modelEndpoints/script';
import { realAgentRecipe, testApiKey, type RealAgentRecipe } from '../harness/realAgents';

const strayAgent = path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'fakeStrayAgent.js');
const graceSeconds = 2;
const strays = /^(sleep 60[01]|\S*node -e process\.on\('SIGTERM')/;

describe('Stop means stop (real workbench)', function () {
  let session: E2eSession;
  let view: SessionView;

  before(async function () {
    session = await openE2eSession({
      name: 'stop-leftovers',
      settings: {
        'vigil.agent': { command: process.execPath, args: [strayAgent] },
        'vigil.approvals.policy': 'allowAll',
        'vigil.turnLiveness.graceSeconds': graceSeconds,
      },
    });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent('fakeStrayAgent');
  });

  after(async function () {
    await session?.close();
  });

  it('a stopped turn whose agent started `sleep 600` leaves no sleep behind; helper and background task live on', async () => {
    await view.send('strays');
    await view.locator('.entry.tool-call[data-status="in_progress"]', { hasText: 'sleep 600' }).waitFor({ timeout: uiTimeout });
    // The agent reports on stderr once all of its children run (an explicit state, not a delay).
    await waitUntil(() => /STRAYS \{/.test(vigilLog(session.server)), 'the agent to start its commands');
    const before = await runProcesses(session.server, strays);
    assert.strictEqual(before.length, 3, `sleep 600, the SIGTERM-ignoring child and the daemonized sleep 601 run: ${JSON.stringify(before)}`);
    const [helper] = await runProcesses(session.server, /^sleep 900\s*$/);
    // The task's command runs under the registry's wrapper once the wrapper started it.
    await waitUntil(async () => (await runProcesses(session.server, /^sleep 603\s*$/)).length === 1, 'the background task to run');
    const [task] = await runProcesses(session.server, /^sleep 603\s*$/);
    assert.ok(helper && task, 'the helper and the background task run');

    await view.locator('#stop').click();
    // Four: the three strays and the `sleep 605` that carries the task server's VIGIL_TASK_SESSION without being it
    // (an agent can forge an environment entry; what is spared rests on the registry's own record of its server).
    await view.locator('.entry.notice', { hasText: /Stopped 4 processes the agent left running: (?=.*sleep 600)(?=.*sleep 601)(?=.*sleep 605)/ }).waitFor({ timeout: uiTimeout });
    await view.locator('.entry.tool-call[data-status="ended"]', { hasText: 'ended without a result' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('aborted');
    // SIGTERM ends two at once; the third only after the grace, by SIGKILL.
    await waitUntil(async () => (await runProcesses(session.server, strays)).length === 0, 'no stray to be left', (graceSeconds + 30) * 1000);
    assert.deepStrictEqual(await runProcesses(session.server, /^sleep 600\s*$/), [], 'no sleep 600 is left');
    assert.deepStrictEqual(await runProcesses(session.server, /^sleep 605\s*$/), [], 'the sleep that forged the task server\'s entry is not spared');
    assert.deepStrictEqual(await runProcesses(session.server, /^sleep 900\s*$/), [helper], 'the helper from before the turn still runs');
    assert.deepStrictEqual(await runProcesses(session.server, /^sleep 603\s*$/), [task], 'the background task still runs');
    await waitUntil(() => /1 process ignored SIGTERM for \d+ s and was killed/.test(vigilLog(session.server)), 'the log to name the one killed after the grace');
    await session.workbench.screenshot('e2e-stop-leftovers');
    session.workbench.assertStayedOnMachine();
  });
});

describe('Stop means stop with real Codex ACP, offline (real workbench)', function () {
  let session: E2eSession | undefined;
  let endpoint: ModelEndpoint | undefined;
  let recipe: RealAgentRecipe | undefined;
  let view: SessionView;

  before(async function () {
    endpoint = await ModelEndpoint.start({ apiKey: testApiKey });
    recipe = await realAgentRecipe('codex', { origin: endpoint.origin });
    session = await openE2eSession({ name: 'stop-codex', settings: { 'vigil.agent': recipe.agent, 'vigil.approvals.policy': 'allowAll', 'vigil.turnLiveness.graceSeconds': graceSeconds } });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent(recipe.agent.command);
  });

  after(async function () {
    await session?.close();
    await endpoint?.close();
    await recipe?.dispose();
  });

  it('a cancelled turn whose agent started `sleep 600` (in a session of its own) leaves no sleep behind, and says so', async () => {
    const sleeps = () => runProcesses(session!.server, /^sleep 600\s*$/);
    const call = recipe!.tools.shell('setsid -f sleep 600 </dev/null >/dev/null 2>&1');
    endpoint!.script(toolCall(call.name, call.args), hang(), hang());
    await view.send('Wait ten minutes.');
    await waitUntil(async () => (await sleeps()).length === 1, 'Codex to start sleep 600', 180_000);
    await view.locator('#stop').click();
    await view.locator('.entry.notice', { hasText: 'Stopped 1 process the agent left running: sleep 600' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('aborted');
    await waitUntil(async () => (await sleeps()).length === 0, 'no sleep 600 to be left');
    await session!.workbench.screenshot('e2e-stop-leftovers-codex');
    session!.workbench.assertStayedOnMachine();
  });
});

/** Waits for a state of the machine (a log line, the process table), checking often; never a fixed delay. */
async function waitUntil(test: () => boolean | Promise<boolean>, what: string, ms = uiTimeout): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
