// Gives memory back when the agent goes idle: one process lives per active session, so an idle
// agent's footprint counts (bar: 80 MB RSS). A full GC a moment after the last turn ends lets V8
// shrink its heap; without it, the young generation and parse caches of the turn stay resident.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { log } from './log';

const idleDelayMs = 1_500;

function loadGc(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch (error) {
    log('debug', `no gc() available, idle memory is left to V8 (${(error as Error).message})`);
    return undefined;
  }
}

export class IdleMemory {
  private readonly gc = loadGc();
  private timer: NodeJS.Timeout | undefined;
  private busy = 0;

  turnStarted(): void {
    this.busy += 1;
    clearTimeout(this.timer);
  }

  turnEnded(): void {
    this.busy = Math.max(0, this.busy - 1);
    if (this.busy > 0 || !this.gc) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.busy === 0) this.gc?.();
    }, idleDelayMs);
    this.timer.unref();
  }
}
