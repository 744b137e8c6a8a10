// The per-key queue shared by the wakeup outbox and the wakeup coordinator: one run at a time per key, in call
// order; keys independent; a failure does not block the next run; a drain sees every run still queued.

import * as assert from 'node:assert/strict';
import { KeyedMutex } from '../../../src/extension/core/common/keyedMutex';

/** A promise the test settles by hand: the order of events is decided by the test, not by timing. */
function gate<T = void>() {
  let open!: (value: T) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<T>((resolve, reject) => ((open = resolve), (fail = reject)));
  return { promise, open, fail };
}

describe('KeyedMutex', () => {
  it('runs one key in call order, one at a time, and other keys meanwhile', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const first = gate();
    const a1 = mutex.run('a', async () => (log.push('a1 start'), await first.promise, log.push('a1 end'), 1));
    const a2 = mutex.run('a', async () => (log.push('a2'), 2));
    const b1 = mutex.run('b', async () => (log.push('b1'), 3));
    assert.equal(await b1, 3);
    assert.deepEqual(log, ['a1 start', 'b1'], 'b ran while a1 held a; a2 waits');
    first.open();
    assert.deepEqual(await Promise.all([a1, a2]), [1, 2]);
    assert.deepEqual(log, ['a1 start', 'b1', 'a1 end', 'a2']);
  });

  it('a failed run rejects its caller only; the next run for the key still runs', async () => {
    const mutex = new KeyedMutex();
    const failing = gate();
    const bad = mutex.run('k', () => failing.promise);
    const good = mutex.run('k', async () => 'ran');
    failing.fail(new Error('disk full'));
    await assert.rejects(bad, /disk full/);
    assert.equal(await good, 'ran');
  });

  it('inFlight holds the last run of each busy key until it settles, then nothing', async () => {
    const mutex = new KeyedMutex();
    const held = gate();
    void mutex.run('a', () => held.promise);
    const failing = gate();
    mutex.run('b', () => failing.promise).catch(() => undefined);
    assert.equal(mutex.inFlight().length, 2);
    let drained = false;
    const drain = Promise.all(mutex.inFlight()).then(() => (drained = true));
    failing.fail(new Error('x'));
    await Promise.resolve();
    assert.equal(drained, false, 'a is still running');
    held.open();
    await drain;
    assert.deepEqual(mutex.inFlight(), []);
  });
});
