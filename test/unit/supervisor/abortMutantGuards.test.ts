// Invariants turnLivenessWatchdog.test.ts left open: docs/turn-supervisor.md I7 at every point after the consume, and I4 after a declined abort.

import * as assert from 'node:assert/strict';
import type { SupervisorHooks } from '../../../src/extension/core/supervisor/supervisorEvents';
import { Harness, SETTINGS, waitFor } from './harness';
import { ParkingPoint } from './parking';

const TIMEOUT = SETTINGS.timeoutMs;

/** Runs `fn` after `depth` further microtasks (0: the next microtask). */
function afterMicrotasks(depth: number, fn: () => void): void {
  let p = Promise.resolve();
  for (let i = 0; i < depth; i += 1) p = p.then(() => undefined);
  void p.then(fn);
}

describe('abort invariants at every interleaving (mutation guards)', () => {
  it('I7: activity landing at any microtask after the claim is consumed never precedes the published state', async function () {
    this.timeout(120_000);
    const h = await Harness.create();
    const outcomes = { published: 0, declined: 0 };
    for (let depth = 0; depth <= 24; depth += 1) {
      let published = false;
      const stale: number[] = [];
      h.hooks.onPublished = (ctx) => {
        published = true;
        // Still the claimed generation: no touch() landed between the consume and this first published state.
        const generation = h.sup.getSnapshot(h.sessionId)?.generation;
        if (generation !== ctx.generation) stale.push(generation ?? -1);
      };
      h.hooks.atConsumePublishEdge = () =>
        afterMicrotasks(depth, () => {
          if (h.agent.current) h.agent.emit({ description: `activity ${depth} microtasks after the edge` });
        });
      const { ended } = await h.start();
      await h.clock.advance(TIMEOUT);
      await waitFor(() => published || h.logged('info', 'declined'), `the abort at depth ${depth} to settle`);
      if (published) outcomes.published += 1;
      else outcomes.declined += 1;
      if (h.agent.current) h.agent.finish();
      const result = await ended;
      assert.deepEqual(stale, [], `depth ${depth}: the interrupt was published after a competing touch()`);
      assert.equal(result.reason, published ? 'interrupted' : 'completed', `depth ${depth}`);
      h.logs.length = 0;
    }
    // Both sides of the edge were exercised: early activity declines, later activity follows the publish.
    assert.ok(outcomes.declined >= 1 && outcomes.published >= 1, JSON.stringify(outcomes));
  });

  const declinePoints: Array<{ name: string; hook: keyof SupervisorHooks; barrier?: boolean }> = [
    { name: 'before R1', hook: 'afterObserve' },
    { name: 'between R1 and R2', hook: 'afterR1' },
    { name: 'after the claim (R2)', hook: 'afterR2' },
    { name: 'inside the barrier wait', hook: 'insideBarrierWait', barrier: true },
  ];
  for (const point of declinePoints) {
    it(`I4 after a declined abort (${point.name}): a later real stall in the same turn is still aborted in bound`, async () => {
      const h = await Harness.create();
      const park = new ParkingPoint();
      (h.hooks as Record<string, unknown>)[point.hook] = park.hook;
      const published: number[] = [];
      h.hooks.onPublished = () => void published.push(h.clock.now());
      const { ended } = await h.start();
      const commit = point.barrier ? h.sup.reserveBarrier(h.sessionId, 'apply edit')! : undefined;
      commit?.begin();
      await h.clock.advance(TIMEOUT);
      await park.parked;
      h.agent.emit({ description: 'resumed during the abort' });
      const lastActivity = h.clock.now();
      commit?.finish();
      park.release();
      await waitFor(() => h.logged('info', 'declined'), 'the abort to decline');
      assert.deepEqual(published, []);

      // Silence again, in the same turn: the watchdog must still be armed.
      await h.run(TIMEOUT + 250, 250);
      assert.equal(published.length, 1, 'the later stall was not aborted: the watchdog was left disarmed after the decline');
      const after = published[0] - lastActivity;
      assert.ok(after >= TIMEOUT && after <= TIMEOUT + 250, `aborted ${after} ms after the last activity`);
      const result = await ended;
      assert.equal(result.reason, 'interrupted');
      assert.match(result.message ?? '', /no progress/);
    });
  }
});
