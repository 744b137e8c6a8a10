// Gemini CLI, offline, using Vigil's task server: woken once after its turn, through the teardown drain
// when the command ends inside the turn, and across a window reload while the command runs.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { text, toolCall } from '../../fakes/modelEndpoints/script';
import { makeFifo, openGate } from '../../fakes/taskHarness';
import { assertWokenOnce, backgroundWakeup, mcpToolName, startWithTaskServer, teardownDrain, type TaskServerRun } from './taskServerRealAgent';

describe('real agent: gemini with Vigil\'s task server', function () {
  this.timeout(300_000);
  let run: TaskServerRun | undefined;

  afterEach(async () => {
    await run?.dispose();
    run = undefined;
  });

  it('the model starts a background command through MCP, ends its turn, and is woken once with the output', async () => {
    run = await startWithTaskServer('gemini');
    await backgroundWakeup(run, 'gemini', 'sleep 1; echo gemini-build-ok', 'gemini-build-ok');
  });

  it('the command finishes inside the turn: the teardown drain wakes the agent once', async () => {
    run = await startWithTaskServer('gemini');
    await teardownDrain(run, 'gemini', run.recipe.tools.shell('sleep 2'));
  });

  it('a window reload while the command runs: re-attached, and the new window wakes the agent once', async () => {
    const first = await startWithTaskServer('gemini');
    run = first;
    const gate = makeFifo(first.workspace, 'reload-gate');
    first.endpoint.script(toolCall(mcpToolName.gemini('start_background_command'), { command: `cat ${path.basename(gate)} > /dev/null; echo reload-ok` }), text('Started; ending my turn.'), text('It finished.'));
    const started = await first.services.supervisor.startTurn(first.sessionId, 'Start the long job.', { source: 'user' });
    assert.equal(started.kind, 'started');
    assert.equal((await (started as { ended: Promise<{ reason: string }> }).ended).reason, 'completed');
    const [task] = first.services.registry.list({ sessionId: first.sessionId });
    assert.equal(task?.status, 'running');
    await first.closeWindow();

    run = await startWithTaskServer('gemini', first);
    await run.services.registry.whenReattached();
    assert.equal((await run.services.registry.get(task.id))?.status, 'running');
    await openGate(gate);
    await assertWokenOnce(run, task.id, 'reload-ok');
  });
});
