// Process-tree kill: whatever fails after the group is frozen, the kill still ends in SIGKILL.

import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { killProcessTree, processStartTime } from '../../../src/extension/core/common/processTree';

function stateOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return 'gone';
  }
}

/** A group leader with a grandchild, both blocked until killed. Resolves once the grandchild exists. */
async function tree(): Promise<{ child: ChildProcess; exited: Promise<NodeJS.Signals | null> }> {
  const child = spawn('/bin/sh', ['-c', 'sleep 1000 & echo started; wait'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return { child, exited };
}

describe('process tree', () => {
  it('a /proc scan failing after SIGSTOP still ends in SIGKILL of the group (never left frozen)', async function () {
    if (process.platform !== 'linux') this.skip();
    for (let i = 0; i < 5; i += 1) {
      const { child, exited } = await tree();
      const pid = child.pid!;
      try {
        const failingScan = () => Promise.reject(new Error('EMFILE: too many open files, scandir /proc'));
        await assert.rejects(killProcessTree(pid, { scan: failingScan }), /EMFILE/, 'the scan failure is still reported');
        // If SIGKILL was never sent the group stays stopped and never exits: bound the wait so the
        // test fails (and its finally cleans up) instead of hanging.
        const outcome = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve(`still ${stateOf(pid)}`), 10_000).unref())]);
        assert.equal(outcome, 'SIGKILL', `round ${i}: the group was left frozen`);
      } finally {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone: the expected case
        }
      }
    }
  });

  it('a process start time identifies the process, not only its pid', async function () {
    if (process.platform !== 'linux') this.skip();
    const mine = processStartTime(process.pid);
    assert.ok(mine && mine.includes(':'), String(mine));
    assert.equal(processStartTime(process.pid), mine);
    const { child, exited } = await tree();
    assert.notEqual(processStartTime(child.pid!), undefined);
    await killProcessTree(child.pid!);
    await exited;
    assert.equal(processStartTime(child.pid!), undefined, 'a reaped process has no start time');
  });
});
