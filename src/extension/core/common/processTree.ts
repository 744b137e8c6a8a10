// Process trees on this host: liveness, descendants (also those that left the process group),
// signalling a tree, and killing one outright. Agents and background tasks both lead their own group.

import { execFile } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import treeKill from 'tree-kill';

/** True while `pid` exists and is not a zombie (a zombie has exited; only its parent has not reaped it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state letter follows the parenthesised command name, which may itself contain spaces.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    return true;
  }
}

/** The process table as child → parent; injectable so a test can make the scan fail mid-kill. */
export type ProcessScan = () => Promise<Map<number, number>>;

/** Every descendant of `root` (children, grandchildren…), including those that left its process group. */
export async function listDescendants(root: number, scan: ProcessScan = processParents): Promise<number[]> {
  const parents = await scan();
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const out: number[] = [];
  const queue = [root];
  const seen = new Set<number>(queue);
  while (queue.length > 0) {
    const next = queue.shift() as number;
    for (const child of children.get(next) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/**
 * Signals the process group led by `groupLeader` and every listed pid; missing processes are fine.
 * One failing signal does not spare the others; the first unexpected failure is thrown at the end.
 */
export function signalTree(groupLeader: number, pids: Iterable<number>, signal: NodeJS.Signals): void {
  let failure: unknown;
  for (const target of [-groupLeader, ...pids]) {
    try {
      trySignal(target, signal);
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}

/**
 * When `pid` started, as an opaque token that differs for a recycled pid: boot id plus start ticks
 * from /proc. `undefined` where that cannot be known (not Linux, no such process, unreadable /proc).
 */
export function processStartTime(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime); the fields after the parenthesised name start at field 3.
    const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    if (!ticks) return undefined;
    return startTimeKey(ticks);
  } catch {
    return undefined;
  }
}

/** A process's start as `processStartTime` records it, from the start ticks a process table read. */
export function startTimeKey(ticks: number | string): string {
  return `${bootId()}:${ticks}`;
}

let cachedBootId: string | undefined;
function bootId(): string {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      cachedBootId = '';
    }
  }
  return cachedBootId;
}

/**
 * Kills the group led by `pid` and every descendant with SIGKILL: the one step of an abort that
 * needs no cooperation. The group is frozen first so nothing forks while the tree is read; whatever
 * fails after the freeze (the scan, a signal), the kill still ends in SIGKILL of the group and of
 * every pid found, so a failure can never leave the agent stopped instead of dead. A scan failure
 * is rethrown after that, so the caller can say that escaped descendants may survive.
 */
export async function killProcessTree(pid: number, options: { scan?: ProcessScan } = {}): Promise<void> {
  if (process.platform === 'win32') {
    await new Promise<void>((resolve) => treeKill(pid, 'SIGKILL', () => resolve()));
    return;
  }
  const found = new Set<number>([pid]);
  try {
    trySignal(-pid, 'SIGSTOP');
    for (const p of await listDescendants(pid, options.scan)) found.add(p);
  } finally {
    signalTree(pid, found, 'SIGKILL');
  }
}

/** One scan of the process table at a time; concurrent kills (100 tasks at once) share it instead of exhausting file handles. */
let scanning: Promise<Map<number, number>> | undefined;

function processParents(): Promise<Map<number, number>> {
  scanning ??= scanProcesses().finally(() => {
    scanning = undefined;
  });
  return scanning;
}

async function scanProcesses(): Promise<Map<number, number>> {
  const map = new Map<number, number>();
  if (process.platform === 'linux') {
    // /proc needs no child process: spawning `ps` costs hundreds of ms on a loaded host.
    const entries = (await fs.readdir('/proc')).filter((e) => /^\d+$/.test(e));
    // Bounded parallelism: a few dozen open files at a time, never one per process.
    for (let i = 0; i < entries.length; i += 32) {
      await Promise.all(
        entries.slice(i, i + 32).map(async (e) => {
          try {
            const stat = await fs.readFile(`/proc/${e}/stat`, 'utf8');
            const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
            map.set(Number(e), Number(fields[1]));
          } catch (error) {
            // The process ended while we listed /proc: it has no descendants left to signal.
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
          }
        }),
      );
    }
    return map;
  }
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid='], (error, out) => (error ? reject(error) : resolve(out)));
  });
  for (const line of stdout.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (Number.isInteger(pid) && Number.isInteger(ppid)) map.set(pid, ppid);
  }
  return map;
}

function trySignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ESRCH: already gone. EPERM: not ours (a recycled pid); never escalate against it.
    if (code !== 'ESRCH' && code !== 'EPERM') throw error;
  }
}
