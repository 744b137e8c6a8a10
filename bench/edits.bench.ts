// Edit figures: what a write costs the host for its diff: the capture of the content before (2 MB file), the +/−
// count of a one-line change in it, a count at the LCS budget's fallback, a whole write through the journal, and the
// heap that 150 writes of 1.9 MB waiting for review (`vigil.edits.review: "ask"`) hold.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { captureBefore } from '../src/extension/core/acp/editCapture';
import { EditJournal } from '../src/extension/core/acp/editJournal';
import { writeWithDiff } from '../src/extension/core/acp/editWrites';
import type { PermissionAnswer } from '../src/extension/core/acp/hostPorts';
import { PermissionGate } from '../src/extension/core/acp/permissionGate';
import { locatePath } from '../src/extension/core/acp/workspaceBoundary';
import { WorkspaceFs } from '../src/extension/core/acp/workspaceFs';
import { countLineChanges } from '../src/shared/lineDiff';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

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
    await pendingReviews(dir, before);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** 150 writes of 1.9 MB over one existing file, all sent at once and left waiting for review: the heap they hold. */
async function pendingReviews(dir: string, content: string): Promise<void> {
  const workspace = new WorkspaceFs(dir);
  const journal = new EditJournal();
  const open: Array<(answer: PermissionAnswer) => void> = [];
  const person = { ask: (_q: unknown, signal: AbortSignal) => new Promise<PermissionAnswer>((resolve) => (open.push(resolve), signal.addEventListener('abort', () => resolve('cancelled')))) };
  const gate = new PermissionGate({ isTrusted: () => true, mode: () => 'allowAll', editReview: () => 'ask' }, person, dir);
  const where = await locatePath(dir, 'big.ts');
  const op = { kind: 'edit' as const, path: where.abs };
  const hooks = { opened: () => undefined, closed: () => undefined };
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let settled = 0;
  const writes = Array.from({ length: 150 }, (_, i) =>
    // Each request carries its own content as JSON.parse made it (one copy on the heap); a refused one lets go of it.
    writeWithDiff(workspace, gate, journal, {
      sessionId: 's', where, content: JSON.parse(JSON.stringify(`${i}${content.slice(1)}`)) as string, op, turn: {},
      authorize: async () => undefined,
      review: (g, proposal) => g.reviewEdit('s', op, { type: 'edit', edit: proposal.edit.view, review: true }, hooks, new AbortController().signal),
      recorded: () => undefined,
    }).then(() => (settled += 1), () => (settled += 1)),
  );
  while (open.length + settled < 150) await new Promise((resolve) => setTimeout(resolve, 10));
  gc();
  const held = process.memoryUsage().heapUsed - heapBefore;
  console.log(`150 writes of 1.9 MB sent for review at once: ${open.length} wait, ${settled} refused; heap held ${(held / 1e6).toFixed(0)} MB`);
  for (const answer of open.splice(0)) answer('reject');
  await Promise.all(writes);
}

void main();
