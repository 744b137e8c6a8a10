// The ACP client's terminal/* served by the real background-task registry (not the test fake):
// a third-party agent's foreground command runs, streams observable activity, and is released.

import * as assert from 'node:assert/strict';
import { TaskRegistry } from '../../../src/extension/core/tasks/taskRegistry';
import { AcpHarness } from './acpHarness';

describe('ACP terminals served by the real task registry', function () {
  this.timeout(40_000);
  let h: AcpHarness | undefined;
  let registry: TaskRegistry | undefined;

  afterEach(async () => {
    await h?.dispose();
    registry?.dispose();
  });

  it('runs a foreground command for a third-party agent and hands back its exit and output', async () => {
    h = await AcpHarness.create({
      terminalHost: async (storageRoot) => {
        registry = await TaskRegistry.open({ storageRoot, workspaceFolder: () => h?.workspace, onCompletion: async () => undefined });
        return registry;
      },
    });
    const ended = await h.turn('terminal');
    assert.equal(ended.reason, 'completed', ended.message);
    assert.match(h.agentText(), /exit \{"exitCode":0,"signal":null\} output "out1\\nout2\\n"/);
    const observable = h.activity().filter((e) => e.waitingOn.kind === 'tool' && e.waitingOn.observable);
    assert.ok(observable.length >= 1, 'the command was watched as observable activity');
    const tasks = registry!.list({ sessionId: 'session-1' });
    assert.equal(tasks.length, 1);
    assert.equal(tasks[0].cwd, h.workspace);
  });
});
