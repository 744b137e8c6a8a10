// Vigil's own model-stream timeouts: first token, idle between content events, and the whole turn.

import * as assert from 'node:assert/strict';
import { withTimeouts } from '../../../src/agent/providers/timeouts';
import type { ModelEvent } from '../../../src/agent/providers/types';

async function* scripted(gapsMs: number[], signal: AbortSignal): AsyncGenerator<ModelEvent> {
  for (const gap of gapsMs) {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, gap);
      signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
    });
    yield { kind: 'text', text: 'x' };
  }
  yield { kind: 'end', reason: 'stop' };
}

async function drain(gaps: number[], t: { firstTokenMs: number; idleMs: number; turnMs: number }, turnSignal = new AbortController().signal): Promise<{ count: number; error?: Error; providerAborted: boolean }> {
  const provider = new AbortController();
  let count = 0;
  try {
    for await (const e of withTimeouts(scripted(gaps, provider.signal), { ...t, turnDeadline: Date.now() + t.turnMs }, (err) => provider.abort(err), turnSignal)) {
      if (e.kind === 'text') count += 1;
    }
    return { count, providerAborted: provider.signal.aborted };
  } catch (error) {
    return { count, error: error as Error, providerAborted: provider.signal.aborted };
  }
}

describe('model stream timeouts', () => {
  it('passes a healthy stream through', async () => {
    const r = await drain([5, 5, 5], { firstTokenMs: 1_000, idleMs: 1_000, turnMs: 5_000 });
    assert.equal(r.count, 3);
    assert.equal(r.error, undefined);
  });

  it('first-token timeout aborts the provider request', async () => {
    const r = await drain([400], { firstTokenMs: 50, idleMs: 1_000, turnMs: 5_000 });
    assert.match(r.error!.message, /first-token timeout/);
    assert.equal(r.providerAborted, true);
  });

  it('idle timeout applies between content events', async () => {
    const r = await drain([5, 400], { firstTokenMs: 1_000, idleMs: 50, turnMs: 5_000 });
    assert.equal(r.count, 1);
    assert.match(r.error!.message, /idle timeout/);
  });

  it('the per-turn budget bounds a stream that trickles forever', async () => {
    const r = await drain(Array(100).fill(20), { firstTokenMs: 1_000, idleMs: 1_000, turnMs: 150 });
    assert.match(r.error!.message, /per-turn timeout/);
    assert.ok(r.count < 100);
  });

  it('a cancelled turn stops waiting at once', async () => {
    const turn = new AbortController();
    setTimeout(() => turn.abort(new Error('cancelled by the client')), 20);
    const t0 = Date.now();
    const r = await drain([5_000], { firstTokenMs: 10_000, idleMs: 10_000, turnMs: 10_000 }, turn.signal);
    assert.match(r.error!.message, /cancelled/);
    assert.ok(Date.now() - t0 < 1_000);
  });
});
