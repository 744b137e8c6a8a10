// Check-then-use races: a worker thread flips symlinks (the file itself, and a folder on the way) and a FIFO while
// the main thread reads and writes through WorkspaceFs, 1,000 times each. Zero outside bytes may be read, the outside
// folder must stay byte-for-byte unchanged, and no read may hang on the FIFO.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { forceNoProcFdForTests } from '../../../src/extension/core/acp/boundaryOpen';
import { WorkspaceFs } from '../../../src/extension/core/acp/workspaceFs';
import { HostileRepo, secretText } from '../../fakes/hostileRepo';

const rounds = 1_000;
const minFlips = 50;

/** The flipper: sync calls in its own thread, so it truly runs between the main thread's check and use. */
const flipperSource = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const flag = new Int32Array(workerData.shared);
const { mode, ws, outside } = workerData;
const p = (n) => require('node:path').join(ws, n);
const quiet = (fn) => { try { fn(); } catch { /* the reader or writer moved it: flip on */ } };
if (mode === 'fifo') execFileSync('mkfifo', [p('.stage-fifo-proto')]);
parentPort.postMessage('started');
while (Atomics.load(flag, 0) === 0) {
  if (mode === 'file') {
    quiet(() => { fs.writeFileSync(p('.stage-file'), 'INSIDE'); fs.renameSync(p('.stage-file'), p('flip')); });
    quiet(() => { fs.symlinkSync(outside + '/secret.txt', p('.stage-link')); fs.renameSync(p('.stage-link'), p('flip')); });
  } else if (mode === 'dir') {
    quiet(() => fs.renameSync(p('d'), p('.d-real')));
    quiet(() => fs.symlinkSync(outside + '/dir', p('d')));
    quiet(() => fs.unlinkSync(p('d')));
    quiet(() => fs.renameSync(p('.d-real'), p('d')));
  } else {
    quiet(() => { fs.writeFileSync(p('.stage-file'), 'INSIDE'); fs.renameSync(p('.stage-file'), p('pipe')); });
    quiet(() => { fs.linkSync(p('.stage-fifo-proto'), p('.stage-fifo')); fs.renameSync(p('.stage-fifo'), p('pipe')); });
  }
  Atomics.add(flag, 2, 1);
}
`;

class Flipper {
  private readonly flag = new Int32Array(new SharedArrayBuffer(12));
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private readonly running: Promise<void>;

  constructor(mode: 'file' | 'dir' | 'fifo', repo: HostileRepo) {
    this.worker = new Worker(flipperSource, { eval: true, workerData: { shared: this.flag.buffer, mode, ws: repo.ws, outside: repo.outside } });
    this.running = new Promise((resolve) => this.worker.once('message', () => resolve()));
    this.exited = new Promise((resolve, reject) => {
      this.worker.once('error', reject);
      this.worker.once('exit', () => resolve());
    });
  }

  /** Resolves once the worker runs its loop (a state, not a delay). */
  async started(): Promise<void> {
    await Promise.race([this.running, this.exited]);
  }

  get flips(): number {
    return Atomics.load(this.flag, 2);
  }

  async stop(): Promise<void> {
    Atomics.store(this.flag, 0, 1);
    await this.exited;
  }
}

describe('workspace file access under check-then-use races', function () {
  this.timeout(120_000);
  let repo: HostileRepo;
  let ws: WorkspaceFs;
  let snapshot: string;
  let flipper: Flipper | undefined;

  beforeEach(async () => {
    repo = await HostileRepo.create();
    await fs.writeFile(repo.p('flip'), 'INSIDE');
    await fs.mkdir(repo.p('d'));
    await fs.writeFile(repo.p('d/key.txt'), 'INSIDE');
    await fs.writeFile(repo.o('dir/key.txt'), secretText);
    ws = new WorkspaceFs(repo.ws);
    snapshot = await repo.outsideSnapshot();
  });
  afterEach(async () => {
    await flipper?.stop();
    flipper = undefined;
    await repo.dispose();
  });

  /** Runs `op` `rounds` times while the flipper flips; returns how each attempt ended. */
  async function race(mode: 'file' | 'dir' | 'fifo', op: () => Promise<string | void>): Promise<{ served: string[]; refused: string[]; flips: number }> {
    flipper = new Flipper(mode, repo);
    await flipper.started();
    const served: string[] = [];
    const refused: string[] = [];
    const before = flipper.flips;
    // At least `rounds` attempts, and on until the flipper has flipped while they ran (a state, not a duration).
    for (let i = 0; i < rounds || flipper.flips - before < minFlips; i += 1) {
      try {
        served.push((await op()) ?? '');
      } catch (error) {
        refused.push((error as Error).message);
      }
    }
    const flips = flipper.flips - before;
    await flipper.stop();
    flipper = undefined;
    if (process.env.VIGIL_HOSTILE_REPORT) {
      const kinds = new Map<string, number>();
      for (const m of refused) {
        const key = m.replace(/\/tmp\/[^ :]*/g, '<path>');
        kinds.set(key, (kinds.get(key) ?? 0) + 1);
      }
      console.log(`${mode}: ${served.length} served, ${refused.length} refused, ${flips} flips`, [...kinds.entries()]);
    }
    return { served, refused, flips };
  }

  const readOf = (rel: string) => async () => ws.read(await ws.locate(repo.p(rel)));
  const writeOf = (rel: string) => async () => ws.write(await ws.locate(repo.p(rel)), 'WRITTEN BY AGENT');
  const unexpected = (messages: string[]) => messages.filter((m) => !/outside the workspace folder and was not approved|changed while Vigil was opening it|no such file or folder|is a fifo, not a regular file|not a folder/.test(m));

  it('a file swapped for a symlink to outside: 1,000 reads leak nothing, 1,000 writes leave outside unchanged', async () => {
    const reads = await race('file', readOf('flip'));
    assert.deepEqual(reads.served.filter((s) => s.includes('SECRET')), [], 'no outside byte was read');
    assert.deepEqual(unexpected(reads.refused), []);
    const writes = await race('file', writeOf('flip'));
    assert.deepEqual(unexpected(writes.refused), []);
    assert.equal(await repo.outsideSnapshot(), snapshot, 'nothing outside changed');
  });

  it('a folder on the way swapped for a symlink to outside: 1,000 reads leak nothing, 1,000 writes leave outside unchanged', async () => {
    const reads = await race('dir', readOf('d/key.txt'));
    assert.deepEqual(reads.served.filter((s) => s.includes('SECRET')), [], 'no outside byte was read');
    assert.deepEqual(unexpected(reads.refused), []);
    const writes = await race('dir', writeOf('d/key.txt'));
    assert.deepEqual(unexpected(writes.refused), []);
    assert.equal(await repo.outsideSnapshot(), snapshot, 'nothing outside changed');
  });

  it('without /proc (the macOS and Windows fallback), a file swapped for a symlink to outside still leaks nothing', async () => {
    forceNoProcFdForTests(true);
    try {
      const reads = await race('file', readOf('flip'));
      assert.deepEqual(reads.served.filter((s) => s.includes('SECRET')), [], 'no outside byte was read');
      const writes = await race('file', writeOf('flip'));
      assert.deepEqual(unexpected([...reads.refused, ...writes.refused]), []);
      assert.equal(await repo.outsideSnapshot(), snapshot, 'nothing outside changed');
    } finally {
      forceNoProcFdForTests(false);
    }
  });

  it('a file swapped for a FIFO: 1,000 reads each end (served or refused), none blocks', async () => {
    await fs.writeFile(repo.p('pipe'), 'INSIDE');
    const reads = await race('fifo', readOf('pipe'));
    assert.ok(reads.served.length + reads.refused.length >= rounds);
    assert.deepEqual(reads.served.filter((s) => s !== 'INSIDE'), []);
    assert.deepEqual(unexpected(reads.refused), []);
  });
});
