// untilAborted: the promise's outcome unless the signal aborts first; no listener left behind; late rejections
// observed. Driven by AbortControllers and promises the test settles, never by elapsed time.

import * as assert from 'node:assert/strict';
import { timeoutSignal, untilAborted } from '../../../src/shared/untilAborted';

function held<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** An AbortController whose signal counts its listeners. */
function counted() {
  const controller = new AbortController();
  let listeners = 0;
  const add = controller.signal.addEventListener.bind(controller.signal);
  const remove = controller.signal.removeEventListener.bind(controller.signal);
  controller.signal.addEventListener = ((...args: Parameters<typeof add>) => ((listeners += 1), add(...args))) as typeof add;
  controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => ((listeners -= 1), remove(...args))) as typeof remove;
  return { controller, listeners: () => listeners };
}

describe('untilAborted', () => {
  it('settles as the promise does, and removes its listener', async () => {
    const { controller, listeners } = counted();
    assert.equal(await untilAborted(Promise.resolve(7), controller.signal, () => 'aborted'), 7);
    await assert.rejects(untilAborted(Promise.reject(new Error('no')), controller.signal, () => 'aborted'), /no/);
    assert.equal(listeners(), 0);
  });

  it('an abort settles at once with onAbort, though the promise never settles', async () => {
    const { controller } = counted();
    const pending = held<number>();
    const result = untilAborted(pending.promise, controller.signal, (reason) => `stopped: ${String(reason)}`);
    controller.abort('the turn ended');
    assert.equal(await result, 'stopped: the turn ended');
  });

  it('onAbort may throw: the error is the rejection', async () => {
    const controller = new AbortController();
    const result = untilAborted(held<number>().promise, controller.signal, () => {
      throw new Error('did not answer within 5 s');
    });
    controller.abort();
    await assert.rejects(result, /did not answer within 5 s/);
  });

  it('a signal aborted beforehand wins without waiting, and a later rejection of the promise is observed', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const pending = held<number>();
      const result = await untilAborted(pending.promise, AbortSignal.abort(), () => 'cancelled' as const);
      assert.equal(result, 'cancelled');
      pending.reject(new Error('late'));
      await new Promise<void>((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('a promise that wins leaves the abort without effect', async () => {
    const controller = new AbortController();
    let called = false;
    const value = await untilAborted(Promise.resolve('answer'), controller.signal, () => (called = true));
    controller.abort();
    assert.equal(value, 'answer');
    assert.equal(called, false);
  });

  it('timeoutSignal takes any duration: a fraction, a negative or NaN fire (a bare AbortSignal.timeout throws), a huge one is accepted', async () => {
    for (const ms of [0.5, -3, Number.NaN, 0]) {
      const signal = timeoutSignal(ms);
      if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      assert.equal((signal.reason as Error).name, 'TimeoutError', String(ms));
    }
    for (const ms of [Number.POSITIVE_INFINITY, 1e12, 2 ** 31]) assert.equal(timeoutSignal(ms).aborted, false, String(ms));
  });
});
