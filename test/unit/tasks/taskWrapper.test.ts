// The task wrappers as shipped files: the Perl one (default where /usr/bin/perl exists) and the Node one
// (Windows). The same exit record with the exact wait status, a log bounded by the wrapper itself whether
// or not a window follows it, durable writes, and tasks of the Node wrapper re-attached after an upgrade.

import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isAlive } from '../../../src/extension/core/common/processTree';
import { LogFollower } from '../../../src/extension/core/tasks/logFollower';
import { exitRecordFields, readExitFile } from '../../../src/extension/core/tasks/exitRecord';
import { taskPaths } from '../../../src/extension/core/tasks/taskStore';
import { PERL, perlWrapperEnv, wrapperCommand, wrapperFiles, type WrapperKind } from '../../../src/extension/core/tasks/wrapperFiles';
import { makeFifo, openGate, openRegistry, registriesPerTest, waitForFile, waitForOutput } from '../../fakes/taskHarness';

const hasPerl = process.platform !== 'win32' && existsSync(PERL);

interface Run {
  record: Record<string, unknown>;
  pid: number;
}

/** Runs wrapper `kind` directly (no registry, no follower) on `/bin/sh -c command`; resolves once it exited. */
async function runWrapper(kind: WrapperKind, root: string, id: string, command: string, half = 1 << 20, onStart?: (pid: number) => void, until: 'exit' | 'record' = 'exit'): Promise<Run> {
  const p = taskPaths(root, id);
  const launch = { taskId: id, file: '/bin/sh', args: ['-c', command], cwd: root, log: p.log, exit: p.exit, half };
  const { command: program, args, env } = wrapperCommand(kind, launch, { nodePath: process.execPath, keepElectronRunAsNode: false });
  const child = spawn(program, args, { cwd: root, detached: true, stdio: 'ignore', env: { ...process.env, ...env } });
  onStart?.(child.pid!);
  // 'record': the Node wrapper records the end but lives on while a process left behind holds its pipes.
  await (until === 'exit' ? new Promise((resolve) => child.on('exit', resolve)) : waitForFile(p.exit, 30_000));
  return { record: JSON.parse(await fs.readFile(p.exit, 'utf8')) as Record<string, unknown>, pid: child.pid! };
}

const sizeOf = (f: string) => fs.stat(f).then((s) => s.size, () => 0);

