// Recognises a task's wrapper process after a reload, so a recycled pid is never mistaken for it.

import { readFileSync } from 'node:fs';
import { isAlive } from '../common/processTree';

/** Whether `pid` is still the wrapper of `taskId` (guards against a recycled pid after a reboot). */
export function isTaskWrapper(pid: number, taskId: string): boolean {
  if (!isAlive(pid)) return false;
  if (process.platform !== 'linux') return true;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(taskId);
  } catch (error) {
    // Unreadable /proc (hardened kernels): liveness alone has to do.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}
