// Checkpoints kept, not taken, on large folders (figures, not assertions): a folder's first snapshot (in the
// background), its watcher's cost (folders watched, memory, CPU of a burst of events), what a turn's start costs
// the turn (begin() returns before anything is read), and the marks a turn's start and end then take, with 0 and
// 10 files changed. VIGIL_BENCH_FILES=20000,200000 picks the sizes (default 20,000; made once under the temp folder).

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { systemClock } from '../src/extension/core/ports/clock';
import { silentLogger } from '../src/extension/core/ports/logger';
import { CheckpointStore, vigilOwnFolders } from '../src/extension/core/checkpoints/checkpointStore';
import { FolderKeeper } from '../src/extension/core/checkpoints/folderKeeper';
import { FolderWatcher } from '../src/extension/core/checkpoints/folderWatcher';
import { TurnCheckpoints } from '../src/extension/core/checkpoints/turnCheckpoints';
import { bigWorkspace } from './support/bigWorkspace';

const RUNS = 15;
const load = () => `load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`;
const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const ms = (values: number[]) => `p50 ${pct(values, 0.5).toFixed(1)}, p99 ${pct(values, 0.99).toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function touch(folder: string, count: number, round: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const n = (round * 7_919 + i * 104_729) % 10_000;
    const file = path.join(folder, `pkg0`, `mod${Math.floor(n / 100) % 50}`, `file${n % 100}.ts`);
    await fs.writeFile(file, `// touched ${round} ${i}\n`);
  }
}

async function bench(files: number): Promise<void> {
  const folder = bigWorkspace(files);
  const storage = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-kept-'));
  const store = new CheckpointStore({ storageRoot: storage, folder, logger: silentLogger });
  const watcher = new FolderWatcher({ folder, logger: silentLogger, never: vigilOwnFolders(storage), ignoredDirs: (dirs) => store.ignoredDirs(dirs) });
  const keeper = new FolderKeeper({ store, changes: watcher, clock: systemClock, logger: silentLogger });
  try {
    global.gc?.();
    const rss0 = process.memoryUsage();
    const first = await timed(() => keeper.prepare());
    global.gc?.();
    const rss1 = process.memoryUsage();
    console.log(`${files} files: first snapshot (in the background, the turn does not wait): ${first.toFixed(0)} ms; ${watcher.watchedCount} folders watched, host RSS +${mb(rss1.rss - rss0.rss)}, heap +${mb(rss1.heapUsed - rss0.heapUsed)} (${load()})`);

    const turns = new TurnCheckpoints({ storageRoot: storage, clock: systemClock, logger: silentLogger, folderOf: () => Promise.resolve(folder), records: () => Promise.resolve([]), changesFor: () => watcher });
    const begins: number[] = [];
    for (let r = 0; r < RUNS; r += 1) {
      const t0 = performance.now();
      const checkpoint = turns.begin('s', `b${r}`);
      begins.push(performance.now() - t0);
      await checkpoint.finish();
    }
    console.log(`${files} files: turn start → begin() returned (what the prompt waits for): ${ms(begins)} (${load()})`);

    for (const changed of [0, 10]) {
      const before: number[] = [];
      const after: number[] = [];
      for (let r = 0; r < RUNS; r += 1) {
        await touch(folder, changed, r);
        before.push(await timed(() => keeper.mark(`t${changed}-${r}/before`, Date.now())));
        await touch(folder, changed, r + 1_000);
        after.push(await timed(() => keeper.mark(`t${changed}-${r}/after`)));
      }
      console.log(`${files} files, ${changed} changed between turns and ${changed} by the turn: before-turn mark (off the path) ${ms(before)}; after-turn mark (in the turn's end) ${ms(after)} (${load()})`);
    }

    const cpu0 = process.cpuUsage();
    await touch(folder, 2_000, 77);
    await watcher.settled();
    await watcher.sorted();
    const cpu = process.cpuUsage(cpu0);
    const burst = await timed(() => keeper.mark('burst/after'));
    console.log(`${files} files: a burst of 2,000 writes (a build): host CPU for writing them and their events ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms; the next mark ${burst.toFixed(0)} ms (${load()})`);
    turns.dispose();
  } finally {
    keeper.dispose();
    await fs.rm(storage, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const sizes = (process.env.VIGIL_BENCH_FILES ?? '20000').split(',').map(Number).filter((n) => n > 0);
  for (const files of sizes) await bench(files);
}

void main();
