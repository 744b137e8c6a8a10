// The durable outbox: dedup, atomic claims across windows, lapsed claims after a reload, corrupt lines, scale.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { WakeupOutbox } from '../../../src/extension/core/wakeups/wakeupOutbox';
import { FakeClock } from '../../fakes/fakeClock';
import { FakeTurnPort } from '../../fakes/fakeTurnPort';
import { completionFor, openWindow, tempStorageRoot, waitForEvent } from '../../fakes/wakeupHarness';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

describe('wakeup outbox', () => {
  let root: string;

  beforeEach(async () => {
    root = await tempStorageRoot();
  });

  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('stores a completion once per (task, kind) key, durably, for a new instance to read', async () => {
    const a = await WakeupOutbox.open({ storageRoot: root, windowId: 'a' });
    assert.equal(await a.enqueue(completionFor('t-1', 's')), true);
    assert.equal(await a.enqueue(completionFor('t-1', 's')), false);
    assert.equal(await a.enqueue(completionFor('t-1', 's', { key: 't-1:pattern', kind: 'pattern', status: 'running' })), true);
    const b = await WakeupOutbox.open({ storageRoot: root, windowId: 'b' });
    assert.deepEqual((await b.entries('s')).map((e) => [e.key, e.state]), [
      ['t-1:exit', 'pending'],
      ['t-1:pattern', 'pending'],
    ]);
    assert.equal(await b.enqueue(completionFor('t-1', 's')), false, 'a second window also sees the duplicate');
  });

  it('keeps the good records of a corrupt outbox and quarantines the bad line', async () => {
    const a = await WakeupOutbox.open({ storageRoot: root, windowId: 'a' });
    await a.enqueue(completionFor('t-1', 's'));
    const file = path.join(root, 'wakeups', 's.jsonl');
    await fs.appendFile(file, '{"op":"enqueue","key":"t-x:exit", this is not json\n');
    await fs.appendFile(file, '{"op":"teleport","keys":["t-1:exit"]}\n');
    const b = await WakeupOutbox.open({ storageRoot: root, windowId: 'b' });
    await b.enqueue(completionFor('t-2', 's'));
    assert.deepEqual((await b.entries('s')).map((e) => e.key), ['t-1:exit', 't-2:exit']);
    const quarantine = (await fs.readFile(`${file}.quarantine`, 'utf8')).trim().split('\n');
    assert.equal(quarantine.length, 2);
    assert.ok(quarantine[0].includes('this is not json'));
    assert.ok(!(await fs.readFile(file, 'utf8')).includes('teleport'), 'the bad lines left the outbox');
    // A third reader sees the same good records and quarantines nothing new.
    const c = await WakeupOutbox.open({ storageRoot: root, windowId: 'c' });
    assert.equal((await c.entries('s')).length, 2);
    assert.equal((await fs.readFile(`${file}.quarantine`, 'utf8')).trim().split('\n').length, 2);
  });

  it('ignores a torn last line (a crash mid-append) and keeps appending after it', async () => {
    const a = await WakeupOutbox.open({ storageRoot: root, windowId: 'a' });
    await a.enqueue(completionFor('t-1', 's'));
    const file = path.join(root, 'wakeups', 's.jsonl');
    await fs.appendFile(file, '{"op":"enqueue","key":"t-torn');
    const b = await WakeupOutbox.open({ storageRoot: root, windowId: 'b' });
    assert.deepEqual((await b.entries('s')).map((e) => e.key), ['t-1:exit']);
    await b.enqueue(completionFor('t-2', 's'));
    assert.deepEqual((await b.entries('s')).map((e) => e.key), ['t-1:exit', 't-2:exit']);
  });

  it('two windows claiming the same session at once never take the same completion (200 rounds)', async () => {
    const a = await WakeupOutbox.open({ storageRoot: root, windowId: 'a' });
    const b = await WakeupOutbox.open({ storageRoot: root, windowId: 'b' });
    for (let i = 0; i < 200; i += 1) {
      const sid = `s-${i % 7}`;
      await a.enqueue(completionFor(`t-${i}`, sid));
      const [ca, cb] = await Promise.all([a.claim(sid, { max: 5, ttlMs: 60_000 }), b.claim(sid, { max: 5, ttlMs: 60_000 })]);
      const taken = [...(ca?.keys ?? []), ...(cb?.keys ?? [])];
      assert.equal(taken.length, new Set(taken).size, `round ${i}: a key was claimed twice`);
      assert.ok(taken.includes(`t-${i}:exit`), `round ${i}: nobody claimed the new completion`);
      await Promise.all([ca && a.deliver(ca), cb && b.deliver(cb)]);
    }
    for (let s = 0; s < 7; s += 1) assert.ok((await a.entries(`s-${s}`)).every((e) => e.state === 'delivered'));
  });

  it('a claim whose window died returns at its deadline; a new instance delivers it once', async () => {
    const clock = new FakeClock();
    const turns = new FakeTurnPort();
    // Window A claims and starts a wakeup turn, and dies before the turn is admitted.
    let parked!: () => void;
    turns.parking = () => new Promise<void>((resolve) => (parked = resolve));
    const a = await openWindow(root, turns, { windowId: 'a', clock, claimTtlMs: 30_000, sweepIntervalMs: 2_000 });
    await a.coordinator.onCompletion(completionFor('t-reload', 's'));
    await turns.waitForCalls((c) => c.length === 1);
    assert.deepEqual((await a.outbox.entries('s')).map((e) => [e.state, e.claimedBy]), [['claimed', 'a']]);
    a.coordinator.dispose();
    turns.parking = undefined;

    // The reloaded window: a new outbox and coordinator over the same storage root.
    const turnsB = new FakeTurnPort();
    const b = await openWindow(root, turnsB, { windowId: 'b', clock, claimTtlMs: 30_000, sweepIntervalMs: 2_000 });
    await clock.advance(2_000);
    await b.coordinator.sweep();
    assert.equal(turnsB.calls.length, 0, 'a live claim is respected before its deadline');
    await clock.advance(30_000);
    await b.coordinator.sweep();
    await waitForEvent(b, (e) => e.type === 'delivered');
    assert.equal(turnsB.wakeupCalls('s').length, 1);
    assert.ok(turnsB.calls[0].prompt.includes('t-reload'));

    // The dead window's parked start resumes late: its turn was never admitted, nothing more is delivered.
    parked();
    // Waits for the dead window's delivery attempt to finish (a drain queues behind it).
    await a.coordinator.drain('s');
    await clock.advance(60_000);
    await b.coordinator.sweep();
    assert.equal(turnsB.wakeupCalls('s').length, 1);
    assert.deepEqual((await b.outbox.entries('s')).map((e) => e.state), ['delivered']);
    b.coordinator.dispose();
  });

  it('1,000 completions for one session: each delivered exactly once, memory bounded', async function () {
    this.timeout(60_000);
    const turns = new FakeTurnPort();
    const win = await openWindow(root, turns, { maxPerTurn: () => 5 });
    const sid = 'busy-session';
    const first = turns.beginTurn(sid);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    // Completions arrive in bursts, as when many tasks end together; every one carries a 4,000-character tail.
    for (let i = 0; i < 1_000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => win.coordinator.onCompletion(completionFor(`t-${i + j}`, sid, { output: `${i + j}`.padEnd(3_990, '.') }))));
    }
    // Each wakeup turn's teardown starts the next one until nothing is left.
    let ending = first;
    for (;;) {
      const before = turns.calls.length;
      const mark = win.events.length;
      turns.endTurn(ending);
      const d = await waitForEvent(win, (e) => e.type === 'delivery' && e.trigger === 'teardown', 5_000, mark);
      if (d.type === 'delivery' && d.outcome === 'nothing') break;
      assert.equal(turns.calls.length, before + 1);
      ending = turns.calls.at(-1)?.turnId as string;
    }
    const delivered = win.events.flatMap((e) => (e.type === 'delivered' ? e.keys : []));
    assert.equal(delivered.length, 1_000);
    assert.equal(new Set(delivered).size, 1_000);
    assert.equal(turns.calls.length, 200);
    assert.equal(new Set(turns.calls.map((c) => c.prompt)).size, 200);
    const cached = win.outbox.cachedEntryCount(sid);
    assert.equal(cached.withPayload, 0, 'delivered completions keep no payload in memory');
    win.events.length = 0;
    turns.calls.length = 0;
    gc();
    const grown = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
    assert.ok(grown < 30, `heap grew ${grown.toFixed(1)} MB`);
    const size = (await fs.stat(path.join(root, 'wakeups', `${sid}.jsonl`))).size;
    assert.ok(size < 1_000_000, `the outbox is compacted (${size} bytes)`);
    win.coordinator.dispose();
  });
});
