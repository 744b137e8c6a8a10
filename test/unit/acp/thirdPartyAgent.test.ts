// A fake third-party ACP agent hosted by the ACP client under the real turn supervisor: each
// behaviour (streams, terminals, silence, synchronous spin, ignored cancel, crash, junk) ends as the contract says.

import * as assert from 'node:assert/strict';
import type { AcpAgentHandle } from '../../../src/extension/core/acp/acpAgentHandle';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { AcpHarness, fakeAgentScript, isAlive } from './acpHarness';

describe('ACP client hosting a third-party agent under the supervisor', function () {
  this.timeout(40_000);
  let h: AcpHarness;

  afterEach(async () => {
    await h?.dispose();
  });

  const pidOf = async () => ((await h.agents.get('session-1')) as AcpAgentHandle).pid;

  it('streams: every update is activity, and the turn completes', async () => {
    h = await AcpHarness.create();
    const ended = await h.turn('stream');
    assert.equal(ended.reason, 'completed', ended.message);
    const descriptions = h.activity().map((e) => e.description);
    assert.ok(descriptions.filter((d) => d === 'model: streaming').length >= 6);
    assert.ok(descriptions.includes('tool: grep TODO'));
    const toolEvent = h.activity().find((e) => e.description === 'tool: grep TODO');
    assert.deepEqual(toolEvent?.waitingOn, { kind: 'tool', name: 'grep TODO', toolCallId: 'tc1', observable: false });
  });

  it('serves a foreground terminal from the terminal host; its output is observable activity', async () => {
    h = await AcpHarness.create();
    const ended = await h.turn('terminal');
    assert.equal(ended.reason, 'completed', ended.message);
    assert.equal(h.terminals.created.length, 1);
    assert.equal(h.terminals.created[0].cwd, h.workspace);
    assert.equal(h.terminals.created[0].background, false);
    assert.deepEqual(h.terminals.released, ['t-1']);
    const output = h.activity().filter((e) => e.description.startsWith('tool: output of sh'));
    assert.ok(output.length >= 1, 'command output reached the supervisor as activity');
    assert.deepEqual(output[0].waitingOn, { kind: 'tool', name: 'run build', toolCallId: 'tc2', observable: true });
  });

  it('passes the background/notify meta to the terminal host and ends the turn at once', async () => {
    h = await AcpHarness.create();
    const completed = new Promise<number | null>((resolve) => h.terminals.onBackgroundCompletion((c) => resolve(c.exitCode)));
    const ended = await h.turn('background');
    assert.equal(ended.reason, 'completed');
    assert.equal(h.terminals.created[0].background, true);
    assert.deepEqual(h.terminals.created[0].notify, { onExit: true, pattern: undefined });
    assert.equal(await completed, 0);
  });

  it('silent: the watchdog cancels, the agent unwinds cooperatively, the session takes the next turn', async () => {
    h = await AcpHarness.create({ settings: { timeoutMs: 20_000, graceMs: 5_000 } });
    // Warm up: the spawn happens under a generous bound, the stall under a tight one.
    assert.equal((await h.turn('stream')).reason, 'completed');
    h.settings.timeoutMs = 800;
    const ended = await h.turn('silent');
    assert.equal(ended.reason, 'interrupted');
    assert.match(ended.message ?? '', /no progress/i);
    assert.ok(!h.events.some((e) => e.type === 'escalated'), 'a cooperative agent is not killed');
    h.settings.timeoutMs = 20_000;
    assert.equal((await h.turn('stream')).reason, 'completed');
  });

  for (const mode of ['spin', 'ignore-cancel'] as const) {
    it(`${mode}: the wedged agent's process tree is killed after the grace period, and a fresh one serves the next turn`, async () => {
      h = await AcpHarness.create({ settings: { timeoutMs: 20_000, graceMs: 500 } });
      assert.equal((await h.turn('stream')).reason, 'completed');
      h.settings.timeoutMs = 800;
      const turn = h.turn(mode);
      await h.waitFor(() => h.activity().length > 0, 'first activity');
      const pid = await pidOf();
      assert.ok(isAlive(pid));
      const ended = await turn;
      assert.equal(ended.reason, 'interrupted');
      assert.ok(h.events.some((e) => e.type === 'escalated'), 'escalated to a kill');
      assert.ok(!isAlive(pid), `the agent ${pid} is dead`);
      // A fresh spawn on a loaded 2-core machine can take longer than the tight stall bound above.
      h.settings.timeoutMs = 20_000;
      const next = await h.turn('stream');
      assert.equal(next.reason, 'completed', next.message);
      assert.notEqual(await pidOf(), pid);
    });
  }

  it('kill reaches a grandchild that left the agent\'s process group', async () => {
    h = await AcpHarness.create({ settings: { timeoutMs: 20_000, graceMs: 500 } });
    assert.equal((await h.turn('stream')).reason, 'completed');
    h.settings.timeoutMs = 800;
    const ended = await h.turn('spin-with-child');
    assert.equal(ended.reason, 'interrupted');
    const childPid = Number(/child pid (\d+)/.exec(h.agentText())?.[1]);
    assert.ok(childPid > 0, 'the agent reported its child');
    await h.waitFor(() => !isAlive(childPid), `grandchild ${childPid} to be killed`, 15_000);
  });

  it('crash: the turn fails with the crash reported; the next prompt restarts the agent and says so', async () => {
    h = await AcpHarness.create();
    const ended = await h.turn('crash');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /The agent exited \(code 3\) during the turn.*simulated crash/s);
    const next = await h.turn('stream');
    assert.equal(next.reason, 'completed');
    assert.ok(h.activity().some((e) => /crashed \(exit code 3\) and was restarted/.test(e.description)));
  });

  it('malformed messages and unknown methods from the agent are answered or dropped; the host carries on', async () => {
    h = await AcpHarness.create();
    const ended = await h.turn('malformed');
    assert.equal(ended.reason, 'completed', ended.message);
    assert.equal((await h.turn('stream')).reason, 'completed');
  });

  it('permission: asks the person under the ask policy; answers cancelled when the turn is aborted', async () => {
    h = await AcpHarness.create();
    h.answer = 'reject';
    assert.equal((await h.turn('permission')).reason, 'completed');
    assert.equal(h.questions.length, 1);
    assert.equal(h.questions[0].kind, 'execute');
    assert.ok(h.events.some((e) => e.type === 'approvalWaiting' && e.open));

    h.answer = 'wait';
    const r = await h.sup.startTurn('session-1', 'permission', { source: 'user' });
    assert.equal(r.kind, 'started');
    await h.waitFor(() => h.questions.length === 2, 'the second question');
    await h.sup.abort('session-1');
    const ended = await (r as { ended: Promise<{ reason: string }> }).ended;
    assert.equal(ended.reason, 'aborted');
  });

  it('permission: an untrusted workspace gets no commands, without asking anyone', async () => {
    h = await AcpHarness.create();
    h.trusted = false;
    assert.equal((await h.turn('terminal')).reason, 'completed');
    assert.equal(h.terminals.created.length, 0, 'no command was started');
    assert.equal((await h.turn('permission')).reason, 'completed');
    assert.equal(h.questions.length, 0);
  });

  it('a missing agent binary is a clear failure naming the setting', async () => {
    h = await AcpHarness.create({ launch: () => customLaunch({ command: 'definitely-not-an-acp-agent-xyz', args: ['--acp'] }) });
    const ended = await h.turn('stream');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /"definitely-not-an-acp-agent-xyz" was not found.*vigil\.agent/);
  });

  it('an agent that never answers initialize fails within the bounded wait and is killed', async () => {
    h = await AcpHarness.create({ launch: () => customLaunch({ command: process.execPath, args: [fakeAgentScript, '--no-init'] }), initializeTimeoutMs: 500 });
    const ended = await h.turn('stream');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /did not answer "initialize" within/);
  });
});
