// Which processes count as a stopped turn's leftovers: new since the turn-start snapshot (by pid and start
// time, so a recycled pid is new and an old helper is not), found by descent, by samples, by session or
// group, or by the agent's environment marker; never the registry's tasks, their sessions or their trees.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as readline from 'node:readline';
import { readFileSync } from 'node:fs';
import { isAlive } from '../../../src/extension/core/common/processTree';
import type { ProcessInfo, ProcessProgram, ProcessTable } from '../../../src/extension/core/supervisor/processTable';
import { parseStat, readProcessTable, readSubtree, readTurnBaseline } from '../../../src/extension/core/supervisor/processTable';
import { TurnProcessWatch, type TurnProcessReads } from '../../../src/extension/core/supervisor/turnProcesses';
import { waitFor } from './harness';

const AGENT = 50;
const SELF = 10;

function p(pid: number, ppid: number, start: number, o: Partial<ProcessInfo> = {}): ProcessInfo {
  return { pid, ppid, pgid: pid, sid: pid, start, name: `p${pid}`, state: 'S', ...o };
}

/** A process table the test rewrites between the snapshot and the end; environments by pid. */
class FakeHost implements TurnProcessReads {
  rows: ProcessInfo[] = [];
  marked = new Set<number>();
  async table(): Promise<ProcessTable> {
    return new Map(this.rows.map((r) => [r.pid, r]));
  }
  async subtree(): Promise<ProcessTable | undefined> {
    return undefined;
  }
  /** Pids carrying Vigil's task-server entry `TASK=s1`. */
  taskServers = new Set<number>();
  async environHas(pid: number, name: string, value: string): Promise<boolean> {
    if (name === 'TASK') return value === 's1' && this.taskServers.has(pid);
    return name === 'MARK' && value === 'v' && this.marked.has(pid);
  }
  /** "Now" in start-time ticks, as a sample reads it. */
  clock: number | undefined;
  now(): number | undefined {
    return this.clock;
  }
  programs = new Map<number, ProcessProgram>();
  async program(pid: number): Promise<ProcessProgram | undefined> {
    return this.programs.get(pid);
  }
}

