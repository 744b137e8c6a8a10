// Killing an agent's whole process tree: the one step of an abort that needs no cooperation.

import { readdirSync, readFileSync } from 'node:fs';
import treeKill from 'tree-kill';

/**
 * Kills `pid` and every descendant with SIGKILL. The group (agents get their own) is frozen
 * first so nothing forks while the tree is read; on Linux the tree comes from /proc without
 * spawning anything (spawning `ps` costs hundreds of ms on a loaded host), elsewhere tree-kill walks it.
 */
export async function killProcessTree(pid: number): Promise<void> {
  signal(-pid, 'SIGSTOP');
  const descendants = descendantsFromProc(pid);
  if (descendants === undefined) {
    await new Promise<void>((resolve) => treeKill(pid, 'SIGKILL', () => resolve()));
  } else {
    for (const child of descendants) signal(child, 'SIGKILL');
    signal(pid, 'SIGKILL');
  }
  signal(-pid, 'SIGKILL');
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(target: number, name: NodeJS.Signals): void {
  try {
    process.kill(target, name);
  } catch (error) {
    // ESRCH: already gone (or no such group); anything else is a real failure to report.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Every descendant of `root` by parent pid, from /proc; undefined where /proc is not available. */
function descendantsFromProc(root: number): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const children = new Map<number, number[]>();
  for (const name of entries) {
    const ppid = parentOf(Number(name));
    if (ppid === undefined) continue;
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces and parentheses: fields resume after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}
