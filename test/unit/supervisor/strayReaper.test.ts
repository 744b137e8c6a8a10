// Stopping leftovers: SIGTERM first, SIGKILL after the grace only for what ignored it, never a process
// whose pid now belongs to someone else; and a bounded, masked line saying what was stopped.

import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as readline from 'node:readline';
import { systemClock } from '../../../src/extension/core/ports/clock';
import { isAlive } from '../../../src/extension/core/common/processTree';
import { statOf, type ProcessInfo } from '../../../src/extension/core/supervisor/processTable';
import { describeKilled, describeStopped, maskCommand, stopLeftovers, type Leftover } from '../../../src/extension/core/supervisor/strayReaper';
import { waitFor } from './harness';

const linux = process.platform === 'linux';

function leftover(command: string, pid: number, ppid = 1): Leftover {
  return { command, info: { pid, ppid, pgid: pid, sid: pid, start: 1, name: command.split(' ')[0], state: 'S' } };
}

describe('stopping a turn’s leftovers', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) {
      try {
        process.kill(c.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  });

  async function start(args: string[], ready = false): Promise<ProcessInfo> {
    const child = spawn(args[0], args.slice(1), { detached: true, stdio: ['ignore', ready ? 'pipe' : 'ignore', 'ignore'] });
    children.push(child);
    if (ready) await new Promise((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
    const info = await statOf(child.pid!);
    assert.ok(info);
    return info;
  }

  (linux ? it : it.skip)('sends SIGTERM, and SIGKILL after the grace to what ignored it; a recycled pid is left alone', async function () {
    this.timeout(30_000);
    for (let round = 0; round < 5; round += 1) {
      const polite = await start(['sleep', '605']);
      const stubborn = await start([process.execPath, '-e', "process.on('SIGTERM',()=>{});console.log('ready');setInterval(()=>{},1e9)"], true);
      const bystander = await start(['sleep', '606']);
      const impostor = { ...bystander, start: bystander.start + 1 }; // same pid, another start: not the process we saw
      const outcome = await stopLeftovers([polite, stubborn, impostor], { clock: systemClock, graceMs: 200 });
      assert.deepEqual(outcome.stopped.map((l) => l.info.pid), [polite.pid, stubborn.pid]);
      assert.match(outcome.stopped[0].command, /^sleep 605$/);
      const killed = await outcome.killed;
      assert.deepEqual(killed.map((l) => l.info.pid), [stubborn.pid], 'only the one that ignored SIGTERM needed SIGKILL');
      await waitFor(() => !isAlive(polite.pid) && !isAlive(stubborn.pid), 'both to end');
      assert.ok(isAlive(bystander.pid), 'the process now holding a seen pid was not touched');
    }
  });

  it('says what was stopped in one bounded line, naming the commands and not their children', () => {
    const list = [leftover('sleep 600', 10), leftover('npm test', 11), leftover('node jest.js', 12, 11)];
    assert.equal(describeStopped(list), 'Stopped 3 processes the agent left running: sleep 600, npm test');
    assert.equal(describeStopped([leftover('sleep 1', 5)]), 'Stopped 1 process the agent left running: sleep 1');
    const many = Array.from({ length: 40 }, (_, i) => leftover(`job ${i}`, 100 + i));
    const line = describeStopped(many);
    assert.match(line, /^Stopped 40 processes the agent left running: job 0, job 1, job 2, job 3, job 4 and 35 more$/);
    assert.equal(describeKilled([leftover('node a', 1)], 10_000), '1 process ignored SIGTERM for 10 s and was killed: node a');
    assert.equal(describeKilled([leftover('node a', 1), leftover('node b', 2)], 2_500), '2 processes ignored SIGTERM for 2.5 s and were killed: node a, node b');
  });

  it('masks secret-looking arguments and bounds each command', () => {
    assert.equal(maskCommand('curl -H Authorization: Bearer sk-123456789 https://x'), 'curl -H Authorization: Bearer *** https://x');
    assert.equal(maskCommand('deploy --token abcdefgh --api-key=xyz123456 PASSWORD=hunter22 run'), 'deploy --token *** --api-key=*** PASSWORD=*** run');
    assert.equal(maskCommand('echo\u0000line\nbreak\u001b[31m'), 'echo line break [31m');
    const long = maskCommand(`node ${'x'.repeat(500)}`);
    assert.equal(long.length, 80);
    assert.ok(long.endsWith('…'));
  });
});
