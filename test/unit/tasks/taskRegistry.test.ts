// The registry with real child processes and real files: ACP terminal semantics, records, bounds, tree kill.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { isVigilError } from '../../../src/extension/core/common/errors';
import { isAlive } from '../../../src/extension/core/common/processTree';
import { taskRecordSchema } from '../../../src/extension/core/tasks/taskTypes';
import { openRegistry, readPid, registriesPerTest, waitForFile, waitForFileContent, waitForOutput } from '../../fakes/taskHarness';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

describe('task registry', function () {
  this.timeout(30_000);
  const registries = registriesPerTest('vigil-tasks-');
  const open = registries.open;

  it('runs a command in the workspace folder with CI=1 and pagers off, and records its exit durably', async () => {
    const o = await open();
    const { terminalId } = await o.registry.create({ sessionId: 's1', command: 'pwd; echo "$CI $PAGER $GIT_PAGER"; echo oops >&2; exit 3' });
    assert.match(terminalId, /^t-[0-9a-f]{8}$/);
    assert.deepEqual(await o.registry.waitForExit(terminalId), { exitCode: 3, signal: null });
    const out = await o.registry.output(terminalId);
    assert.equal(out.output, `${path.join(registries.root, 'workspace')}\n1 cat cat\noops\n`);
    assert.equal(out.truncated, false);
    assert.deepEqual(out.exitStatus, { exitCode: 3, signal: null });
    const record = taskRecordSchema.parse(JSON.parse(await fs.readFile(path.join(registries.root, 'tasks', `${terminalId}.json`), 'utf8')));
    assert.equal(record.status, 'exited');
    assert.equal(record.exitCode, 3);
    assert.equal(record.sessionId, 's1');
    assert.equal(record.cwd, path.join(registries.root, 'workspace'));
    assert.ok(record.pid !== null && record.endedAt !== null && record.endedAt >= record.startedAt);
    assert.equal(o.completions.length, 0, 'a foreground command wakes nobody');
  });

  it('quotes ACP args for the shell and resolves a relative cwd in the workspace', async () => {
    const o = await open();
    await fs.mkdir(path.join(registries.root, 'workspace', 'sub'));
    const { terminalId } = await o.registry.create({ sessionId: 's', command: 'printf', args: ['%s|', "it's", '$HOME', 'a b'], cwd: 'sub' });
    await o.registry.waitForExit(terminalId);
    assert.equal((await o.registry.output(terminalId)).output, "it's|$HOME|a b|");
    assert.equal((await o.registry.get(terminalId))?.cwd, path.join(registries.root, 'workspace', 'sub'));
  });

  it('refuses bad input with clear errors', async () => {
    const o = await open({ workspaceFolder: () => undefined });
    await assert.rejects(o.registry.create({ sessionId: 's', command: 'true' }), (e) => isVigilError(e, 'INVALID_INPUT'));
    await assert.rejects(o.registry.create({ sessionId: 's', command: 'true', cwd: '/definitely/not/here' }), (e) => isVigilError(e, 'INVALID_INPUT'));
    await assert.rejects(o.registry.create({ sessionId: 's', command: 'true', cwd: registries.root, background: true, notify: { pattern: '([' } }), (e) => isVigilError(e, 'INVALID_INPUT'));
    await assert.rejects(o.registry.output('t-nope'), (e) => isVigilError(e, 'NOT_FOUND'));
  });

  it('a background exit produces exactly one completion, whatever signals the end repeatedly', async () => {
    const o = await open({ pollIntervalMs: 20 });
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1) ids.push((await o.registry.create({ sessionId: 's', command: `echo run-${i}; exit ${i}`, background: true })).terminalId);
    for (const id of ids) await o.registry.waitForExit(id);
    // Exit file event, wrapper exit, the poll, and a second registry over the same files all see the end.
    const second = await open({ pollIntervalMs: 20 });
    assert.equal(second.completions.length, 0, 'finished records are not re-reported');
    const keys = o.completions.map((c) => c.key).sort();
    assert.deepEqual(keys, ids.map((id) => `${id}:exit`).sort());
    const c = o.completions.find((x) => x.taskId === ids[4]);
    assert.equal(c?.exitCode, 4);
    assert.equal(c?.status, 'exited');
    assert.equal(c?.output, 'run-4\n');
  });

  it('a completion the outbox could not store is retried until stored, pattern and exit alike', async () => {
    const failures = new Map<string, number>();
    const stored: string[] = [];
    const o = await open({
      pollIntervalMs: 50,
      onCompletion: async (c) => {
        const n = failures.get(c.key) ?? 0;
        if (n < 2) {
          failures.set(c.key, n + 1);
          throw new Error('disk full');
        }
        stored.push(c.key);
      },
    });
    const { terminalId } = await o.registry.create({ sessionId: 's', command: 'echo ready now; exit 1', background: true, notify: { pattern: 'ready' } });
    // waitForExit does not wait for a broken outbox; the stored exit completion is announced as an event.
    await o.registry.waitForExit(terminalId);
    await new Promise<void>((resolve) => {
      const off = o.registry.subscribe((e) => {
        if (e.type === 'completion' && e.completion.kind === 'exit') {
          off();
          resolve();
        }
      });
      if (stored.includes(`${terminalId}:exit`)) resolve();
    });
    assert.deepEqual(stored, [`${terminalId}:pattern`, `${terminalId}:exit`]);
    // The final record is saved after the completion is stored (completion first, then record): wait for that state.
    const recordFile = path.join(registries.root, 'tasks', `${terminalId}.json`);
    await waitForFileContent(recordFile, (text) => JSON.parse(text).status !== 'running');
    const record = JSON.parse(await fs.readFile(recordFile, 'utf8'));
    assert.equal(record.status, 'exited');
    assert.ok(record.patternMatchedAt !== null);
  });

  it('release: a foreground command is killed and its id retired; a background task keeps running', async () => {
    const o = await open();
    const fg = (await o.registry.create({ sessionId: 's', command: 'echo fg-ready; exec sleep 300' })).terminalId;
    const bg = (await o.registry.create({ sessionId: 's', command: 'echo bg-ready; exec sleep 300', background: true })).terminalId;
    await waitForOutput(o, fg, 'fg-ready');
    await waitForOutput(o, bg, 'bg-ready');
    await o.registry.release(fg);
    await assert.rejects(o.registry.output(fg), (e) => isVigilError(e, 'NOT_FOUND'));
    assert.equal((await o.registry.get(fg))?.status, 'killed');
    await o.registry.release(bg);
    assert.equal((await o.registry.get(bg))?.status, 'running');
    await o.registry.kill(bg);
    assert.equal((await o.registry.get(bg))?.status, 'killed');
  });

  it('kill ends the whole tree, grandchildren included (in the group, escaped with setsid, ignoring SIGTERM)', async () => {
    const o = await open();
    const ws = path.join(registries.root, 'workspace');
    const command = [
      'sleep 300 & echo $! > gc1.pid',
      'setsid sleep 300 & echo $! > gc2.pid',
      `sh -c 'trap "" TERM; echo $$ > gc3.pid; while :; do sleep 1; done' &`,
      'echo ready',
      'wait',
    ].join('\n');
    const { terminalId } = await o.registry.create({ sessionId: 's', command, background: true });
    await waitForOutput(o, terminalId, 'ready');
    await waitForFile(path.join(ws, 'gc3.pid'));
    const pids = ['gc1.pid', 'gc2.pid', 'gc3.pid'].map((f) => readPid(path.join(ws, f)));
    const wrapper = (await o.registry.get(terminalId))?.pid as number;
    assert.ok([wrapper, ...pids].every(isAlive), JSON.stringify([wrapper, ...pids].map((p) => [p, isAlive(p)])));
    await o.registry.kill(terminalId);
    for (const pid of [wrapper, ...pids]) assert.equal(isAlive(pid), false, `pid ${pid} survived the kill`);
    const after = await o.registry.output(terminalId);
    assert.ok(after.exitStatus, 'the task stays readable after a kill');
    assert.ok(after.output.includes('ready'));
    assert.equal((await o.registry.get(terminalId))?.status, 'killed');
    assert.equal(o.completions.filter((c) => c.taskId === terminalId).length, 1);
    assert.equal(o.completions[0].status, 'killed');
  });

  it('a command printing far more than the buffer: memory bounded, the tail right, truncated true, log capped', async function () {
    this.timeout(120_000);
    const o = await open({ logByteCap: 1024 * 1024 });
    gc();
    const before = process.memoryUsage().heapUsed;
    const command = `head -c 30000000 /dev/zero | tr '\\0' a; i=0; while [ $i -lt 2000 ]; do printf 'é€'; i=$((i+1)); done; echo; echo TAIL-END`;
    const { terminalId } = await o.registry.create({ sessionId: 's', command, outputByteLimit: 64 * 1024 });
    assert.deepEqual(await o.registry.waitForExit(terminalId), { exitCode: 0, signal: null });
    const out = await o.registry.output(terminalId);
    assert.equal(out.truncated, true);
    assert.ok(Buffer.byteLength(out.output) <= 64 * 1024, `${Buffer.byteLength(out.output)} bytes kept`);
    assert.ok(out.output.endsWith('é€é€\nTAIL-END\n'), JSON.stringify(out.output.slice(-40)));
    assert.ok(!out.output.includes('\ufffd'), 'the cut fell inside a character');
    assert.ok(out.output.includes('aaaa'));
    let onDisk = 0;
    for (const f of [`${terminalId}.log`, `${terminalId}.log.1`]) onDisk += (await fs.stat(path.join(registries.root, 'tasks', f)).catch(() => ({ size: 0 }))).size;
    assert.ok(onDisk <= 1024 * 1024 + 64 * 1024, `log holds ${onDisk} bytes`);
    gc();
    const grown = (process.memoryUsage().heapUsed - before) / 1e6;
    assert.ok(grown < 16, `heap grew ${grown.toFixed(1)} MB for 30 MB of output`);
  });

  it('open does not wait for a completion sink that becomes ready only after it returned', async () => {
    const ws = path.join(registries.root, 'workspace');
    await fs.mkdir(ws, { recursive: true });
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [path.join(ws, 'gate')]);
    const a = await openRegistry(registries.root);
    const { terminalId } = await a.registry.create({ sessionId: 's', command: 'echo waiting; read x < gate; exit 0', background: true });
    await waitForOutput(a, terminalId, 'waiting');
    await a.registry.close();
    await fs.writeFile(path.join(ws, 'gate'), 'go\n');
    await waitForFile(path.join(registries.root, 'tasks', `${terminalId}.exit`));
    // As the composition registries.root does: the sink waits for a coordinator built after `open` returns.
    let ready!: () => void;
    const gate = new Promise<void>((resolve) => (ready = resolve));
    const stored: string[] = [];
    const b = await open({
      onCompletion: async (c) => {
        await gate;
        stored.push(c.key);
      },
    });
    assert.deepEqual(stored, []);
    ready();
    await b.registry.whenReattached();
    assert.deepEqual(stored, [`${terminalId}:exit`]);
    assert.equal((await b.registry.get(terminalId))?.status, 'exited');
  });

  it('re-attaches after a reload: a running task is followed, one that ended meanwhile is read, a vanished one is lost', async () => {
    const ws = path.join(registries.root, 'workspace');
    const a = await openRegistry(registries.root);
    // The gates exist before the commands that read them start.
    const { execFileSync } = await import('node:child_process');
    for (const g of ['gate1', 'gate2', 'gate3']) execFileSync('mkfifo', [path.join(ws, g)]);
    const running = (await a.registry.create({ sessionId: 's', command: `echo before; read x < gate1; echo after-$x; exit 5`, background: true })).terminalId;
    const endedAway = (await a.registry.create({ sessionId: 's', command: `echo e1; read x < gate2; echo e2; exit 6`, background: true })).terminalId;
    const vanished = (await a.registry.create({ sessionId: 's', command: `echo v1; read x < gate3`, background: true })).terminalId;
    for (const id of [running, endedAway, vanished]) await waitForOutput(a, id, id === running ? 'before' : id === endedAway ? 'e1' : 'v1');
    const vanishedPid = (await a.registry.get(vanished))?.pid as number;
    // The window goes away; its tasks do not.
    await a.registry.close();
    await fs.writeFile(path.join(ws, 'gate2'), 'go\n');
    await waitForFile(path.join(registries.root, 'tasks', `${endedAway}.exit`));
    process.kill(-vanishedPid, 'SIGKILL');
    while (isAlive(vanishedPid)) await new Promise((r) => setImmediate(r));

    const b = await open();
    await b.registry.whenReattached();
    const tasks = new Map(b.registry.list().map((t) => [t.id, t]));
    assert.equal(tasks.get(running)?.status, 'running');
    assert.ok(tasks.get(running)?.output.includes('before'), 'the output so far came back from the log');
    assert.equal(tasks.get(endedAway)?.status, 'exited');
    assert.equal(tasks.get(endedAway)?.exitCode, 6);
    assert.equal(tasks.get(vanished)?.status, 'lost');
    assert.deepEqual(b.completions.map((c) => [c.taskId, c.status]).sort(), [[endedAway, 'exited'], [vanished, 'lost']].sort());

    await fs.writeFile(path.join(ws, 'gate1'), 'go\n');
    assert.deepEqual(await b.registry.waitForExit(running), { exitCode: 5, signal: null });
    assert.ok((await b.registry.output(running)).output.endsWith('before\nafter-go\n'));
    assert.equal(b.completions.filter((c) => c.taskId === running).length, 1);
  });
});
