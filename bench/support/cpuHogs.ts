// Keeps every core busy for the length of a measurement, as on a loaded CI machine or a laptop building.

import { spawn, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';

/** The 1-minute load average and the core count, to print beside a figure measured under load. */
export function loadNote(): string {
  return `load ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`;
}

/**
 * Runs `measure` with one busy-looping process per core (plain `sh` loops, at the same priority as
 * the bench); the hogs are started before and killed after it, by their own pids.
 */
export async function withCpuHogs<T>(measure: () => Promise<T>): Promise<T> {
  const hogs: ChildProcess[] = [];
  for (let i = 0; i < os.availableParallelism(); i += 1) hogs.push(spawn('/bin/sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  try {
    // Let the scheduler see them running before the first sample.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return await measure();
  } finally {
    for (const hog of hogs) hog.kill('SIGKILL');
  }
}
