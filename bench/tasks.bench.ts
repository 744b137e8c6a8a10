// Registry memory with 100 running background tasks (extension-host heap and RSS; the wrappers' RSS reported apart).

import { readFileSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { TaskRegistry } from '../src/extension/core/tasks/taskRegistry';
import { loadNote } from './support/cpuHogs';
import { benchWrapper } from './support/wrapperChoice';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Proportional set size: shared pages (the Node binary) counted once across the processes that share them. */
function pssKb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').split('\n').find((l) => l.startsWith('Pss:'));
    return line ? Number(line.split(/\s+/)[1]) : 0;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-tasks-'));
  const workspace = path.join(root, 'workspace');
  await fs.mkdir(workspace);
  const registry = await TaskRegistry.open({ storageRoot: root, workspaceFolder: () => workspace, shell: '/bin/sh', wrapper: benchWrapper(), onCompletion: async () => undefined, killGraceMs: 1_000 });
  try {
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const rssBefore = process.memoryUsage().rss;
    const ids: string[] = [];
    const started = performance.now();
    for (let i = 0; i < 100; i += 1) {
      // Each task prints a little and then runs on, as a dev server or a watcher would.
      const { terminalId } = await registry.create({ sessionId: `s-${i % 5}`, command: `seq 1 200; echo task-${i} up; exec sleep 600`, background: true });
      ids.push(terminalId);
    }
    const spawnMs = performance.now() - started;
    // Wait until every task's output reached the registry.
    for (;;) {
      const tasks = registry.list();
      if (tasks.every((t) => t.output.includes(' up'))) break;
      await new Promise<void>((resolve) => setTimeout(resolve, 50));
    }
    gc();
    const heap = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
    const rss = (process.memoryUsage().rss - rssBefore) / 1e6;
    const wrappers = registry.list().reduce((sum, t) => sum + (t.pid ? pssKb(t.pid) : 0), 0) / 1024;
    const load = loadNote();
    console.log(`registry heap with 100 running tasks: ${heap.toFixed(2)} MB (${load})`);
    console.log(`extension host rss growth with 100 running tasks: ${rss.toFixed(1)} MB (${load})`);
    console.log(`task wrappers pss with 100 running tasks (separate processes): ${wrappers.toFixed(0)} MB (${load})`);
    // The bar's figure: what one more running task costs, its wrapper and its share of the host.
    console.log(`memory per running background task (wrapper pss + host rss growth, / 100): ${((wrappers + rss) / 100).toFixed(2)} MB (${load})`);
    console.log(`task create (spawn) mean: ${(spawnMs / 100).toFixed(1)} ms (${load})`);
    const killStart = performance.now();
    await Promise.all(ids.map((id) => registry.kill(id)));
    console.log(`kill 100 task trees: ${(performance.now() - killStart).toFixed(0)} ms (${loadNote()})`);
  } finally {
    await registry.close();
    await fs.rm(root, { recursive: true, force: true, maxRetries: 5 });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
