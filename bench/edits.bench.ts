// Edit figures: what a write costs the host for its diff: the capture of the content before (2 MB file), the +/−
// count of a one-line change in it, a count at the LCS budget's fallback, and a whole write through the journal.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { captureBefore } from '../src/extension/core/acp/editCapture';
import { EditJournal } from '../src/extension/core/acp/editJournal';
import { locatePath } from '../src/extension/core/acp/workspaceBoundary';
import { countLineChanges } from '../src/shared/lineDiff';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function timed(runs: number, fn: () => Promise<unknown> | unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-edits-'));
  try {
    const lines = Array.from({ length: 40_000 }, (_, i) => `const value${i} = ${i}; // some source text`);
    const before = `${lines.join('\n')}\n`.slice(0, 1_990_000);
    await fs.writeFile(path.join(dir, 'big.ts'), before);
    const where = await locatePath(dir, 'big.ts');
    const capture = await timed(30, () => captureBefore(where, 2_000_000));
    console.log(`edit capture, 2 MB file before a write (p50 / p99 of ${capture.length}): ${percentile(capture, 50).toFixed(2)} / ${percentile(capture, 99).toFixed(2)} ms`);

    const after = before.replace('const value20000 = 20000;', 'const value20000 = 42;');
    const oneLine = await timed(30, () => countLineChanges(before, after));
    console.log(`edit +/− count, one changed line in a 2 MB file (p50 / p99): ${percentile(oneLine, 50).toFixed(2)} / ${percentile(oneLine, 99).toFixed(2)} ms`);

    const rewritten = lines.slice(0, 2_000).reverse().join('\n');
    const fallback = await timed(10, () => countLineChanges(lines.slice(0, 2_000).join('\n'), rewritten));
    console.log(`edit +/− count, 2,000 lines rewritten (past the LCS budget, p50 / p99): ${percentile(fallback, 50).toFixed(2)} / ${percentile(fallback, 99).toFixed(2)} ms`);

    const journal = new EditJournal();
    const turn = {};
    const side = await captureBefore(where, 2_000_000);
    const write = await timed(30, () => journal.commit(journal.propose('s', dir, where.real, side!, after), turn));
    console.log(`edit journal, propose + commit of a 2 MB write (p50 / p99): ${percentile(write, 50).toFixed(2)} / ${percentile(write, 99).toFixed(2)} ms; kept ${(journal.keptChars / 1e6).toFixed(1)} M chars (cap 32)`);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

void main();
