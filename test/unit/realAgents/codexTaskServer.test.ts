// codex, offline, using Vigil's MCP task server: background command → turn ends → woken once.

import { backgroundWakeup, startWithTaskServer, type TaskServerRun } from './taskServerRealAgent';

describe('real agent: codex with Vigil\'s task server', function () {
  this.timeout(300_000);
  let run: TaskServerRun | undefined;

  afterEach(async () => {
    await run?.dispose();
    run = undefined;
  });

  it('the model starts a background command through MCP, ends its turn, and is woken once with the output', async () => {
    run = await startWithTaskServer('codex');
    await backgroundWakeup(run, 'codex', 'sleep 1; echo codex-build-ok', 'codex-build-ok');
  });
});