describe('task wrappers', function () {
  this.timeout(60_000);
  const registries = registriesPerTest('vigil-wrapper-');
  const open = registries.open;

  beforeEach(async () => {
    await fs.mkdir(path.join(registries.root, 'tasks'), { recursive: true });
  });

  it('ships as files: taskWrapper.pl compiles under strict and warnings, taskWrapper.js is the compiled Node one', function () {
    const files = wrapperFiles();
    assert.ok(existsSync(files.node), files.node);
    assert.match(readFileSync(files.node, 'utf8'), /could not start the command/);
    if (!hasPerl) this.skip();
    // `perl -c` compiles without running; strict and warnings are checked here, not paid for by every task.
    execFileSync(PERL, ['-Mstrict', '-Mwarnings', '-c', files.perl], { stdio: 'pipe' });
  });

  it('the registry runs new tasks under /usr/bin/perl where it exists', async function () {
    if (!hasPerl || process.platform !== 'linux') this.skip();
    const o = await open();
    const gate = makeFifo(path.join(registries.root, 'workspace'));
    const { terminalId } = await o.registry.create({ sessionId: 's', command: 'echo up; read x < gate', background: true });
    await waitForOutput(o, terminalId, 'up');
    const pid = (await o.registry.get(terminalId))!.pid!;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    assert.deepEqual(argv.slice(0, 3), [PERL, wrapperFiles().perl, terminalId]);
    await openGate(gate);
    assert.deepEqual(await o.registry.waitForExit(terminalId), { exitCode: 0, signal: null });
  });

  for (const kind of ['perl', 'node'] as const) {
    describe(`${kind} wrapper`, () => {
      before(function () {
        if (kind === 'perl' && !hasPerl) this.skip();
      });

      it('records the exit code, or the signal that ended the command: an exit status above 128 is not a signal', async () => {
        const exited = await runWrapper(kind, registries.root, 't-000000b1', 'echo out; echo err >&2; exit 3');
        assert.deepEqual([exited.record.exitCode, exited.record.signal, exited.record.signalsSeen, exited.record.droppedBytes], [3, null, 0, 0]);
        assert.ok(Math.abs((exited.record.endedAt as number) - Date.now()) < 60_000, `endedAt ${String(exited.record.endedAt)} is a time in ms`);
        assert.equal(await fs.readFile(taskPaths(registries.root, 't-000000b1').log, 'utf8'), 'out\nerr\n');

        const high = await runWrapper(kind, registries.root, 't-000000b2', 'exit 137');
        assert.deepEqual([high.record.exitCode, high.record.signal], [137, null]);

        const crashed = await runWrapper(kind, registries.root, 't-000000b3', 'kill -SEGV $$');
        assert.deepEqual([crashed.record.exitCode, crashed.record.signal], [null, 'SIGSEGV']);

        const missing = await runWrapper(kind, registries.root, 't-000000b4', 'no-such-command-vigil');
        assert.equal(missing.record.exitCode, 127);
        assert.match(await fs.readFile(taskPaths(registries.root, 't-000000b4').log, 'utf8'), /no-such-command-vigil/);
      });

      it('survives SIGTERM to its group to record that the command died of it', async () => {
        const gate = makeFifo(registries.root);
        const killed = await runWrapper(kind, registries.root, 't-000000c1', `echo up > ${gate}; exec sleep 30`, 1 << 20, (pid) => {
          void fs.readFile(gate, 'utf8').then(() => process.kill(-pid, 'SIGTERM'));
        });
        assert.deepEqual([killed.record.exitCode, killed.record.signal], [null, 'SIGTERM']);
        // Perl runs its handler before its next statement; Node's event loop may see the command's end first.
        if (kind === 'perl') assert.equal(killed.record.signalsSeen, 1);
        else assert.ok(killed.record.signalsSeen === 0 || killed.record.signalsSeen === 1, String(killed.record.signalsSeen));
      });

      it('bounds the log itself, with no window following: older output in log.1, the newest in log', async () => {
        const half = 16 * 1024;
        // ~1 MB of numbered lines; nothing reads the log while they are written.
        await runWrapper(kind, registries.root, 't-000000d1', 'i=0; while [ $i -lt 20000 ]; do echo "line $i ........................................"; i=$((i+1)); done; echo LAST', half);
        const p = taskPaths(registries.root, 't-000000d1');
        assert.ok((await sizeOf(p.log)) <= half, `log ${await sizeOf(p.log)} bytes`);
        assert.ok((await sizeOf(`${p.log}.1`)) <= half && (await sizeOf(`${p.log}.1`)) > 0, `log.1 ${await sizeOf(`${p.log}.1`)} bytes`);
        const newest = (await fs.readFile(`${p.log}.1`, 'utf8')) + (await fs.readFile(p.log, 'utf8'));
        assert.ok(newest.endsWith('line 19999 ........................................\nLAST\n'), JSON.stringify(newest.slice(-80)));
      });

      it('records the end while a process the command left behind still holds its output open', async () => {
        const { record, pid } = await runWrapper(kind, registries.root, 't-000000e1', `(exec sleep 30) & echo $! > ${path.join(registries.root, 'left')}; echo bye; exit 2`, 1 << 20, undefined, 'record');
        assert.deepEqual([record.exitCode, record.signal], [2, null]);
        const left = Number(await fs.readFile(path.join(registries.root, 'left'), 'utf8'));
        assert.ok(isAlive(left), 'the process left behind still runs: the wrapper did not wait for it');
        process.kill(-pid, 'SIGKILL');
      });
    });
  }

  it('both wrappers write the exit record exitRecord.ts describes, field for field, and the host reads the same end from each', async function () {
    if (!hasPerl) this.skip();
    const commands = { code: 'exit 3', high: 'exit 137', signal: 'kill -SEGV $$', missing: 'no-such-command-vigil' };
    const read: Record<string, unknown[]> = {};
    for (const kind of ['perl', 'node'] as const) {
      read[kind] = [];
      for (const [i, [name, command]] of Object.entries(commands).entries()) {
        const id = `t-0000${kind === 'perl' ? 'a' : 'b'}00${i}`;
        const run = await runWrapper(kind, registries.root, id, command);
        assert.deepEqual(Object.keys(run.record), [...exitRecordFields], `${kind} wrapper, ${name}`);
        const parsed = await readExitFile(taskPaths(registries.root, id).exit);
        assert.equal(parsed.kind, 'exited', `${kind} wrapper, ${name}`);
        const exit = parsed.kind === 'exited' ? parsed.exit : undefined;
        read[kind].push({ name, exitCode: exit?.exitCode, signal: exit?.signal, endedAt: exit?.endedAt === run.record.endedAt, signalsSeen: run.record.signalsSeen, droppedBytes: run.record.droppedBytes });
      }
    }
    assert.deepEqual(read.perl, read.node);
    assert.deepEqual(read.node.map((r) => (r as { exitCode: unknown }).exitCode), [3, 137, null, 127]);
  });

  for (const numbers of ['the host’s system call numbers', 'no numbers (IO’s XS)'] as const) {
    it(`the Perl wrapper leaves its notice, fsyncs the log and the record before renaming it into place, then its folder, then removes the notice: ${numbers}`, async function () {
      if (!hasPerl || process.platform !== 'linux' || !existsSync('/usr/bin/strace')) this.skip();
      const given = numbers === 'the host’s system call numbers';
      const id = given ? 't-000000f1' : 't-000000f2';
      const p = taskPaths(registries.root, id);
      const trace = path.join(registries.root, `trace-${id}`);
      const { command, args, env } = wrapperCommand('perl', { taskId: id, file: '/bin/sh', args: ['-c', 'echo "[$VIGIL_WRAPPER_SYSCALLS]"'], cwd: registries.root, log: p.log, exit: p.exit, half: 1 << 20 }, { nodePath: process.execPath, keepElectronRunAsNode: false });
      if (given && !env.VIGIL_WRAPPER_SYSCALLS) this.skip(); // a CPU without a table entry
      const childEnv = { ...process.env, ...(given ? env : {}) };
      delete childEnv.VIGIL_WRAPPER_SYSCALLS;
      if (given) childEnv.VIGIL_WRAPPER_SYSCALLS = env.VIGIL_WRAPPER_SYSCALLS;
      const child = spawn('/usr/bin/strace', ['-f', '-o', trace, '-e', 'trace=openat,fsync,rename,unlink', command, ...args], { stdio: 'ignore', env: childEnv });
      const code = await new Promise((resolve) => child.on('exit', resolve));
      if (code !== 0) this.skip(); // ptrace refused in this sandbox
      const fds = new Map<string, string>();
      const events: string[] = [];
      const opened: string[] = [];
      for (const line of (await fs.readFile(trace, 'utf8')).split('\n')) {
        // Descriptors are per process (-f follows the command too).
        const open = /^(\d+)\s+openat\([^,]+, "([^"]+)".*\) = (\d+)$/.exec(line);
        if (open) {
          fds.set(`${open[1]}:${open[3]}`, open[2]);
          opened.push(open[2]);
        }
        const synced = /^(\d+)\s+fsync\((\d+)\)/.exec(line);
        if (synced) events.push(`fsync ${fds.get(`${synced[1]}:${synced[2]}`)}`);
        const renamed = /^\d+\s+rename\("([^"]+)", "([^"]+)"\)/.exec(line);
        if (renamed) events.push(`rename ${renamed[1]} ${renamed[2]}`);
        const unlinked = /^\d+\s+unlink\("([^"]+)"\)/.exec(line);
        if (unlinked) events.push(`unlink ${unlinked[1]}`);
      }
      // The notice (not synced) comes before every fsync: the host acts on it while they run.
      assert.deepEqual(events, [`rename ${p.notice}.tmp ${p.notice}`, `fsync ${p.log}`, `fsync ${p.exit}.tmp`, `rename ${p.exit}.tmp ${p.exit}`, `fsync ${path.dirname(p.exit)}`, `unlink ${p.notice}`]);
      assert.equal(existsSync(p.notice), false, 'the notice is gone once the record is durable');
      // With the numbers, nothing is loaded between the command's end and its record; the command never sees them.
      const loaded = opened.filter((f) => /\/(IO|HiRes)\.so$|\/Time\/HiRes\.pm$/.test(f));
      assert.deepEqual(loaded.length > 0, !given, `modules opened: ${JSON.stringify(loaded)}`);
      assert.equal(await fs.readFile(p.log, 'utf8'), '[]\n');
      const record = JSON.parse(await fs.readFile(p.exit, 'utf8')) as { endedAt: number };
      assert.ok(Math.abs(record.endedAt - Date.now()) < 60_000, `endedAt ${record.endedAt} is a time in ms`);
    });
  }

  it('the host gives the Perl wrapper system call numbers only where it knows them (Linux on x86-64, arm64, riscv64)', () => {
    assert.deepEqual(perlWrapperEnv('linux', 'x64'), { VIGIL_WRAPPER_SYSCALLS: 'fsync=74,gettimeofday=96,prctl=157' });
    assert.deepEqual(perlWrapperEnv('linux', 'arm64'), { VIGIL_WRAPPER_SYSCALLS: 'fsync=82,gettimeofday=169,prctl=167' });
    // Elsewhere the key is there but undefined: it replaces any value the request or the host's environment had.
    assert.deepEqual(perlWrapperEnv('linux', 'ia32'), { VIGIL_WRAPPER_SYSCALLS: undefined });
    assert.deepEqual(perlWrapperEnv('darwin', 'arm64'), { VIGIL_WRAPPER_SYSCALLS: undefined });
    assert.deepEqual({ ...{ VIGIL_WRAPPER_SYSCALLS: 'fsync=62' }, ...perlWrapperEnv('darwin', 'arm64') }, { VIGIL_WRAPPER_SYSCALLS: undefined });
  });

  it('ELECTRON_RUN_AS_NODE: set for the Node wrapper, kept for the Perl one only where the host had it', () => {
    const launch = { taskId: 't-000000f4', file: '/bin/sh', args: [], cwd: '/', log: '/l', exit: '/e', half: 4096 };
    const env = (kind: WrapperKind, keep: boolean) => wrapperCommand(kind, launch, { nodePath: process.execPath, keepElectronRunAsNode: keep }).env;
    assert.equal(env('node', false).ELECTRON_RUN_AS_NODE, '1');
    assert.ok('ELECTRON_RUN_AS_NODE' in env('perl', false) && env('perl', false).ELECTRON_RUN_AS_NODE === undefined, 'removed from the command');
    assert.ok(!('ELECTRON_RUN_AS_NODE' in env('perl', true)), 'left as the host had it');
  });

  it('the Perl wrapper ignores system call numbers that are not plain numbers of fsync and gettimeofday', async function () {
    if (!hasPerl) this.skip();
    const p = taskPaths(registries.root, 't-000000f3');
    const { command, args } = wrapperCommand('perl', { taskId: 't-000000f3', file: '/bin/sh', args: ['-c', 'echo ok; exit 5'], cwd: registries.root, log: p.log, exit: p.exit, half: 1 << 20 }, { nodePath: process.execPath, keepElectronRunAsNode: false });
    const child = spawn(command, args, { cwd: registries.root, stdio: 'ignore', env: { ...process.env, VIGIL_WRAPPER_SYSCALLS: 'kill=62,fsync=-1,gettimeofday=9999999,fsync=7 4' } });
    await new Promise((resolve) => child.on('exit', resolve));
    const record = JSON.parse(await fs.readFile(p.exit, 'utf8')) as { exitCode: number; endedAt: number };
    assert.equal(record.exitCode, 5);
    assert.ok(Math.abs(record.endedAt - Date.now()) < 60_000, `endedAt ${record.endedAt} is a time in ms`);
    assert.equal(await fs.readFile(p.log, 'utf8'), 'ok\n');
  });

  it('a task the Node wrapper started before an upgrade is re-attached and ends with its status and output', async () => {
    const old = await openRegistry(registries.root, { wrapper: 'node' }); // closed below, before the upgrade
    const gate = makeFifo(path.join(registries.root, 'workspace'));
    const { terminalId } = await old.registry.create({ sessionId: 's', command: 'echo before; read x < gate; echo after-$x; exit 4', background: true });
    await waitForOutput(old, terminalId, 'before');
    if (process.platform === 'linux') {
      const pid = (await old.registry.get(terminalId))!.pid!;
      assert.equal(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[1], wrapperFiles().node);
    }
    await old.registry.close();

    const upgraded = await open();
    await upgraded.registry.whenReattached();
    assert.equal((await upgraded.registry.get(terminalId))?.status, 'running');
    await openGate(gate);
    assert.deepEqual(await upgraded.registry.waitForExit(terminalId), { exitCode: 4, signal: null });
    assert.ok((await upgraded.registry.output(terminalId)).output.endsWith('before\nafter-go\n'));
    assert.deepEqual(upgraded.completions.map((c) => [c.taskId, c.status, c.exitCode]), [[terminalId, 'exited', 4]]);
  });

  it('the follower reads on from the start of a log cut short in place', async () => {
    const file = path.join(registries.root, 'tasks', 'cut.log');
    await fs.writeFile(file, 'first part\n');
    let seen = '';
    const follower = new LogFollower(file, (text) => (seen += text));
    await follower.open('start');
    await follower.poke();
    assert.equal(seen, 'first part\n');
    await fs.truncate(file, 0);
    await fs.appendFile(file, 'new\n');
    await follower.poke();
    assert.equal(seen, 'first part\nnew\n');
    await follower.close();
  });
});
