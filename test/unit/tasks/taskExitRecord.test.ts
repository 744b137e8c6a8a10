// A corrupt or empty exit record: the task ends `lost` with the reason once its wrapper is provably gone; the wrapper writes durably.

import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import fsCallbacks, { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { processStartTime } from '../../../src/extension/core/common/processTree';
import { taskPaths } from '../../../src/extension/core/tasks/taskStore';
import type { TaskCompletion, TaskRecord } from '../../../src/extension/core/tasks/taskTypes';
import { WakeupOutbox } from '../../../src/extension/core/wakeups/wakeupOutbox';
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

  it('the wrapper’s notice stores the completion at once; the task’s record and its waiters wait for the durable record', async () => {
    const id = 't-000000a1';
    const wrapper = await fakeWrapper(id);
    children.push(wrapper.child);
    const p = taskPaths(root, id);
    await leave(id, record(id, wrapper.child.pid!, { pidStartedAt: processStartTime(wrapper.child.pid!) }), undefined);
    const body = JSON.stringify({ exitCode: 3, signal: null, endedAt: Date.now(), droppedBytes: 0, signalsSeen: 0 });
    await fs.writeFile(p.notice, body);
    const o = await open();
    await o.registry.whenReattached();
    assert.deepEqual(o.completions.map((c) => [c.taskId, c.kind, c.exitCode]), [[id, 'exit', 3]], 'the completion is stored from the notice');
    assert.equal((JSON.parse(await fs.readFile(p.record, 'utf8')) as TaskRecord).status, 'running', 'the record waits for the durable exit record');
    assert.equal(o.events.filter((e) => e.type === 'changed' && e.task.id === id).length, 0, 'nobody is told of the end before the record is saved');
    // The wrapper's durable record arrives (renamed into place, as the wrapper does), and the wrapper removes its notice.
    await fs.writeFile(`${p.exit}.tmp`, body);
    await fs.rename(`${p.exit}.tmp`, p.exit);
    await fs.rm(p.notice);
    assert.deepEqual(await o.registry.waitForExit(id), { exitCode: 3, signal: null });
    const stored = JSON.parse(await fs.readFile(p.record, 'utf8')) as TaskRecord;
    assert.deepEqual([stored.status, stored.exitCode], ['exited', 3]);
    assert.equal(o.completions.length, 1, 'the notice and the record wake the session once');
  });

  it('a notice whose wrapper died before its durable record ends the task with the notice’s status, once; a corrupt notice is no end', async () => {
    const pid = await deadPid();
    const good = 't-000000b1';
    const corrupt = 't-000000b2';
    await leave(good, record(good, pid), undefined);
    await fs.writeFile(taskPaths(root, good).notice, JSON.stringify({ exitCode: 5, signal: null, endedAt: Date.now(), droppedBytes: 0, signalsSeen: 0 }));
    await leave(corrupt, record(corrupt, pid), undefined);
    await fs.writeFile(taskPaths(root, corrupt).notice, '{"exitCode":5,');
    const o = await open();
    await o.registry.whenReattached();
    assert.deepEqual(await o.registry.waitForExit(good), { exitCode: 5, signal: null });
    const stored = JSON.parse(await fs.readFile(taskPaths(root, good).record, 'utf8')) as TaskRecord;
    assert.deepEqual([stored.status, stored.exitCode], ['exited', 5]);
    assert.equal((await o.registry.get(corrupt))?.status, 'lost');
    assert.deepEqual(o.completions.map((c) => [c.taskId, c.status, c.exitCode]).sort(), [[good, 'exited', 5], [corrupt, 'lost', null]].sort(), 'each session is woken once');
  });

  it('the final record of an end the synced exit record holds is not synced again; a lost end is', async () => {
    const pid = await deadPid();
    const fsync = fsCallbacks.fsync;
    let syncs = 0;
    fsCallbacks.fsync = ((fd: number, cb: (error: NodeJS.ErrnoException | null) => void) => {
      syncs += 1;
      return fsync(fd, cb);
    }) as typeof fsync;
    try {
      await leave('t-000000c1', record('t-000000c1', pid), JSON.stringify({ exitCode: 0, signal: null, endedAt: Date.now() }));
      const first = await open();
      await first.registry.whenReattached();
      assert.equal((JSON.parse(await fs.readFile(taskPaths(root, 't-000000c1').record, 'utf8')) as TaskRecord).status, 'exited');
      assert.equal(syncs, 0, 'the exit record already holds the end');
      await first.registry.close();
      await leave('t-000000c2', record('t-000000c2', pid), undefined);
      const second = await open();
      await second.registry.whenReattached();
      assert.equal((await second.registry.get('t-000000c2'))?.status, 'lost');
      assert.ok(syncs >= 1, 'nothing else holds a lost end');
    } finally {
      fsCallbacks.fsync = fsync;
    }
  });

  it('an unsynced final record lost to a power cut: the next window ends the task again from its exit record, and wakes nobody twice', async () => {
    const pid = await deadPid();
    const id = 't-000000c3';
    const outbox = await WakeupOutbox.open({ storageRoot: root, windowId: 'w1' });
    const fresh: boolean[] = [];
    const sink = { onCompletion: async (c: TaskCompletion) => void fresh.push(await outbox.enqueue(c)) };
    const running = record(id, pid);
    await leave(id, running, JSON.stringify({ exitCode: 4, signal: null, endedAt: Date.now() }));
    const first = await openRegistry(root, sink);
    opened.push(first);
    await first.registry.whenReattached();
    await first.registry.close();
    // The power cut takes back the unsynced save: the record says running again.
    await fs.writeFile(taskPaths(root, id).record, JSON.stringify(running));
    const second = await openRegistry(root, sink);
    opened.push(second);
    await second.registry.whenReattached();
    const stored = JSON.parse(await fs.readFile(taskPaths(root, id).record, 'utf8')) as TaskRecord;
    assert.deepEqual([stored.status, stored.exitCode], ['exited', 4]);
    assert.deepEqual(fresh, [true, false], 'the second end is the same completion, which the outbox already holds');
    assert.deepEqual((await outbox.entries('s')).map((e) => e.key), [`${id}:exit`]);
  });

  it('the Node wrapper leaves its notice, fsyncs the log and the exit record (then its folder), then removes the notice', async function () {
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
       const rm = fs.rmSync; fs.rmSync = function (p, o) { events.push('rm ' + p); return rm.call(fs, p, o); };
       process.on('exit', () => fs.writeFileSync(${JSON.stringify(trace)}, JSON.stringify(events)));`,
    );
    const p = taskPaths(root, 't-00000099');
    const config: WrapperConfig = { taskId: 't-00000099', file: '/bin/sh', args: ['-c', 'echo hi'], cwd: root, log: p.log, exit: p.exit, half: 1 << 20, keepElectronRunAsNode: false };
    const child = spawn(process.execPath, ['-r', spy, wrapperFiles().node, JSON.stringify(config)], { stdio: 'ignore' });
    await new Promise((resolve) => child.on('exit', resolve));
    const events = JSON.parse(await fs.readFile(trace, 'utf8')) as string[];
    const at = (e: string) => events.indexOf(e);
    // The notice (not synced) comes before every fsync, and goes once the record is durable.
    assert.equal(at(`rename ${p.notice}.tmp ${p.notice}`), 0, events.join('\n'));
    assert.ok(at(`rm ${p.notice}`) > at(`fsync ${dir}`), events.join('\n'));
    assert.ok(at(`fsync ${p.log}`) >= 0, events.join('\n'));
    assert.ok(at(`fsync ${p.exit}.tmp`) > at(`fsync ${p.log}`), events.join('\n'));
    assert.ok(at(`rename ${p.exit}.tmp ${p.exit}`) > at(`fsync ${p.exit}.tmp`), events.join('\n'));
    assert.ok(at(`fsync ${dir}`) > at(`rename ${p.exit}.tmp ${p.exit}`), events.join('\n'));
    assert.equal(await fs.readFile(p.log, 'utf8'), 'hi\n');
  });
});
