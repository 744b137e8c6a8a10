// Kills one task's processes and counts them truthfully. A task's processes are its wrapper's descendants
// (on Linux the Perl wrapper is their child subreaper: a double-forked `setsid` daemon stays one of them)
// and the members of the group and session its wrapper leads. SIGTERM first; after the grace the whole set
// is frozen (SIGSTOP) until no new member appears, then SIGKILLed, so nothing forks its way out between a
// scan and a kill. Every process is named by its pid and start time: one whose pid changed hands is left
// alone. The wrapper itself is only sent the group's SIGTERM: it lives to record how the command ended.

import type { Clock } from '../ports/clock';
import { identityOf, readProcessTable, statOf, type ProcessInfo, type ProcessTable } from '../supervisor/processTable';

export interface TaskKillOutcome {
  /** How many of the task's processes (the wrapper aside) were signalled and are gone. */
  stopped: number;
  /** Those still there after SIGKILL (e.g. owned by another user, or stuck in the kernel). */
  survivors: ProcessInfo[];
}

export interface TaskKillDeps {
  clock: Clock;
  graceMs: number;
  /** Resolves true once the task's end is recorded, false after `ms`. */
  exitWithin(ms: number): Promise<boolean>;
  /**
   * Whether the table's entry at the wrapper's pid is the task's wrapper. Judged by the entry as read: the
   * wrapper may end (a zombie, then gone) between the read and this call, and its group must still be found.
   */
  isWrapper(entry: ProcessInfo): boolean;
  table?(): Promise<ProcessTable>;
  stat?(pid: number): Promise<ProcessInfo | undefined>;
  signal?(target: number, signal: NodeJS.Signals): void;
  /** How long SIGKILLed processes get to be gone (default 2 s). */
  goneWithinMs?: number;
}

/** Rounds of freezing before the kill; each stops everything found, so only a fork already under way adds more. */
const FREEZE_ROUNDS = 64;

/** The task's live processes in `table`: the wrapper's descendants and its group's and session's members. */
export function taskMembers(table: ProcessTable, wrapperPid: number, wrapperIsOurs: boolean): ProcessInfo[] {
  const wrapper = table.get(wrapperPid);
  // A pid is not given out again while a group or session still bears it: if another process holds it,
  // whatever bears that id is the new holder's, not the task's.
  if (wrapper && !wrapperIsOurs) return [];
  const children = new Map<number, ProcessInfo[]>();
  for (const p of table.values()) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const out = new Map<number, ProcessInfo>();
  const queue = wrapper ? [wrapperPid] : [];
  for (const p of table.values()) if (p.pid !== wrapperPid && (p.pgid === wrapperPid || p.sid === wrapperPid)) queue.push(p.pid);
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    const info = table.get(pid);
    if (pid !== wrapperPid && info && !out.has(pid)) out.set(pid, info);
    for (const child of children.get(pid) ?? []) if (!out.has(child.pid)) queue.push(child.pid);
  }
  return [...out.values()].filter((p) => p.state !== 'Z' && p.pid > 1);
}

/** SIGTERM, the grace, then freeze and SIGKILL: see the module comment. Never throws for a process that is gone. */
export async function killTaskProcesses(wrapperPid: number, deps: TaskKillDeps): Promise<TaskKillOutcome> {
  const table = deps.table ?? readProcessTable;
  const stat = deps.stat ?? statOf;
  const signal = deps.signal ?? trySignal;
  const members = async () => {
    const t = await table();
    const entry = t.get(wrapperPid);
    const wrapperOurs = entry !== undefined && deps.isWrapper(entry);
    return { list: taskMembers(t, wrapperPid, wrapperOurs), wrapperOurs };
  };
  const signalled = new Map<string, ProcessInfo>();
  const first = await members();
  for (const p of first.list) {
    if (!(await same(p, stat))) continue;
    signal(p.pid, 'SIGTERM');
    signalled.set(identityOf(p), p);
  }
  // Then the group's: it tells the wrapper that a kill is under way (each member above was seen alive first).
  if (first.wrapperOurs) signal(-wrapperPid, 'SIGTERM');
  await deps.exitWithin(deps.graceMs);
  const frozen = new Map<string, ProcessInfo>();
  try {
    for (let round = 0; round < FREEZE_ROUNDS; round += 1) {
      const { list } = await members();
      const earlier = [...signalled.values()].filter((p) => !list.some((q) => identityOf(q) === identityOf(p)));
      const fresh = [...list, ...earlier].filter((p) => !frozen.has(identityOf(p)));
      let added = false;
      for (const p of fresh) {
        if (!(await same(p, stat))) continue;
        signal(p.pid, 'SIGSTOP');
        frozen.set(identityOf(p), p);
        signalled.set(identityOf(p), p);
        added = true;
      }
      if (!added) break;
    }
  } finally {
    // Frozen processes cannot end or fork by themselves: each pid still names the process frozen.
    for (const p of frozen.values()) signal(p.pid, 'SIGKILL');
  }
  const survivors = await stillThere([...signalled.values()], stat, deps);
  return { stopped: signalled.size - survivors.length, survivors };
}

/** Those of `procs` still running after a bounded wait (SIGKILL is delivered asynchronously). */
async function stillThere(procs: ProcessInfo[], stat: (pid: number) => Promise<ProcessInfo | undefined>, deps: TaskKillDeps): Promise<ProcessInfo[]> {
  const deadline = deps.clock.now() + (deps.goneWithinMs ?? 2_000);
  let left = procs;
  for (;;) {
    const alive = await Promise.all(left.map((p) => same(p, stat)));
    left = left.filter((_, i) => alive[i]);
    if (left.length === 0 || deps.clock.now() >= deadline) return left;
    await new Promise<void>((resolve) => deps.clock.setTimer(10, resolve));
  }
}

async function same(info: ProcessInfo, stat: (pid: number) => Promise<ProcessInfo | undefined>): Promise<boolean> {
  const now = await stat(info.pid);
  return !!now && identityOf(now) === identityOf(info) && now.state !== 'Z';
}

function trySignal(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // ESRCH: already gone. EPERM: not ours to signal; it is reported as a survivor if it stays.
  }
}
