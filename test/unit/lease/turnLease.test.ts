// Turn lease: epochs, busy, refresh, holder-qualified release, reclaim rules, fencing, corrupt lease file.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fsCallbacks, { promises as fs } from 'node:fs';
import { TurnLeaseStore, type LeaseToken } from '../../../src/extension/core/lease/turnLease';
import type { LeaseHolder } from '../../../src/extension/core/lease/leaseRecord';
import { isVigilError } from '../../../src/extension/core/common/errors';
import { leaseEpochFile, leaseFile } from '../../../src/extension/core/store/storePaths';
import { SessionStore } from '../../../src/extension/core/store/sessionStore';
import { recoverSession } from '../../../src/extension/core/supervisor/recovery';
import { FakeClock } from '../../fakes/fakeClock';
import { recordingLogger, tempRoot, type LogRecord } from '../supervisor/harness';

const TTL = 30_000;

async function setup() {
  const root = await tempRoot();
  const clock = new FakeClock();
  const logs: LogRecord[] = [];
  const lease = new TurnLeaseStore(root, clock, recordingLogger(logs), { ttlMs: TTL });
  const store = new SessionStore(root, recordingLogger(logs));
  await store.init();
  await store.create('s', 's1');
  return { root, clock, logs, lease, store };
}

function holder(lease: TurnLeaseStore, windowId: string, turnId: string, overrides: Partial<LeaseHolder> = {}): LeaseHolder {
  return { ...lease.holderFor(windowId, turnId), ...overrides };
}

