// Watchers for checkpoint tests: one the test drives (reporting late on demand), and the real one, counted.

import { silentLogger } from '../../../src/extension/core/ports/logger';
import type { CheckpointStore } from '../../../src/extension/core/checkpoints/checkpointStore';
import { FolderWatcher, type FolderChanges } from '../../../src/extension/core/checkpoints/folderWatcher';

/** A watcher the test drives: changes are reported when the test says, or late (at the next settle). */
export class ManualChanges implements FolderChanges {
  private changed = new Set<string>();
  private late: string[] = [];
  takes = 0;
  startGate: Promise<void> = Promise.resolve();
  settleGate: Promise<void> = Promise.resolve();
  start(): Promise<void> {
    return this.startGate;
  }
  take(): Set<string> {
    this.takes += 1;
    const taken = this.changed;
    this.changed = new Set();
    return taken;
  }
  peek(): ReadonlySet<string> {
    return this.changed;
  }
  async settled(): Promise<void> {
    await this.settleGate;
    for (const p of this.late) this.changed.add(p);
    this.late = [];
  }
  report(p: string): void {
    this.changed.add(p);
  }
  /** Reported only when a checkpoint asks the watcher to settle: a watcher that lags. */
  reportLate(p: string): void {
    this.late.push(p);
  }
  dispose(): void {}
}


/** The real watcher of `folder`, telling `onTake` each time a checkpoint takes its changes (a mark has begun). */
export function countingWatcher(folder: string, store: CheckpointStore, onTake: () => void): FolderWatcher {
  const watcher = new FolderWatcher({ folder, logger: silentLogger, never: [], ignoredDirs: (dirs) => store.ignoredDirs(dirs) });
  const take = watcher.take.bind(watcher);
  watcher.take = () => {
    onTake();
    return take();
  };
  return watcher;
}
