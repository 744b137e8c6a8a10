// A corrupt or empty exit record: the task ends `lost` with the reason once its wrapper is provably gone; the wrapper writes durably.

import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { processStartTime } from '../../../src/extension/core/common/processTree';
import { taskPaths } from '../../../src/extension/core/tasks/taskStore';
import type { TaskRecord } from '../../../src/extension/core/tasks/taskTypes';
import { wrapperFiles, type WrapperConfig } from '../../../src/extension/core/tasks/wrapperFiles';
import { openRegistry, type OpenedRegistry } from '../../fakes/taskHarness';
import { tempStorageRoot } from '../../fakes/wakeupHarness';

function record(id: string, pid: number | null, extra: Partial<TaskRecord> = {}): TaskRecord {
  return {
    v: 1,
    id,
    sessionId: 's',
    command: 'make',
    cwd: '/',
    pid,
    background: true,
    notify: { onExit: true },
    outputByteLimit: 4096,
    startedAt: Date.now() - 60_000,
    endedAt: null,
    exitCode: null,
    signal: null,
    status: 'running',
    patternMatchedAt: null,
    killRequestedAt: null,
    ...extra,
  };
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

/** A process whose command line names the task, like its wrapper would; it runs until killed. */
async function fakeWrapper(taskId: string): Promise<{ child: ChildProcess; gone: Promise<void> }> {
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("up"); setInterval(() => {}, 1000)', taskId], { stdio: ['ignore', 'pipe', 'ignore'] });
  const gone = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return { child, gone };
}

describe('task exit record', function () {
  this.timeout(30_000);
  let root: string;
  const opened: OpenedRegistry[] = [];
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-exit-');
    await fs.mkdir(path.join(root, 'tasks'), { recursive: true });
  });

  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    for (const o of opened.splice(0)) await o.registry.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  async function leave(id: string, rec: TaskRecord, exitText: string | undefined): Promise<void> {
    const p = taskPaths(root, id);
    await fs.writeFile(p.record, JSON.stringify(rec));
    await fs.writeFile(p.log, 'building…\n');
    if (exitText !== undefined) await fs.writeFile(p.exit, exitText);
  }

  async function open(): Promise<OpenedRegistry> {
    const o = await openRegistry(root);
    opened.push(o);
    return o;
  }

  it('an empty or corrupt exit record of a dead wrapper ends the task lost, with the reason, and wakes its session', async () => {
    const pid = await deadPid();
    const cases: Array<[string, string]> = [
      ['t-0000000a', ''],
      ['t-0000000b', '{"exitCode":0,"sig'],
      ['t-0000000c', '\u0000\u0000\u0000\u0000'],
      ['t-0000000d', 'null'],
    ];
    for (const [id, text] of cases) await leave(id, record(id, pid), text);
    const o = await open();
    await o.registry.whenReattached();
    for (const [id] of cases) {
      const task = await o.registry.get(id);
      assert.equal(task?.status, 'lost', id);
      assert.deepEqual(await o.registry.waitForExit(id), { exitCode: null, signal: null }, `${id}: waitForExit resolves`);
      assert.match(task?.output ?? '', /exit record .* is unreadable \(.+\) and its wrapper is gone/, id);
    }
    assert.deepEqual(o.completions.map((c) => [c.taskId, c.status]).sort(), cases.map(([id]) => [id, 'lost']).sort(), 'each session is woken once');
    const stored = JSON.parse(await fs.readFile(taskPaths(root, 't-0000000a').record, 'utf8')) as TaskRecord;
    assert.equal(stored.status, 'lost', 'the end is durable');
  });

  it('while the wrapper lives, a corrupt record is not an end; once the wrapper is gone the task is lost', async () => {
    const id = 't-000000e1';
    const wrapper = await fakeWrapper(id);
    children.push(wrapper.child);
    await leave(id, record(id, wrapper.child.pid!, { pidStartedAt: processStartTime(wrapper.child.pid!) }), '{');
    const o = await open();
    await o.registry.whenReattached();
    assert.equal((await o.registry.get(id))?.status, 'running', 'the wrapper may still replace the record');
    const ended = o.registry.waitForExit(id);
    wrapper.child.kill('SIGKILL');
    await wrapper.gone;
    await ended;
    assert.equal((await o.registry.get(id))?.status, 'lost');
  });

  it('a recycled pid (same pid, another start time) is not the wrapper', async () => {
    const id = 't-000000f1';
    const other = await fakeWrapper(id);
    children.push(other.child);
    await leave(id, record(id, other.child.pid!, { pidStartedAt: 'another-boot:12345' }), '');
    const o = await open();
    await o.registry.whenReattached();
    assert.equal((await o.registry.get(id))?.status, 'lost');
  });

  it('the wrapper fsyncs the log and the exit record (then its folder) before it exits', async function () {
    if (process.platform !== 'linux') this.skip();
    const dir = path.join(root, 'tasks');
    const trace = path.join(root, 'trace.json');
    // Records every open, fsync and rename the wrapper makes, in order, and writes them out at exit.
    const spy = path.join(root, 'spy.js');
    await fs.writeFile(
      spy,
      `const fs = require('fs'); const events = []; const names = new Map();
       const open = fs.openSync; fs.openSync = function (p, ...r) { const fd = open.call(fs, p, ...r); names.set(fd, String(p)); return fd; };
       const fsync = fs.fsyncSync; fs.fsyncSync = function (fd) { events.push('fsync ' + names.get(fd)); return fsync.call(fs, fd); };
       const rename = fs.renameSync; fs.renameSync = function (a, b) { events.push('rename ' + a + ' ' + b); return rename.call(fs, a, b); };
       process.on('exit', () => fs.writeFileSync(${JSON.stringify(trace)}, JSON.stringify(events)));`,
    );
    const p = taskPaths(root, 't-00000099');
    const config: WrapperConfig = { taskId: 't-00000099', file: '/bin/sh', args: ['-c', 'echo hi'], cwd: root, log: p.log, exit: p.exit, half: 1 << 20, keepElectronRunAsNode: false };
    const child = spawn(process.execPath, ['-r', spy, wrapperFiles().node, JSON.stringify(config)], { stdio: 'ignore' });
    await new Promise((resolve) => child.on('exit', resolve));
    const events = JSON.parse(await fs.readFile(trace, 'utf8')) as string[];
    const at = (e: string) => events.indexOf(e);
    assert.ok(at(`fsync ${p.log}`) >= 0, events.join('\n'));
    assert.ok(at(`fsync ${p.exit}.tmp`) > at(`fsync ${p.log}`), events.join('\n'));
    assert.ok(at(`rename ${p.exit}.tmp ${p.exit}`) > at(`fsync ${p.exit}.tmp`), events.join('\n'));
    assert.ok(at(`fsync ${dir}`) > at(`rename ${p.exit}.tmp ${p.exit}`), events.join('\n'));
    assert.equal(await fs.readFile(p.log, 'utf8'), 'hi\n');
  });
});