async function acquired(lease: TurnLeaseStore, h: LeaseHolder): Promise<LeaseToken> {
  const r = await lease.acquire('s1', h);
  if (r.kind !== 'acquired') throw new Error(`expected acquired, got ${JSON.stringify(r)}`);
  return r.token;
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('turn lease', () => {
  it('every acquisition increases the epoch; a live holder makes others busy', async () => {
    const { lease } = await setup();
    const a = await acquired(lease, holder(lease, 'w1', 't1'));
    const busy = await lease.acquire('s1', holder(lease, 'w2', 't2'));
    assert.equal(busy.kind, 'busy');
    await lease.release(a);
    const b = await acquired(lease, holder(lease, 'w2', 't2'));
    assert.equal(b.epoch, a.epoch + 1);
  });

  it('I13 release is holder-qualified and idempotent', async () => {
    const { lease } = await setup();
    const a = await acquired(lease, holder(lease, 'w1', 't1'));
    await lease.release(a);
    const b = await acquired(lease, holder(lease, 'w2', 't2'));
    assert.equal(await lease.release(a), false, 'a stale token releases nothing');
    assert.equal((await lease.read('s1'))?.holder?.turnId, 't2');
    assert.equal(await lease.release(b), true);
    assert.equal(await lease.release(b), false);
  });

  it('a release is atomic but not synced, an acquisition is synced', async () => {
    const { root, lease } = await setup();
    await fs.mkdir(`${root}/probe`, { recursive: true });
    const probe = await fs.open(`${root}/probe/f`, 'w');
    const FileHandle = Object.getPrototypeOf(probe) as { sync(): Promise<void> };
    await probe.close();
    const sync = FileHandle.sync;
    const fsync = fsCallbacks.fsync;
    let syncs = 0;
    FileHandle.sync = function (this: unknown) {
      syncs += 1;
      return sync.call(this);
    };
    // Small records are synced through their descriptor.
    fsCallbacks.fsync = ((fd: number, cb: (error: NodeJS.ErrnoException | null) => void) => {
      syncs += 1;
      return fsync(fd, cb);
    }) as typeof fsync;
    try {
      const a = await acquired(lease, holder(lease, 'w1', 't1'));
      assert.ok(syncs >= 2, `acquire synced ${syncs} times`);
      syncs = 0;
      assert.equal(await lease.release(a), true);
      assert.equal(syncs, 0);
      assert.equal((await lease.read('s1'))?.holder, null);
    } finally {
      FileHandle.sync = sync;
      fsCallbacks.fsync = fsync;
    }
  });

  it('a release lost to a power cut: the dead holder is reclaimed and its ended turn is not marked interrupted', async () => {
    const { lease, store, logs } = await setup();
    const dead = holder(lease, 'w1', 't-ended', { pid: await deadPid() });
    const token = await acquired(lease, dead);
    await store.transcriptWriter('s1', lease.guard(token)).append([
      { type: 'turnStarted', turnId: 't-ended', source: 'user', epoch: token.epoch },
      { type: 'turnEnded', turnId: 't-ended', reason: 'completed' },
    ]);
    // The release never reached the disk: the lease still names the holder, whose process is gone.
    assert.equal(await recoverSession(store, lease, 's1', 'w2', recordingLogger(logs)), false);
    assert.equal((await store.get('s1'))?.state, 'idle');
    assert.equal(await lease.liveHolder('s1'), undefined);
    const next = await acquired(lease, holder(lease, 'w2', 't-next'));
    assert.equal(next.epoch, token.epoch + 2, 'the recovery took and gave back one epoch');
  });

  it('I15 reclaims only an expired lease or a provably dead holder', async () => {
    const { lease, clock } = await setup();
    // Alive (this process), not expired: busy, right up to the TTL.
    await acquired(lease, holder(lease, 'w1', 't1'));
    await clock.advance(TTL - 1);
    assert.equal((await lease.acquire('s1', holder(lease, 'w2', 't2'))).kind, 'busy');
    await clock.advance(1);
    const expired = await lease.acquire('s1', holder(lease, 'w2', 't2'));
    assert.equal(expired.kind === 'acquired' && expired.reclaimed?.cause, 'expired');

    // A dead pid on this host: reclaimed at once, long before expiry.
    const { lease: l2 } = await setup();
    const pid = await deadPid();
    await acquired(l2, holder(l2, 'w1', 't1', { pid }));
    const dead = await l2.acquire('s1', holder(l2, 'w2', 't2'));
    assert.equal(dead.kind === 'acquired' && dead.reclaimed?.cause, 'holder-dead');

    // The same dead pid on another host proves nothing: busy until expiry.
    const { lease: l3 } = await setup();
    await acquired(l3, holder(l3, 'w1', 't1', { pid, host: 'another-host' }));
    assert.equal((await l3.acquire('s1', holder(l3, 'w2', 't2'))).kind, 'busy');
  });

  it('refresh extends the lease and reports a loss once the epoch moved on', async () => {
    const { lease, clock } = await setup();
    const a = await acquired(lease, holder(lease, 'w1', 't1'));
    await clock.advance(TTL - 1_000);
    assert.equal(await lease.refresh(a), 'ok');
    await clock.advance(TTL - 1_000);
    assert.equal((await lease.acquire('s1', holder(lease, 'w2', 't2'))).kind, 'busy', 'refreshed, so still held');
    await clock.advance(2_000);
    await acquired(lease, holder(lease, 'w2', 't2'));
    assert.equal(await lease.refresh(a), 'lost');
  });

  it('I18 a write carrying a stale fencing epoch is refused', async () => {
    const { lease, clock, store } = await setup();
    const a = await acquired(lease, holder(lease, 'w1', 't1'));
    await store.transcriptWriter('s1', lease.guard(a)).append({ type: 'notice', level: 'info', text: 'A1' });
    await clock.advance(TTL);
    const b = await acquired(lease, holder(lease, 'w2', 't2'));
    await store.transcriptWriter('s1', lease.guard(b)).append({ type: 'notice', level: 'info', text: 'B1' });
    await assert.rejects(store.transcriptWriter('s1', lease.guard(a)).append({ type: 'notice', level: 'info', text: 'A2' }), (e) => isVigilError(e, 'STALE_EPOCH'));
    await assert.rejects(store.update('s1', { title: 'stale' }, lease.guard(a)), (e) => isVigilError(e, 'STALE_EPOCH'));
    const texts = (await store.readAll('s1')).records.map((r) => (r as { text: string }).text);
    assert.deepEqual(texts, ['A1', 'B1']);
    assert.equal((await store.get('s1'))?.title, 's');
  });

  it('a corrupt lease file is moved aside and reported; the next epoch is above any counted one', async () => {
    const { lease, root, logs } = await setup();
    const a = await acquired(lease, holder(lease, 'w1', 't1'));
    await fs.writeFile(leaseFile(root, 's1'), '{"version":1,"epoch":');
    const b = await acquired(lease, holder(lease, 'w2', 't2'));
    assert.ok(b.epoch > a.epoch);
    assert.ok(logs.some((l) => l.level === 'error' && l.message.includes(leaseFile(root, 's1')) && l.message.includes('corrupt')));
    const names = await fs.readdir(`${root}/sessions/s1`);
    assert.ok(names.some((n) => n.startsWith('lease.json.corrupt-')), names.join(','));
    assert.equal(await lease.refresh(a), 'lost', 'the old holder is fenced out');
    assert.equal(await lease.refresh(b), 'ok');
  });

  it('epochs stay monotonic when the lease file is deleted, emptied or corrupted between acquisitions; stale writes stay refused', async () => {
    const { lease: first, root, store, clock, logs } = await setup();
    // Two windows take turns, so no single process's memory carries the epoch across a loss.
    const second = new TurnLeaseStore(root, clock, recordingLogger(logs), { ttlMs: TTL });
    const file = leaseFile(root, 's1');
    const damage: Array<[string, () => Promise<void>]> = [
      ['deleted', () => fs.rm(file, { force: true })],
      ['emptied', () => fs.writeFile(file, '')],
      ['torn', () => fs.writeFile(file, '{"version":1,"epoch":')],
      ['wrong shape', () => fs.writeFile(file, JSON.stringify({ version: 1, epoch: 'x' }))],
      ['untouched', async () => undefined],
      ['mark deleted', () => fs.rm(leaseEpochFile(root, 's1'), { force: true })],
      ['mark corrupt', () => fs.writeFile(leaseEpochFile(root, 's1'), 'garbage')],
      ['mark deleted, lease deleted', async () => {
        await fs.rm(leaseEpochFile(root, 's1'), { force: true });
        await fs.writeFile(file, '{');
      }],
    ];
    const tokens: LeaseToken[] = [];
    for (let round = 0; round < 3; round += 1) {
      for (const [what, hurt] of damage) {
        const lease = tokens.length % 2 === 0 ? first : second;
        const previous = tokens[tokens.length - 1];
        if (previous) await lease.release(previous);
        await hurt();
        // Wall time moves on between two turns (the clock is the last witness when both files are lost).
        await clock.advance(1);
        const token = await acquired(lease, holder(lease, `w-${what}`, `t-${round}-${what}`));
        for (const earlier of tokens) assert.ok(token.epoch > earlier.epoch, `after "${what}" (round ${round}): epoch ${token.epoch} is not above ${earlier.epoch}`);
        await store.transcriptWriter('s1', lease.guard(token)).append({ type: 'notice', level: 'info', text: `ok ${token.epoch}` });
        for (const earlier of tokens) {
          await assert.rejects(
            store.transcriptWriter('s1', first.guard(earlier)).append({ type: 'notice', level: 'info', text: 'stale' }),
            (e) => isVigilError(e, 'STALE_EPOCH'),
            `after "${what}": the write of epoch ${earlier.epoch} was not refused`,
          );
        }
        tokens.push(token);
      }
    }
    const texts = (await store.readAll('s1')).records.map((r) => (r as { text: string }).text);
    assert.ok(!texts.includes('stale'));
    assert.equal(texts.length, tokens.length);
  });

  // A new store stands for a restarted window: it remembers no epoch, only the files decide. Exact epochs, and
  // the fake clock's wall time is far above them, so a fallback to the clock cannot pass for the right answer.
  it('a restarted window after a lost lease file continues from the mark: 1, 2, 3, lease lost, then 4', async () => {
    const { lease, root, clock, logs } = await setup();
    for (const expected of [1, 2, 3]) {
      const token = await acquired(lease, holder(lease, 'w1', `t${expected}`));
      assert.equal(token.epoch, expected);
      await lease.release(token);
    }
    await fs.rm(leaseFile(root, 's1'));
    const restarted = new TurnLeaseStore(root, clock, recordingLogger(logs), { ttlMs: TTL });
    assert.equal((await acquired(restarted, holder(restarted, 'w2', 't4'))).epoch, 4);
  });

  it('a takeover advances the mark too: after a seize and a lost lease file, a restarted window gets the next epoch', async () => {
    const { lease, root, clock, logs } = await setup();
    const first = await acquired(lease, holder(lease, 'w1', 't1'));
    await lease.release(first);
    await acquired(lease, holder(lease, 'w1', 't2'));
    const taker = new TurnLeaseStore(root, clock, recordingLogger(logs), { ttlMs: TTL });
    const seized = await taker.seize('s1', 't2', holder(taker, 'w2', 'recovery'));
    assert.ok(seized.kind === 'acquired');
    assert.equal(seized.token.epoch, 3);
    assert.deepEqual(JSON.parse(await fs.readFile(leaseEpochFile(root, 's1'), 'utf8')), { epoch: 3 });
    await taker.release(seized.token);
    await fs.rm(leaseFile(root, 's1'));
    const restarted = new TurnLeaseStore(root, clock, recordingLogger(logs), { ttlMs: TTL });
    const next = await acquired(restarted, holder(restarted, 'w3', 't4'));
    assert.equal(next.epoch, 4);
    assert.ok(!logs.some((l) => l.message.includes('continuing from the clock')), 'the clock stood in for a mark that should have known the epoch');
  });

  it('a seize continues from the mark when it is ahead of the lease file', async () => {
    const { lease, root, clock, logs } = await setup();
    for (const turn of ['t1', 't2', 't3']) await lease.release(await acquired(lease, holder(lease, 'w1', turn)));
    const held = await acquired(lease, holder(lease, 'w1', 't4'));
    assert.equal(held.epoch, 4);
    // The lease file alone falls back (restored from an older copy); the mark still knows epoch 4.
    const record = JSON.parse(await fs.readFile(leaseFile(root, 's1'), 'utf8')) as { epoch: number };
    await fs.writeFile(leaseFile(root, 's1'), JSON.stringify({ ...record, epoch: 2 }));
    const taker = new TurnLeaseStore(root, clock, recordingLogger(logs), { ttlMs: TTL });
    const seized = await taker.seize('s1', 't4', holder(taker, 'w2', 'recovery'));
    assert.ok(seized.kind === 'acquired');
    assert.equal(seized.token.epoch, 5);
  });

  it('a lease file of the wrong shape is treated like a corrupt one', async () => {
    const { lease, root } = await setup();
    await fs.mkdir(`${root}/sessions/s1`, { recursive: true });
    await fs.writeFile(leaseFile(root, 's1'), JSON.stringify({ version: 1, epoch: -3, holder: 'me' }));
    const r = await lease.acquire('s1', holder(lease, 'w1', 't1'));
    assert.equal(r.kind, 'acquired');
  });

  it('concurrent acquirers in one process: exactly one wins', async () => {
    const { lease } = await setup();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => lease.acquire('s1', holder(lease, `w${i}`, `t${i}`))));
    assert.equal(results.filter((r) => r.kind === 'acquired').length, 1);
  });
});
