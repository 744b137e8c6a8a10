// A task's processes cannot leave it: on Linux the Perl wrapper is the child subreaper of the command's tree,
// so double-forked `setsid` daemons stay its descendants (and are reaped by it); a kill freezes the whole set
// before it SIGKILLs it, and kill_background says how many processes it stopped.

import { strict as assert } from 'node:assert';
import { existsSync, promises as fs, readFileSync, readlinkSync } from 'node:fs';
import * as path from 'node:path';
import { isAlive } from '../../../src/extension/core/common/processTree';
import { killSentence } from '../../../src/extension/core/mcp/taskToolService';
import { PERL } from '../../../src/extension/core/tasks/wrapperFiles';
import { makeFifo, openGate, readPid, registriesPerTest, waitForFile, waitForFileContent, waitForOutput } from '../../fakes/taskHarness';
import { waitFor } from '../supervisor/harness';

const contained = process.platform === 'linux' && ['x64', 'arm64', 'riscv64'].includes(process.arch) && existsSync(PERL);

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function cwdOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

function pidsIn(file: string): number[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
}

describe('task containment (Perl wrapper on Linux)', function () {
  this.timeout(60_000);
  const pidFiles: string[] = [];
  // Before the registries' own hook, which removes the folder holding the pid files.
  afterEach(() => {
    for (const file of pidFiles.splice(0)) {
      // Only a process still working in this test's folder: a pid that ended may already name someone else's.
      for (const pid of existsSync(file) ? pidsIn(file) : []) if (cwdOf(pid)?.startsWith(registries.root)) process.kill(pid, 'SIGKILL');
    }
  });
  const registries = registriesPerTest('vigil-contain-');

  before(function () {
    if (!contained) this.skip();
  });

  it('a double-forked setsid daemon stays the wrapper’s child, and the wrapper reaps it when it ends', async () => {
    const o = await registries.open();
    const ws = path.join(registries.root, 'workspace');
    const gate = makeFifo(ws);
    // The middle shell ends at once: its setsid child would go to init without a subreaper.
    const command = `sh -c 'setsid sh -c "cat ${gate} >/dev/null" & echo $! > daemon.pid'; echo ready; exec sleep 600`;
    pidFiles.push(path.join(ws, 'daemon.pid'));
    const { terminalId } = await o.registry.create({ sessionId: 's', command, background: true });
    await waitForOutput(o, terminalId, 'ready');
    await waitForFile(path.join(ws, 'daemon.pid'));
    const wrapper = (await o.registry.get(terminalId))?.pid as number;
    const daemon = readPid(path.join(ws, 'daemon.pid'));
    await waitFor(() => parentOf(daemon) === wrapper, 'the daemon to be re-parented to the wrapper');
    await openGate(gate);
    // Reaped, not left a zombie: its /proc entry goes.
    await waitFor(() => !existsSync(`/proc/${daemon}`), 'the ended daemon to be reaped');
    assert.ok(isAlive(wrapper), 'the wrapper still runs the command');
  });

  it('kill_background stops 100 double-forked setsid sleeps and says so', async () => {
    const o = await registries.open();
    const ws = path.join(registries.root, 'workspace');
    const command = 'i=0; while [ $i -lt 100 ]; do (setsid sleep 600 & echo $! >> daemons); i=$((i+1)); done; echo ready; exec sleep 600';
    pidFiles.push(path.join(ws, 'daemons'));
    const { terminalId } = await o.registry.create({ sessionId: 's', command, background: true });
    await waitForOutput(o, terminalId, 'ready');
    const daemons = pidsIn(path.join(ws, 'daemons'));
    assert.equal(daemons.length, 100);
    assert.ok(daemons.every(isAlive), 'all 100 run before the kill');
    const outcome = await o.registry.killTask(terminalId);
    const survivors = daemons.filter(isAlive);
    assert.deepEqual(survivors, [], `${survivors.length} of 100 survived`);
    // The 100 sleeps and the command (sh, exec'd into sleep): the wrapper is not counted.
    assert.deepEqual(outcome && { stopped: outcome.stopped, survivors: outcome.survivors.length }, { stopped: 101, survivors: 0 });
    assert.equal(killSentence(terminalId, outcome), `Killed task ${terminalId}: 101 processes stopped.`);
    assert.equal((await o.registry.get(terminalId))?.status, 'killed');
  });

  it('a shell that ignores SIGTERM and keeps forking setsid children during the kill leaves no survivor', async () => {
    const o = await registries.open({ killGraceMs: 200 });
    const ws = path.join(registries.root, 'workspace');
    // SIG_IGN is inherited: every child ignores SIGTERM too. Bounded, so a broken kill cannot exhaust pids.
    const command = `trap "" TERM; echo ready; i=0; while [ $i -lt 3000 ]; do setsid sleep 600 & echo $! >> forked; i=$((i+1)); done; exec sleep 600`;
    pidFiles.push(path.join(ws, 'forked'));
    const { terminalId } = await o.registry.create({ sessionId: 's', command, background: true });
    await waitForOutput(o, terminalId, 'ready');
    await waitForFileContent(path.join(ws, 'forked'), (text) => text.split('\n').length > 20);
    const wrapper = (await o.registry.get(terminalId))?.pid as number;
    const outcome = await o.registry.killTask(terminalId);
    const forked = pidsIn(path.join(ws, 'forked'));
    const survivors = forked.filter(isAlive);
    assert.deepEqual(survivors, [], `${survivors.length} of ${forked.length} forked children survived`);
    assert.ok(!isAlive(wrapper), 'the wrapper ended once its processes were gone');
    assert.equal(outcome?.survivors.length, 0);
    // Every child it had forked, and the shell: at least as many as the file names (it may lag one fork).
    assert.ok(outcome!.stopped >= forked.length, `${outcome!.stopped} stopped, ${forked.length} forked`);
    const record = JSON.parse(await fs.readFile(path.join(registries.root, 'tasks', `${terminalId}.exit`), 'utf8')) as { signal: string | null };
    assert.equal(record.signal, 'SIGKILL', 'the wrapper recorded how the command ended');
  });
});

describe('kill_background’s answer', () => {
  it('names how many processes were stopped, and those that could not be', () => {
    const p = (pid: number, name: string) => ({ pid, ppid: 1, pgid: pid, sid: pid, start: 1, name, state: 'S' });
    assert.equal(killSentence('t-1', { stopped: 1, survivors: [] }), 'Killed task t-1: 1 process stopped.');
    assert.equal(killSentence('t-1', { stopped: 3, survivors: [p(42, 'sleep')] }), 'Killed task t-1: 3 processes stopped; 1 process could not be stopped and still runs: pid 42 (sleep).');
    assert.equal(killSentence('t-1', undefined), 'Task t-1 ended before it could be killed.');
  });
});
