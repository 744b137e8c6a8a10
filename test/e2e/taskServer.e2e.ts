// Vigil's MCP task server in the real workbench with a real agent (Gemini CLI, offline against the local
// model endpoint): the model calls start_background_command, the turn ends, the command finishes and the
// agent is woken exactly once with its output; the same when the command finishes inside the turn (the
// teardown drain); and across a window reload while the command runs (re-attached, still woken once).
// The task shows in the session's task strip like the built-in agent's.

import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ModelEndpoint } from '../fakes/modelEndpoints/modelEndpoint';
import { text, toolCall } from '../fakes/modelEndpoints/script';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { realAgentRecipe, testApiKey, type RealAgentRecipe } from '../harness/realAgents';
import { SessionView, uiTimeout } from '../harness/sessionView';

const startTool = 'mcp_vigil-tasks_start_background_command';
const agentTimeout = 180_000;

describe('MCP task server with a real agent (real workbench)', function () {
  let endpoint: ModelEndpoint;
  let recipe: RealAgentRecipe;
  let session: E2eSession;
  let view: SessionView;

  before(async function () {
    endpoint = await ModelEndpoint.start({ apiKey: testApiKey });
    recipe = await realAgentRecipe('gemini', { origin: endpoint.origin });
    session = await openE2eSession({
      name: 'taskserver',
      settings: { 'vigil.agent': recipe.agent, 'vigil.approvals.policy': 'allowAll' },
    });
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

  /** The full text of the n-th wakeup entry (its prompt sits in a closed <details>, so not innerText). */
  async function wakeupText(n: number): Promise<string> {
    return (await view.locator('.entry.wakeup').nth(n).textContent({ timeout: uiTimeout })) ?? '';
  }

  /** The wakeup reached the model, with the command's output (once per wakeup is what the view's count checks). */
  function modelSaw(marker: string): void {
    const last = JSON.stringify(endpoint.mainRequests().at(-1)?.body ?? {});
    assert.strictEqual(last.split(marker).length - 1 >= 1, true, `the output reached the model; requests: ${endpoint.describe()}`);
    assert.strictEqual(last.split(' completed (exit code 0)').length - 1 >= 1, true);
  }

  async function wakeups(n: number): Promise<void> {
    await view.locator(`.entry.wakeup >> nth=${n - 1}`).waitFor({ timeout: agentTimeout });
    await view.waitPhase('idle', agentTimeout);
    assert.strictEqual(await view.count('.entry.wakeup'), n, 'woken exactly once per command');
  }

  it('the model starts a background command, ends its turn, and is woken once with the output', async () => {
    endpoint.script(toolCall(startTool, { command: 'sleep 1; echo e2e-build-ok' }), text('Started the build; I will continue when it finishes.'), text('The build passed (e2e-build-ok).'));
    await view.send('Run the build in the background.');
    await wakeups(1);
    assert.match(await wakeupText(0), /Background task t-[0-9a-f]{8} completed \(exit code 0\)[\s\S]*e2e-build-ok/);
    modelSaw('e2e-build-ok');
    await view.locator('.entry.agent', { hasText: 'The build passed' }).waitFor({ timeout: uiTimeout });
    await view.locator('.task-strip .task').first().waitFor({ timeout: uiTimeout });
    assert.strictEqual(await view.count('#wakeups-unavailable'), 0, 'the header does not say wakeups are unavailable');
    await session.workbench.screenshot('e2e-taskserver-1-woken');
  });

  it('the command finishes inside the turn: the teardown drain wakes the agent once', async () => {
    endpoint.script(toolCall(startTool, { command: 'echo e2e-inside-ok' }), toolCall('run_shell_command', { command: 'sleep 2', description: 'wait' }), text('Both done.'), text('Seen the result (e2e-inside-ok).'));
    await view.send('Start the quick check, then wait a moment.');
    await wakeups(2);
    assert.match(await wakeupText(1), /e2e-inside-ok/);
    modelSaw('e2e-inside-ok');
    await session.workbench.screenshot('e2e-taskserver-2-teardown-drain');
  });

  it('a window reload while the command runs: re-attached, and still woken once', async () => {
    const gate = path.join(session.workspace, 'e2e-gate');
    execFileSync('mkfifo', [gate]);
    endpoint.script(toolCall(startTool, { command: 'cat e2e-gate > /dev/null; echo e2e-reload-ok' }), text('Started the long job; ending my turn.'), text('The long job finished (e2e-reload-ok).'));
    await view.send('Start the long job.');
    await view.locator('.entry.agent', { hasText: 'Started the long job' }).waitFor({ timeout: agentTimeout });
    await view.waitPhase('idle', agentTimeout);
    const id = await view.sessionId();
    await session.workbench.reload(session.server);
    await view.locator(`#app[data-painted-seq][data-session-id="${id}"]`).waitFor({ timeout: 90_000 });
    await view.locator('.task-strip .task.status-running', { hasText: 'e2e-gate' }).waitFor({ timeout: uiTimeout });
    await fs.writeFile(gate, 'go\n');
    await wakeups(3);
    assert.match(await wakeupText(2), /e2e-reload-ok/);
    modelSaw('e2e-reload-ok');
    await view.locator('.entry.agent', { hasText: 'The long job finished' }).waitFor({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-taskserver-3-reload');
    session.workbench.assertStayedOnMachine();
  });
});
