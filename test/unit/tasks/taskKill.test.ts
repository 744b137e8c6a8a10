// The task kill over an injected process table: which processes are the task's, that each is named by pid
// and start time (a pid that changed hands during the grace is never frozen or killed), that the wrapper
// only gets its group's SIGTERM, and that the count is what was stopped.

import { strict as assert } from 'node:assert';
import { systemClock } from '../../../src/extension/core/ports/clock';
import type { ProcessInfo, ProcessTable } from '../../../src/extension/core/supervisor/processTable';
import { killTaskProcesses, taskMembers } from '../../../src/extension/core/tasks/taskKill';
import { isWrapperEntry } from '../../../src/extension/core/tasks/wrapperProcess';
import { startTimeKey } from '../../../src/extension/core/common/processTree';

const W = 100;

function p(pid: number, ppid: number, start: number, o: Partial<ProcessInfo> = {}): ProcessInfo {
  return { pid, ppid, pgid: W, sid: W, start, name: `p${pid}`, state: 'S', ...o };
}

/** A host whose table the test rewrites during the grace; signals are recorded, SIGKILL ends a process. */
class FakeHost {
  rows = new Map<number, ProcessInfo>();
  signals: string[] = [];
  ignoresTerm = new Set<number>();
  set(...procs: ProcessInfo[]): void {
    this.rows = new Map(procs.map((q) => [q.pid, q]));
  }
  deps(grace: () => void, isWrapper = true) {
    return {
      clock: systemClock,
      graceMs: 1,
      goneWithinMs: 0,
      exitWithin: async () => {
        grace();
        return true;
      },
      isWrapper: () => isWrapper,
      table: async (): Promise<ProcessTable> => new Map(this.rows),
      stat: async (pid: number) => this.rows.get(pid),
      signal: (target: number, sig: NodeJS.Signals) => {
        const now = this.rows.get(Math.abs(target));
        this.signals.push(`${sig} ${target}${now && target > 0 ? `@${now.start}` : ''}`);
        if (target > 0 && (sig === 'SIGKILL' || (sig === 'SIGTERM' && !this.ignoresTerm.has(target)))) this.rows.delete(target);
      },
    };
  }
}

