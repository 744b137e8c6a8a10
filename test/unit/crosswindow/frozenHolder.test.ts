// Takeover across two real processes: the window running a turn is frozen (SIGSTOP) while another window
// asks it to abort; after the bound that window takes the turn over with a new epoch, kills the agent's
// process tree, ends the turn as interrupted; the frozen holder, woken up, can no longer write.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isAlive } from '../../../src/extension/core/common/processTree';
import { CrossWindow } from '../../../src/extension/core/crosswindow/crossWindow';
import { systemClock } from '../../../src/extension/core/ports/clock';
import { TurnSupervisor } from '../../../src/extension/core/supervisor/turnSupervisor';
import { LineProtocolChild } from '../../fakes/lineProtocolChild';
import { FakeAgent } from '../supervisor/fakeAgent';
import { recordingLogger, tempRoot, type LogRecord } from '../supervisor/harness';

const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'crosswindow', 'turnHolder.js');
const SESSION = 's1';

async function until<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('takeover of a frozen holder (two real processes)', () => {
  it('a SIGSTOPped holder is taken over after the bound, its agent killed, and its later writes refused', async function () {
    this.timeout(60_000);
    const root = await tempRoot('vigil-frozen-');
    const logs: LogRecord[] = [];
    const logger = recordingLogger(logs);
    const sup = new TurnSupervisor({
      storageRoot: root, clock: systemClock, logger, agents: new FakeAgent(), windowId: 'window-b', leaseTtlMs: 30_000,
      settings: () => ({ enabled: true, timeoutMs: 300_000, toolTimeoutMs: 600_000, graceMs: 5_000 }),
    });
    await sup.sessions.init();
    await sup.sessions.create('shared', SESSION);
    const cw = new CrossWindow({
      storageRoot: root, windowId: 'window-b', clock: systemClock, logger, supervisor: sup,
      agentPid: () => undefined, approvalTimeoutMs: () => 600_000, showing: () => undefined, pollMs: 200, ackBoundMs: 1_500,
    });
    await cw.start();
    const a = new LineProtocolChild(FIXTURE, [root, SESSION, 'window-a']);
    try {
      await a.ready;
      const started = await a.send({ cmd: 'start' });
      const agentPid = started.agentPid as number;
      assert.ok(isAlive(agentPid));
      await a.send({ cmd: 'toolCall' });
      await until('the tool call to be stored', async () => JSON.stringify((await sup.sessions.readAll(SESSION)).records).includes('tc-1'));
      await until('the holder’s board to name its agent', async () => (await cw.mailbox.readBoard(SESSION))?.agentPid === agentPid);
      const epochBefore = (await sup.lease.read(SESSION))!.epoch;

      a.child.kill('SIGSTOP');
      const result = await cw.control.abort(SESSION);
      assert.deepEqual(result, { kind: 'takenOver', killedAgent: true });
      await until('the agent’s process tree to die', async () => !isAlive(agentPid));
      const lease = (await sup.lease.read(SESSION))!;
      assert.ok(lease.epoch > epochBefore, 'a new epoch fences the old holder out');
      assert.equal((await sup.sessions.get(SESSION))?.state, 'interrupted');
      const records = (await sup.sessions.readAll(SESSION)).records;
      assert.ok(records.some((r) => r.type === 'syntheticToolResult' && r.toolCallId === 'tc-1'), 'the unfinished tool call got a result');
      assert.ok(records.some((r) => r.type === 'interrupted'));

      a.child.kill('SIGCONT');
      await a.send({ cmd: 'say', text: 'LATE WRITE FROM THE OLD HOLDER' });
      const status = await until('the old holder to see its write refused', async () => {
        const s = await a.send({ cmd: 'status' });
        return s.refused === true && s.ended !== null ? s : undefined;
      });
      assert.equal(status.ended, 'interrupted');
      assert.ok(!JSON.stringify((await sup.sessions.readAll(SESSION)).records).includes('LATE WRITE'), 'nothing of the old holder got in');

      // The session takes a new turn in window B.
      const next = await sup.startTurn(SESSION, 'again', { source: 'user' });
      assert.equal(next.kind, 'started');
    } finally {
      a.stop('SIGTERM');
      cw.dispose();
      sup.dispose();
    }
  });
});
