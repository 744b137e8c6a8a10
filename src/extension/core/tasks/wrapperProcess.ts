// Recognises a task's wrapper process after a reload, so a recycled pid is never mistaken for it.

import { readFileSync } from 'node:fs';
import { isAlive, startTimeKey } from '../common/processTree';
import type { ProcessInfo } from '../supervisor/processTable';

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

/**
 * Whether a process table's entry at a task's wrapper pid is that wrapper. By the start recorded when it was
 * started: that holds for an entry read just before the wrapper ended (it records the end, then exits while
 * TERM-deaf members of its group may live on), where a live look would see a zombie or nothing, and a kill
 * would miss the group. With no start recorded, a zombie's pid is not given out again: still the wrapper's.
 */
export function isWrapperEntry(entry: ProcessInfo, recordedStart: string | undefined, alive: () => boolean): boolean {
  if (recordedStart !== undefined) return recordedStart === startTimeKey(entry.start);
  return entry.state === 'Z' || alive();
}
