// Calls back when a folder changes: fs.watch for promptness, plus a slow poll because watches miss
// events (network and container file systems, a folder recreated under the watch) and may fail outright.

import { watch, type FSWatcher } from 'node:fs';
import type { Clock, TimerHandle } from '../ports/clock';
import { CoalescingRun } from '../common/coalescingRun';

export interface DirWatchOptions {
  dirs: readonly string[];
  clock: Clock;
  /** Fallback poll interval (ms). */
  pollMs: number;
  /** Runs on a change or a poll tick; calls never overlap, a change during a run runs it once more. */
  onChange(): Promise<void>;
  onError?(error: unknown): void;
}

export class DirWatch {
  private readonly watchers: FSWatcher[] = [];
  private timer: TimerHandle | undefined;
  private disposed = false;
  private readonly runner: CoalescingRun;

  constructor(private readonly o: DirWatchOptions) {
    this.runner = new CoalescingRun(
      async () => {
        if (this.disposed) return;
        try {
          await o.onChange();
        } catch (error) {
          o.onError?.(error);
        }
      },
      () => this.disposed,
    );
    for (const dir of o.dirs) {
      try {
        const watcher = watch(dir, { persistent: false }, () => this.onEvent());
        watcher.on('error', () => undefined);
        this.watchers.push(watcher);
      } catch {
        // The folder may not exist yet: the poll covers it.
      }
    }
    this.schedule();
  }

  /** Runs the callback soon (coalesced with any run already due); resolves when that pass is done. */
  kick(): Promise<void> {
    return this.disposed ? Promise.resolve() : this.runner.request();
  }

  private onEvent(): void {
    void this.kick();
  }

  dispose(): void {
    this.disposed = true;
    this.timer?.cancel();
    for (const watcher of this.watchers) watcher.close();
  }

  private schedule(): void {
    if (this.disposed) return;
    this.timer = this.o.clock.setTimer(this.o.pollMs, () => {
      void this.kick();
      this.schedule();
    });
  }
}