describe('task kill (injected process table)', () => {
  it('a pid that ended during the grace and went to an unrelated process is neither frozen nor killed', async () => {
    const host = new FakeHost();
    const wrapper = p(W, 1, 5);
    host.set(wrapper, p(101, W, 10), p(102, 101, 11, { pgid: 102, sid: 102 }), p(103, 101, 12));
    host.ignoresTerm = new Set([101, 102]);
    const outcome = await killTaskProcesses(
      W,
      host.deps(() => {
        // 102 ends; an unrelated program gets pid 102 (another start time, its own session, not under the wrapper).
        host.rows.delete(102);
        host.rows.set(102, p(102, 1, 50, { pgid: 102, sid: 102 }));
      }),
    );
    assert.deepEqual(host.signals, ['SIGTERM 101@10', 'SIGTERM 103@12', 'SIGTERM 102@11', 'SIGTERM -100', 'SIGSTOP 101@10', 'SIGKILL 101@10']);
    assert.equal(host.rows.get(102)?.start, 50, 'the unrelated process still runs');
    assert.ok(host.rows.has(W), 'the wrapper was left to record the end');
    assert.deepEqual(outcome, { stopped: 3, survivors: [] }, '101, 103 and the old 102 (it ended after its SIGTERM)');
  });

  it('freezes what forks during the freeze until nothing new appears, then kills it all; escaped members are found by group and session', async () => {
    const host = new FakeHost();
    host.set(p(W, 1, 5), p(101, W, 10), p(200, 1, 11, { pgid: W, sid: W }));
    host.ignoresTerm = new Set([101, 200]);
    const deps = host.deps(() => undefined);
    let forks = 0;
    const signal = deps.signal;
    deps.signal = (target, sig) => {
      signal(target, sig);
      // 101 forks once more between the scan that found it and its SIGSTOP.
      if (sig === 'SIGSTOP' && target === 101 && forks++ === 0) host.rows.set(104, p(104, 101, 20, { pgid: 104, sid: 104 }));
    };
    const outcome = await killTaskProcesses(W, deps);
    assert.deepEqual(
      host.signals.filter((s) => !s.startsWith('SIGTERM')),
      ['SIGSTOP 101@10', 'SIGSTOP 200@11', 'SIGSTOP 104@20', 'SIGKILL 101@10', 'SIGKILL 200@11', 'SIGKILL 104@20'],
    );
    assert.deepEqual([...host.rows.keys()], [W]);
    assert.deepEqual(outcome, { stopped: 3, survivors: [] });
  });

  it('one that SIGKILL does not end is reported, not counted as stopped', async () => {
    const host = new FakeHost();
    host.set(p(W, 1, 5), p(101, W, 10), p(102, W, 11));
    host.ignoresTerm = new Set([101]);
    const deps = host.deps(() => undefined);
    const signal = deps.signal;
    deps.signal = (target, sig) => (target === 101 && sig === 'SIGKILL' ? host.signals.push('SIGKILL 101 refused') : signal(target, sig));
    const outcome = await killTaskProcesses(W, deps);
    assert.deepEqual({ stopped: outcome.stopped, survivors: outcome.survivors.map((s) => s.pid) }, { stopped: 1, survivors: [101] });
  });

  it('when another process holds the wrapper’s pid, nothing bearing that pid as group or session is the task’s', () => {
    const table: ProcessTable = new Map([p(W, 1, 90, { pgid: W, sid: W }), p(101, W, 91)].map((q) => [q.pid, q]));
    assert.deepEqual(taskMembers(table, W, false), []);
    assert.deepEqual(taskMembers(table, W, true).map((q) => q.pid), [101]);
    // The wrapper is gone: what still bears its group or session is the task's (the id cannot have been reused).
    const orphans: ProcessTable = new Map([p(101, 1, 91), p(102, 1, 92, { pgid: 102, sid: 102 })].map((q) => [q.pid, q]));
    assert.deepEqual(taskMembers(orphans, W, false).map((q) => q.pid), [101]);
  });

  it('a wrapper that ended as the table was read (a zombie, or gone by the check) still leads its group: a TERM-deaf member is killed', async () => {
    const host = new FakeHost();
    // The wrapper recorded the command's end and exited; its parent has not reaped it yet. Its group's 101 ignores TERM.
    host.set(p(W, 1, 5, { state: 'Z' }), p(101, 1, 10));
    host.ignoresTerm = new Set([101]);
    const deps = { ...host.deps(() => undefined), isWrapper: (entry: ProcessInfo) => isWrapperEntry(entry, startTimeKey(5), () => false) };
    const outcome = await killTaskProcesses(W, deps);
    assert.deepEqual(host.signals, ['SIGTERM 101@10', 'SIGTERM -100', 'SIGSTOP 101@10', 'SIGKILL 101@10']);
    assert.deepEqual({ stopped: outcome.stopped, survivors: outcome.survivors }, { stopped: 1, survivors: [] });
  });

  it('the wrapper entry is judged by the start recorded, not by a live look that a zombie fails', () => {
    const gone = () => false;
    assert.equal(isWrapperEntry(p(W, 1, 5, { state: 'Z' }), startTimeKey(5), gone), true);
    assert.equal(isWrapperEntry(p(W, 1, 5), startTimeKey(5), gone), true, 'ended since the table was read');
    assert.equal(isWrapperEntry(p(W, 1, 6), startTimeKey(5), () => true), false, 'the pid went to another process');
    assert.equal(isWrapperEntry(p(W, 1, 6, { state: 'Z' }), undefined, gone), true, 'no start recorded: a zombie pid is not reused');
    assert.equal(isWrapperEntry(p(W, 1, 6), undefined, gone), false);
  });
});
