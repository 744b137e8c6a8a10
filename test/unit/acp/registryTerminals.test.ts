// The ACP client's terminal/* served by the real background-task registry (not the test fake):
// a third-party agent's foreground command runs, streams observable activity, and is released; a command
// over the task caps is refused before the person is asked, with what the agent can do.

import * as assert from 'node:assert/strict';
import { TaskRegistry } from '../../../src/extension/core/tasks/taskRegistry';
import { AcpHarness } from './acpHarness';

describe('ACP terminals served by the real task registry', function () {
  this.timeout(40_000);
  let h: AcpHarness | undefined;
  let registry: TaskRegistry | undefined;

  afterEach(async () => {
    await h?.dispose();
    for (const t of registry?.list() ?? []) if (t.status === 'running') await registry?.kill(t.id);
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

  it('a command over the session\'s cap is refused unasked, background or foreground, and the agent is told what to do', async () => {
    h = await AcpHarness.create({
      terminalHost: async (storageRoot) => {
        registry = await TaskRegistry.open({ storageRoot, workspaceFolder: () => h?.workspace, onCompletion: async () => undefined, caps: () => ({ perSession: 1, perWindow: 64 }) });
        return registry;
      },
    });
    h.mode = 'ask';
    const background = { _meta: { vigil: { background: true } } };
    const ended = await h.turn(`script ${JSON.stringify([
      { start: { command: 'sleep', args: ['600'], ...background } },
      { start: { command: 'echo', args: ['never'], ...background } },
      { start: { command: 'echo', args: ['never'] } },
    ])}`);
    assert.equal(ended.reason, 'completed', ended.message);
    const text = h.agentText();
    assert.match(text, /step 1 start: ok t-[0-9a-f]{8}/);
    const id = /step 1 start: ok (t-[0-9a-f]{8})/.exec(text)![1];
    for (const step of [2, 3]) {
      assert.match(text, new RegExp(`step ${step} start: refused: Not started: this session already has 1 command running \\(${id}\\), and Vigil runs at most 1 at once per session \\(vigil\\.tasks\\.maxRunningPerSession\\)\\. Wait until one ends`));
    }
    assert.equal(h.questions.length, 1, 'only the command that ran was asked about');
    assert.equal(registry!.list().length, 1);
  });
});
