// Killing an agent's whole process tree: the one step of an abort that needs no cooperation.

import treeKill from 'tree-kill';

/**
 * Kills `pid` and every descendant with SIGKILL: the tree by parentage (tree-kill), then the
 * process group agents are spawned in (which also reaches members the walk missed).
 */
export async function killProcessTree(pid: number): Promise<void> {
  // Walk the tree while it is intact (a dead parent's children get re-parented out of reach).
  await new Promise<void>((resolve) => {
    treeKill(pid, 'SIGKILL', () => resolve());
  });
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (error) {
    // ESRCH: the group is already gone (or pid was no group leader); the tree walk above covered it.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
