// Restore against a folder flipped, for the whole restore, between the real folder and a symlink to an outside folder
// (what an agent's background task left running could do while the person clicks Restore): nothing outside may be
// created, written, renamed or removed, no temporary file may be left anywhere, and each file is either restored or
// refused with a reason.

import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { CheckpointStore } from '../../../src/extension/core/checkpoints/checkpointStore';
import { applyRestore, planRestore, type RestoreResult } from '../../../src/extension/core/checkpoints/restore';

const minRestores = 3;
const minFlips = 30;
/** A bound on the loop, never reached when the flipper and the restores both run. */
const maxRestores = 40;

/**
 * Flips `ws/d`: the real folder is renamed aside, a symlink to `outside/dir` takes its name, then the folder comes
 * back. A folder the restore made meanwhile under the name (while it was free) is moved aside, inside the workspace,
 * so the flipping never stalls. Sync calls in its own thread, so it truly runs between the restore's steps.
 */
const flipperSource = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const flag = new Int32Array(workerData.shared);
const { ws, outside, realSpins } = workerData;
const d = path.join(ws, 'd');
const aside = path.join(ws, '.d-real');
const quiet = (fn) => { try { fn(); } catch { /* the restore moved first: flip on */ } };
let junk = 0;
parentPort.postMessage('started');
while (Atomics.load(flag, 0) === 0) {
  quiet(() => fs.renameSync(d, aside));
  quiet(() => fs.symlinkSync(path.join(outside, 'dir'), d));
  quiet(() => fs.unlinkSync(d));
  if (fs.existsSync(aside)) {
    try {
      fs.renameSync(aside, d);
    } catch {
      quiet(() => fs.renameSync(d, path.join(ws, '.junk-' + junk++)));
      quiet(() => fs.renameSync(aside, d));
    }
  }
  // Left real for a while (when asked), so restores get through to their writes between flips.
  for (let i = 0; i < realSpins; i += 1) quiet(() => fs.statSync(d));
  Atomics.add(flag, 2, 1);
}
`;

class Flipper {
  private readonly flag = new Int32Array(new SharedArrayBuffer(12));
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private readonly running: Promise<void>;

  constructor(ws: string, outside: string, realSpins: number) {
    this.worker = new Worker(flipperSource, { eval: true, workerData: { shared: this.flag.buffer, ws, outside, realSpins } });
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

/** Every name below `dir` with its type, mode, modification time and content (or link target). */
async function snapshotOf(dir: string): Promise<string> {
  const lines: string[] = [];
  const walk = async (at: string): Promise<void> => {
    for (const name of (await fs.readdir(at)).sort()) {
      const full = path.join(at, name);
      const stat = await fs.lstat(full);
      const body = stat.isFile() ? createHash('sha256').update(await fs.readFile(full)).digest('hex') : stat.isSymbolicLink() ? await fs.readlink(full) : '';
      lines.push(`${path.relative(dir, full)} ${stat.mode} ${stat.mtimeMs} ${body}`);
      if (stat.isDirectory()) await walk(full);
    }
  };
  lines.push(`. ${(await fs.lstat(dir)).mtimeMs}`);
  await walk(dir);
  return lines.join('\n');
}

/** Every name below `dir` that a restore's temporary file would have. */
async function tempNames(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await fs.readdir(dir, { recursive: true })) if (path.basename(entry).startsWith('.vigil-restore-')) found.push(entry);
  return found;
}

describe('restore while a folder is flipped to a symlink to outside', function () {
  this.timeout(180_000);
  let base: string;
  let flipper: Flipper | undefined;

  afterEach(async () => {
    await flipper?.stop();
    flipper = undefined;
    await fs.rm(base, { recursive: true, force: true });
  });

  /** A turn over many folders below `d`, the outside folder its link points at, and how to check both. */
  async function setUp() {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-restore-race-')));
    const ws = path.join(base, 'ws');
    const outside = path.join(base, 'outside');
    // Spread over many folders below the flipped one: each is walked to while `d` may be anything.
    const folders = Array.from({ length: 12 }, (_, k) => `p${k}`);
    const names = {
      modified: [...folders.flatMap((p) => Array.from({ length: 7 }, (_, i) => `${p}/f${i}.txt`)), 'top0.txt', 'top1.txt'],
      added: folders.map((p) => `${p}/a0.txt`),
      deleted: folders.map((p) => `${p}/g0.txt`),
      links: folders.map((p) => `${p}/l0`),
      folder: Array.from({ length: 3 }, (_, i) => `p0/sub/s${i}.txt`),
    };
    const inFolder = Object.values(names).flat();
    const all = inFolder.map((rel) => `d/${rel}`);
    // Outside holds a file of every name, so a write, rename or removal through the link would show.
    for (const rel of inFolder) {
      await fs.mkdir(path.dirname(path.join(outside, 'dir', rel)), { recursive: true });
      await fs.writeFile(path.join(outside, 'dir', rel), 'OUTSIDE');
    }
    const inD = (rel: string) => path.join(ws, 'd', rel);
    for (const rel of inFolder) await fs.mkdir(path.dirname(inD(rel)), { recursive: true });
    for (const rel of [...names.modified, ...names.deleted, ...names.folder]) await fs.writeFile(inD(rel), `before ${rel}`);
    for (const rel of names.links) await fs.symlink('f0.txt', inD(rel));
    const store = new CheckpointStore({ storageRoot: path.join(base, 'storage'), folder: ws, logger: silentLogger });
    const before = await store.snapshot('t/before');
    // The turn: changes, adds, deletes, turns links into files and removes a folder.
    for (const rel of names.modified) await fs.writeFile(inD(rel), `after ${rel}`);
    for (const rel of names.added) await fs.writeFile(inD(rel), `added ${rel}`);
    for (const rel of names.deleted) await fs.rm(inD(rel));
    for (const rel of names.links) {
      await fs.rm(inD(rel));
      await fs.writeFile(inD(rel), 'a file now');
    }
    await fs.rm(inD('p0/sub'), { recursive: true });
    const after = await store.snapshot('t/after');
    const restore = async () => {
      const plan = await planRestore(store, before.tree, after.tree);
      assert.equal(plan.files.length, all.length);
      return applyRestore(store, plan, new Set(all));
    };
    const outsideBefore = await snapshotOf(outside);
    /** What must hold after restores raced the flipper, and with it stopped: everything restored. */
    const check = async (results: RestoreResult[]) => {
      assert.equal(await snapshotOf(outside), outsideBefore, 'nothing outside was created, written, renamed or removed');
      assert.deepEqual(await tempNames(base), [], 'no temporary file is left, inside or outside');
      for (const result of results) {
        assert.deepEqual([...result.restored, ...result.kept.map((k) => k.path)].sort(), [...all].sort(), 'each file is restored or kept');
        const unclear = result.kept.filter((k) => !/^not restored: |changed while Vigil was opening it|no such file or folder/.test(k.why));
        assert.deepEqual(unclear, [], 'each refusal says why');
      }
      const calm = await restore();
      assert.deepEqual(calm.kept, []);
      for (const rel of [...names.modified, ...names.deleted, ...names.folder]) assert.equal(await fs.readFile(inD(rel), 'utf8'), `before ${rel}`);
      for (const rel of names.added) await assert.rejects(fs.lstat(inD(rel)), { code: 'ENOENT' });
      for (const rel of names.links) assert.equal(await fs.readlink(inD(rel)), 'f0.txt');
    };
    return { ws, outside, restore, check };
  }

  /** Restores while the flipper runs: at least `minRestores`, on until it flipped `minFlips` times during them and `enough` holds. */
  async function race(ws: string, outside: string, realSpins: number, restore: () => Promise<RestoreResult>, enough: (results: RestoreResult[]) => boolean): Promise<RestoreResult[]> {
    flipper = new Flipper(ws, outside, realSpins);
    await flipper.started();
    const flipsBefore = flipper.flips;
    const results: RestoreResult[] = [];
    while (results.length < minRestores || flipper.flips - flipsBefore < minFlips || !enough(results)) {
      if (results.length >= maxRestores) assert.fail(`${maxRestores} restores while flipping never got ${enough.name}`);
      results.push(await restore());
    }
    const flips = flipper.flips - flipsBefore;
    await flipper.stop();
    flipper = undefined;
    if (process.env.VIGIL_RACE_REPORT) {
      const reasons = new Set(results.flatMap((r) => r.kept.map((k) => k.why.replace(/d\/p\d+/g, 'd/pN'))));
      console.log(`${flips} flips, ${results.length} restores, ${results.reduce((n, r) => n + r.restored.length, 0)} files restored, ${results.reduce((n, r) => n + r.kept.length, 0)} refused`, [...reasons]);
    }
    return results;
  }

  it('flipped back to back: nothing outside changes, no temporary file is left, each file is restored or refused with why', async () => {
    const { ws, outside, restore, check } = await setUp();
    await check(await race(ws, outside, 0, restore, () => true));
  });

  it('flipped now and then, so restores get through to their writes: still nothing outside changes', async () => {
    const { ws, outside, restore, check } = await setUp();
    const someRestored = (results: RestoreResult[]) => results.some((r) => r.restored.length > 0);
    await check(await race(ws, outside, 300, restore, someRestored));
  });
});