/** Polls an asynchronous read of the real process table until it answers. */
async function until<T>(read: () => Promise<T | undefined | false>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const base = [p(1, 0, 1), p(9, 1, 5), p(SELF, 9, 6), p(AGENT, SELF, 20), p(51, AGENT, 21, { pgid: AGENT, sid: AGENT }), p(60, 1, 30)];

describe('a turn’s leftover processes', () => {
  it('tells them apart by descent, sample, session, group and marker, and spares old helpers, tasks and this process', async () => {
    const host = new FakeHost();
    host.rows = [...base];
    const watch = await TurnProcessWatch.begin({ agentPid: AGENT, marker: { name: 'MARK', value: 'v' }, reads: host, selfPid: SELF });
    // During the turn: a child in its own session, and a middle process that is sampled and then exits.
    host.rows = [...base, p(100, AGENT, 40), p(200, 100, 41, { pgid: 200, sid: 200 })];
    host.clock = 44;
    await watch.sample();
    host.rows = [
      ...base,
      p(100, AGENT, 40), // the agent's child in its own session
      p(101, 100, 42, { pgid: 100, sid: 100 }), // its child
      p(201, 1, 43, { pgid: 200, sid: 200 }), // the sampled middle (200) is gone; its daemon, older than the sample, kept its session
      p(300, 1, 44), // a registered task (own session), carrying the marker
      p(301, 300, 45, { pgid: 300, sid: 300 }),
      p(302, 301, 46), // a task's grandchild in a session of its own
      p(400, 1, 47), // a daemon that carries the marker only
      p(401, 400, 48), // and its child that cleared its environment
      p(500, 1, 49), // someone else's new process
      p(60, 1, 30), // already there at turn start
      p(51, AGENT, 21, { pgid: AGENT, sid: AGENT }), // the agent's helper from before the turn
      p(600, AGENT, 50, { state: 'Z' }), // exited, not reaped: nothing to stop
    ].filter((r, i, all) => all.findIndex((o) => o.pid === r.pid) === i);
    host.marked = new Set([300, 301, 302, 400]);
    const found = (await watch.leftovers([300])).map((r) => r.pid).sort((a, b) => a - b);
    assert.deepEqual(found, [100, 101, 201, 400, 401]);
  });

  it('spares Vigil’s own server for the agent, started during the turn, by its program and entry: the entry alone spares nothing', async () => {
    const host = new FakeHost();
    host.rows = [...base];
    const watch = await TurnProcessWatch.begin({ agentPid: AGENT, reads: host, selfPid: SELF });
    const agentChild = { pgid: AGENT, sid: AGENT };
    host.rows = [...base, p(140, AGENT, 60, agentChild), p(141, AGENT, 61, agentChild), p(142, AGENT, 62, agentChild), p(143, AGENT, 63, agentChild)];
    const server = { exe: '/opt/node', args: ['/ext/dist/taskServer.js'] };
    host.programs = new Map([
      [140, server], // the task server with the session's entry
      [141, { exe: '/bin/sleep', args: ['600'] }], // a child of the agent that carries the entry
      [142, server], // the server's program, without the entry
      [143, { exe: '/opt/node', args: ['/ext/dist/taskServer.js', '--inspect'] }], // another command line, with the entry
    ]);
    host.taskServers = new Set([140, 141, 143]);
    const kept = [{ command: '/opt/node', args: ['/ext/dist/taskServer.js'], env: { name: 'TASK', value: 's1' } }];
    assert.deepEqual((await watch.leftovers([], kept)).map((r) => r.pid), [141, 142, 143]);
    assert.deepEqual((await watch.leftovers([])).map((r) => r.pid), [140, 141, 142, 143]);
  });

  it('a sampled process that ended and whose pid went to a later session leader: neither that leader nor its session is the agent’s', async () => {
    const host = new FakeHost();
    host.rows = [...base];
    const watch = await TurnProcessWatch.begin({ agentPid: AGENT, reads: host, selfPid: SELF });
    host.rows = [...base, p(200, AGENT, 41, { pgid: 200, sid: 200 })];
    host.clock = 42;
    await watch.sample();
    // 200 ended; an unrelated program got pid 200 (start 80), leads its own session and has a child.
    host.rows = [...base, p(200, 1, 80, { pgid: 200, sid: 200 }), p(202, 200, 81, { pgid: 200, sid: 200 })];
    assert.deepEqual(await watch.leftovers([]), []);
  });

  it('a member of an ended leader’s session that started after the last sample saw the leader is left alone (the id may have changed hands)', async () => {
    const host = new FakeHost();
    host.rows = [...base];
    const watch = await TurnProcessWatch.begin({ agentPid: AGENT, reads: host, selfPid: SELF });
    host.rows = [...base, p(200, AGENT, 41, { pgid: 200, sid: 200 })];
    host.clock = 42;
    await watch.sample();
    host.rows = [...base, p(203, 1, 41, { pgid: 200, sid: 200 }), p(204, 1, 42, { pgid: 200, sid: 200 }), p(205, 1, 50, { pgid: 200, sid: 200 })];
    assert.deepEqual((await watch.leftovers([])).map((r) => r.pid), [203]);
    // Where no sample time is known, no ended leader's session counts.
    const blind = new FakeHost();
    blind.rows = [...base];
    const unclocked = await TurnProcessWatch.begin({ agentPid: AGENT, reads: blind, selfPid: SELF });
    blind.rows = [...base, p(200, AGENT, 41, { pgid: 200, sid: 200 })];
    await unclocked.sample();
    blind.rows = host.rows;
    assert.deepEqual(await unclocked.leftovers([]), []);
  });

  it('a recycled pid is a new process; a process missing from the snapshot but older than its newest is not', async () => {
    const host = new FakeHost();
    host.rows = [...base, p(120, AGENT, 25)];
    const watch = await TurnProcessWatch.begin({ agentPid: AGENT, reads: host, selfPid: SELF });
    host.rows = [...base, p(120, AGENT, 90), p(121, AGENT, 29)];
    assert.deepEqual((await watch.leftovers([])).map((r) => r.pid), [120]);
  });

  it('when the agent died and its pid was reused, the new owner’s children are not taken for the agent’s', async () => {
    const host = new FakeHost();
    host.rows = [...base];
    const watch = await TurnProcessWatch.begin({ agentPid: AGENT, reads: host, selfPid: SELF });
    host.rows = [...base.filter((r) => r.pid !== AGENT && r.pid !== 51), p(AGENT, 1, 70), p(130, AGENT, 71, { sid: AGENT, pgid: AGENT })];
    assert.deepEqual(await watch.leftovers([]), []);
  });

  it('with the quick baseline (the agent’s tree and the time) an old process outside the tree stays old, a new one is new', async () => {
    const host = new FakeHost();
    // Now is tick 35: 60 (started at 30, outside the agent's tree) is old although the baseline never listed it.
    host.rows = [...base, p(70, 1, 34, { pgid: AGENT, sid: AGENT })];
    const tree = new Map([AGENT, 51].map((pid) => [pid, base.find((r) => r.pid === pid)!]));
    let tableReads = 0;
    const reads: TurnProcessReads = {
      table: async () => {
        tableReads += 1;
        return host.table();
      },
      subtree: () => host.subtree(),
      environHas: (pid, name, value) => host.environHas(pid, name, value),
      baseline: async () => ({ table: tree, now: 35 }),
    };
    const watch = await TurnProcessWatch.begin({ agentPid: AGENT, reads, selfPid: SELF });
    assert.equal(tableReads, 0, 'the turn start read no table');
    // 70 shares the agent's session but started before the turn; 80 and 81 started during it.
    host.rows = [...host.rows, p(80, AGENT, 35), p(81, 1, 36, { pgid: AGENT, sid: AGENT })];
    assert.deepEqual((await watch.leftovers([])).map((r) => r.pid).sort((a, b) => a - b), [80, 81]);
  });

  it('a turn taken back after a reload: what the agent started since the turn began is the turn\'s, although it ran before the take-back', async () => {
    // The turn began at tick 25 (the take-back at tick 35, 10 ticks = 100 ms later): 52 was started by the agent
    // during the turn, before the reload; 51 (tick 21) was there before the turn.
    const tree = new Map([p(AGENT, SELF, 20), p(51, AGENT, 21, { pgid: AGENT, sid: AGENT }), p(52, AGENT, 30, { pgid: AGENT, sid: AGENT })].map((r) => [r.pid, r]));
    const host = new FakeHost();
    host.rows = [...base, tree.get(52)!];
    const reads: TurnProcessReads = { table: () => host.table(), subtree: () => host.subtree(), environHas: (pid, name, value) => host.environHas(pid, name, value), baseline: async () => ({ table: tree, now: 35 }) };
    const takenBack = await TurnProcessWatch.begin({ agentPid: AGENT, reads, selfPid: SELF, runningForMs: 100 });
    assert.deepEqual((await takenBack.leftovers([])).map((r) => r.pid), [52]);
    const fresh = await TurnProcessWatch.begin({ agentPid: AGENT, reads, selfPid: SELF });
    assert.deepEqual(await fresh.leftovers([]), [], 'a snapshot taken at the take-back would spare it');
  });

  (process.platform === 'linux' ? it : it.skip)('reads the quick baseline from /proc: the agent and its children now, and a time no older process passes (real processes)', async function () {
    this.timeout(30_000);
    const older = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
    const agent = spawn(process.execPath, ['-e', "require('node:child_process').spawn('sleep', ['601'], { stdio: 'ignore' }); setInterval(() => {}, 1e9)"], { detached: true, stdio: 'ignore' });
    try {
      await until(async () => ((await readSubtree(agent.pid!))?.size ?? 0) > 0, 'the agent’s child');
      const baseline = await readTurnBaseline(agent.pid!);
      assert.ok(baseline, 'a baseline on Linux');
      const olderInfo = (await readProcessTable()).get(older.pid!)!;
      assert.ok(olderInfo.start <= baseline.now, `a process started before has start ${olderInfo.start} ≤ now ${baseline.now}`);
      assert.ok(baseline.table.has(agent.pid!) && baseline.table.size === 2, 'the agent and its child');
      assert.ok(!baseline.table.has(older.pid!), 'nothing outside the agent’s tree');
      const watch = await TurnProcessWatch.begin({ agentPid: agent.pid! });
      // Ends in the next tick at the latest: a process started now is not older than the baseline's time.
      const later = spawn('sleep', ['602'], { detached: true, stdio: 'ignore' });
      try {
        const laterInfo = await until(async () => (await readProcessTable()).get(later.pid!), 'the later process');
        assert.ok(laterInfo.start >= baseline.now, 'a process started after the baseline is not older than its time');
        assert.deepEqual(await watch.leftovers([]), [], 'neither the old process nor one unrelated to the agent is a leftover');
      } finally {
        later.kill('SIGKILL');
      }
      watch.stop();
    } finally {
      for (const child of [older, agent]) process.kill(-child.pid!, 'SIGKILL');
    }
  });

  it('parses /proc stat lines whose command name holds spaces and parentheses', () => {
    const line = '4242 (my (weird) name) S 4000 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615';
    assert.deepEqual(parseStat(line), { pid: 4242, ppid: 4000, pgid: 4242, sid: 4242, start: 987654, name: 'my (weird) name', state: 'S' });
    assert.equal(parseStat('garbage'), undefined);
  });

  (process.platform === 'linux' ? it : it.skip)('catches a daemon that cleared its environment through a sample taken while it was still in the agent’s tree (real processes)', async function () {
    this.timeout(30_000);
    // An "agent": starts a middle shell in its own session that backgrounds `env -i sleep` (no marker) and
    // waits for its stdin; the agent reports both pids, then ends the middle when told. Line 1: start; line 2: end.
    const agentSource = `
      const { spawn } = require('node:child_process');
      let middle;
      require('node:readline').createInterface({ input: process.stdin }).on('line', () => {
        if (middle) return middle.stdin.end();
        middle = spawn('sh', ['-c', 'env -i sleep 604 >/dev/null 2>&1 & echo $!; read x'], { detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
        middle.stdout.once('data', (d) => console.log(JSON.stringify({ middle: middle.pid, daemon: Number(String(d).trim()) })));
      });
      setInterval(() => {}, 1e9);`;
    const agent = spawn(process.execPath, ['-e', agentSource], { env: { ...process.env, MARK: 'v' }, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    const pids: number[] = [agent.pid!];
    try {
      const sampled = await TurnProcessWatch.begin({ agentPid: agent.pid!, marker: { name: 'MARK', value: 'v' } });
      const unsampled = await TurnProcessWatch.begin({ agentPid: agent.pid!, marker: { name: 'MARK', value: 'v' } });
      agent.stdin!.write('start\n');
      const line = await new Promise<string>((resolve) => readline.createInterface({ input: agent.stdout! }).once('line', resolve));
      const { middle, daemon } = JSON.parse(line) as { middle: number; daemon: number };
      pids.push(daemon);
      // Until the forked shell has become `env -i sleep`, it still carries the marker: a loaded machine can take
      // that long, and the marker (not a sample) would then find it.
      await waitFor(() => readFileSync(`/proc/${daemon}/comm`, 'utf8').trim() === 'sleep', 'the daemon to run sleep with its environment cleared');
      await sampled.sample();
      agent.stdin!.write('end the middle\n');
      await waitFor(() => !isAlive(middle), 'the middle shell to exit');
      assert.ok(isAlive(daemon), 'the daemon runs on outside the agent’s tree');
      assert.ok((await sampled.leftovers([])).some((r) => r.pid === daemon), 'found through the sampled session');
      assert.ok(!(await unsampled.leftovers([])).some((r) => r.pid === daemon), 'without a sample it is out of reach (the documented limit)');
      sampled.stop();
      unsampled.stop();
    } finally {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    }
  });
});
