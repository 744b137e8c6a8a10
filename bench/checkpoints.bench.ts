// Checkpoints: snapshot of a 10,000-file workspace (first, unchanged, 100 files changed) and restore of one
// turn's 100 changed files, through the real git binary (figures, not assertions).

import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { silentLogger } from '../src/extension/core/ports/logger';
import { CheckpointStore } from '../src/extension/core/checkpoints/checkpointStore';
import { applyRestore, planRestore } from '../src/extension/core/checkpoints/restore';

const FILES = 10_000;
const CHANGED = 100;
const RUNS = 5;

const fileOf = (folder: string, i: number) => path.join(folder, `pkg${Math.floor(i / 100)}`, `module${i % 100}.ts`);
const source = (i: number, version: number) => `// module ${i} v${version}\n${Array.from({ length: 30 }, (_, l) => `export const value${l} = ${i * 31 + l + version};`).join('\n')}\n`;

/** CPU time of this process and its finished children (git), in ms: on a shared machine the wall time mostly waits for a core. */
function cpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0); // utime stime cutime cstime
  return ticks * 10;
}

let cpu: number[] = [];

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const c0 = cpuMs();
  const t0 = performance.now();
  const value = await fn();
  cpu.push(cpuMs() - c0);
  return { ms: performance.now() - t0, value };
}

/** The median CPU time of the runs timed since the last call. */
function cpuOf(): string {
  const value = median(cpu);
  cpu = [];
  return `${value} ms CPU`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-cp-'));
  const folder = path.join(root, 'workspace');
  try {
    let bytes = 0;
    for (let d = 0; d < FILES / 100; d += 1) await fs.mkdir(path.join(folder, `pkg${d}`), { recursive: true });
    for (let i = 0; i < FILES; i += 1) {
      const text = source(i, 0);
      bytes += text.length;
      await fs.writeFile(fileOf(folder, i), text);
    }
    await fs.writeFile(path.join(folder, '.gitignore'), 'node_modules/\ndist/\n');
    const store = new CheckpointStore({ storageRoot: path.join(root, 'storage'), folder, logger: silentLogger });
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
    const first = await timed(() => store.snapshot('first/before'));
    console.log(`checkpoint of a ${FILES}-file workspace (${(bytes / 1024 / 1024).toFixed(1)} MB), first (empty store): ${first.ms.toFixed(0)} ms (${cpuOf()}), store ${(await store.storeBytes() / 1024 / 1024).toFixed(1)} MB`);

    const unchanged: number[] = [];
    for (let r = 0; r < RUNS; r += 1) unchanged.push((await timed(() => store.snapshot(`same${r}/before`))).ms);
    console.log(`checkpoint of the same workspace, nothing changed (a turn's usual before/after): ${median(unchanged).toFixed(0)} ms median of ${RUNS} (${cpuOf()})`);

    const changedMs: number[] = [];
    const planMs: number[] = [];
    const restoreMs: number[] = [];
    const cpus = { changed: [] as number[], restore: [] as number[] };
    for (let r = 1; r <= RUNS; r += 1) {
      const before = await store.snapshot(`turn${r}/before`);
      for (let i = 0; i < CHANGED; i += 1) await fs.writeFile(fileOf(folder, i * 97), source(i * 97, r));
      const after = await timed(() => store.snapshot(`turn${r}/after`));
      changedMs.push(after.ms);
      cpus.changed.push(cpu.pop()!);
      const plan = await timed(() => planRestore(store, before.tree, after.value.tree));
      planMs.push(plan.ms);
      const restored = await timed(() => applyRestore(store, plan.value, new Set()));
      if (restored.value.restored.length !== CHANGED) throw new Error(`restored ${restored.value.restored.length} of ${CHANGED}`);
      restoreMs.push(restored.ms);
      cpus.restore.push(cpu.pop()! + cpu.pop()!);
    }
    console.log(`checkpoint after a turn changed ${CHANGED} of ${FILES} files: ${median(changedMs).toFixed(0)} ms median of ${RUNS} (${median(cpus.changed)} ms CPU)`);
    console.log(`restore of ${CHANGED} files: ${median(planMs).toFixed(0)} ms preview (diff and changed-since check) + ${median(restoreMs).toFixed(0)} ms writing = ${(median(planMs) + median(restoreMs)).toFixed(0)} ms median of ${RUNS} (${median(cpus.restore)} ms CPU)`);
    console.log(`checkpoint store after ${2 + RUNS * 2 + RUNS} checkpoints: ${(await store.storeBytes() / 1024 / 1024).toFixed(1)} MB`);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

void main();
