// One completion signalled in two windows at once (two real supervisors on one storage root, no idle sweep):
// the duplicate's tentative wakeup may take the lease and find nothing, refusing the window that claimed it.
// Delivered once, by the windows themselves, without waiting for a sweep.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import type { WakeupEvent } from '../../../src/extension/core/wakeups/wakeupCoordinator';
import { openSupervisorWindow, promptInFlight, type SupervisorWindow } from '../../fakes/supervisorWindows';
import { completionFor, deliveryOutcome, tempStorageRoot, waitForEvent } from '../../fakes/wakeupHarness';

interface Gate {
  promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

type Delivery = Extract<WakeupEvent, { type: 'delivery' }>;

/** The first delivery that started a wakeup turn, in either window; the bound only ends a wait that fails. */
function firstStart(windows: SupervisorWindow[], sessionId: string, timeoutMs = 15_000): Promise<{ win: SupervisorWindow; event: Delivery }> {
  return new Promise((resolve, reject) => {
    const offs: Array<() => void> = [];
    const done = () => {
      clearTimeout(timer);
      for (const off of offs) off();
    };
    const timer = setTimeout(() => {
      done();
      const seen = windows.map((w) => `${w.windowId}: ${w.events.map((e) => (e.type === 'delivery' ? `${e.trigger}:${e.outcome}` : e.type)).join(', ')}`);
      reject(new Error(`no wakeup started in ${timeoutMs} ms (the completion waits for a sweep); ${seen.join('; ')}`));
    }, timeoutMs);
    for (const win of windows) {
      const seen = win.events.find((e): e is Delivery => e.type === 'delivery' && e.sessionId === sessionId && e.outcome === 'started');
      if (seen) {
        done();
        resolve({ win, event: seen });
        return;
      }
      offs.push(
        win.coordinator.subscribe((e) => {
          if (e.type !== 'delivery' || e.sessionId !== sessionId || e.outcome !== 'started') return;
          done();
          resolve({ win, event: e });
        }),
      );
    }
  });
}

/** Calls `before` ahead of the first call of `obj[name]` and `after` once it settled; later calls pass through. */
function aroundFirst<T extends object, K extends keyof T>(obj: T, name: K, hooks: { before?: () => Promise<void>; after?: () => void }): void {
  const original = (obj[name] as (...args: unknown[]) => Promise<unknown>).bind(obj);
  let first = true;
  (obj as Record<K, unknown>)[name] = async (...args: unknown[]) => {
    if (!first) return original(...args);
    first = false;
    await hooks.before?.();
    try {
      return await original(...args);
    } finally {
      hooks.after?.();
    }
  };
}

describe('a completion signalled in two windows at once, with no idle sweep', function () {
  this.timeout(60_000);
  let root: string;
  let a: SupervisorWindow;
  let b: SupervisorWindow;
  let sid = '';

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-dup-');
    // openWindow's sweep runs once an hour: nothing here waits for it.
    a = await openSupervisorWindow(root, 'window-a');
    b = await openSupervisorWindow(root, 'window-b');
  });

  afterEach(async () => {
    for (const w of [a, b]) await w.shutDown(sid);
    await fs.rm(root, { recursive: true, force: true });
  });

  /** Ends the wakeup turn that `win` started, waits for its teardown drain, then for both windows' work. */
  async function endWakeup(win: SupervisorWindow, sessionId: string): Promise<void> {
    await promptInFlight(win, 'the wakeup prompt');
    const mark = win.events.length;
    win.agent.finish();
    await waitForEvent(win, deliveryOutcome(win, sessionId, 'teardown'), 15_000, mark);
    await a.coordinator.idle();
    await b.coordinator.idle();
  }

  async function assertDeliveredOnce(sessionId: string, taskId: string): Promise<void> {
    assert.equal(a.agent.prompts + b.agent.prompts, 1, 'not exactly one wakeup turn');
    assert.deepEqual((await a.outbox.entries(sessionId)).map((e) => e.state), ['delivered']);
    const starts = [...a.events, ...b.events].filter((e) => e.type === 'delivery' && e.sessionId === sessionId && e.outcome === 'started');
    assert.equal(starts.length, 1);
    assert.deepEqual(starts[0].type === 'delivery' && starts[0].keys, [`${taskId}:exit`]);
    assert.ok(![...a.events, ...b.events].some((e) => e.type === 'delivery' && e.trigger === 'sweep'));
  }

  // A claims; B's tentative wakeup takes the lease before A asks for it, and claims only after A's claim landed.
  for (const order of ['the claim is given back before the lease', 'the lease is given back before the claim'] as const) {
    it(`the window that claimed it is refused by the duplicate's claimless wakeup: delivered once, at once (${order})`, async () => {
      sid = `dup-${order.includes('claim is') ? 'claim' : 'lease'}`;
      await a.sup.sessions.create('duplicate', sid);
      const aClaimed = gate();
      const bHolds = gate();
      const aGaveBack = gate();
      const bLetGo = gate();
      aroundFirst(a.outbox, 'enqueueAndClaim', { after: aClaimed.open });
      aroundFirst(b.outbox, 'enqueueAndClaim', { before: () => aClaimed.promise });
      aroundFirst(b.sup.lease, 'acquire', { before: () => aClaimed.promise, after: bHolds.open });
      aroundFirst(a.sup.lease, 'acquire', { before: () => bHolds.promise });
      // The second to let go does so only once the first window has done all it would do (it found the other
      // still holding on): whoever lets go last must ask again.
      if (order === 'the claim is given back before the lease') {
        aroundFirst(a.outbox, 'release', { after: aGaveBack.open });
        aroundFirst(b.sup.lease, 'release', { before: () => aGaveBack.promise.then(() => a.coordinator.idle()) });
      } else {
        aroundFirst(b.sup.lease, 'release', { after: bLetGo.open });
        aroundFirst(a.outbox, 'release', { before: () => bLetGo.promise.then(() => b.coordinator.idle()) });
      }

      const completion = completionFor('t-dup', sid);
      await Promise.all([a.coordinator.onCompletion(completion), b.coordinator.onCompletion(completion)]);
      const { win } = await firstStart([a, b], sid);

      // The race went as described: A was refused, B's wakeup found nothing.
      const aFirst = await waitForEvent(a, deliveryOutcome(a, sid, 'completion'));
      const bFirst = await waitForEvent(b, deliveryOutcome(b, sid, 'completion'));
      assert.equal(aFirst.type === 'delivery' && aFirst.outcome, 'busy');
      assert.equal(bFirst.type === 'delivery' && bFirst.outcome, 'nothing');
      await waitForEvent(win, (e) => e.type === 'delivered' && e.sessionId === sid);
      await endWakeup(win, sid);
      await assertDeliveredOnce(sid, 't-dup');
    });
  }

  it('signalled in both windows at the same moment: each completion delivered once, without a sweep (12 rounds)', async () => {
    for (let round = 0; round < 12; round += 1) {
      sid = `both-${round}`;
      await a.sup.sessions.create('both', sid);
      const completion = completionFor(`t-${round}`, sid);
      // Alternate which window hears it first.
      const [first, second] = round % 2 === 0 ? [a, b] : [b, a];
      await Promise.all([first.coordinator.onCompletion(completion), second.coordinator.onCompletion(completion)]);
      const { win } = await firstStart([a, b], sid);
      await waitForEvent(win, (e) => e.type === 'delivered' && e.sessionId === sid);
      await endWakeup(win, sid);
      assert.equal(a.agent.prompts + b.agent.prompts, round + 1, `round ${round}: not exactly one wakeup turn`);
      assert.deepEqual((await a.outbox.entries(sid)).map((e) => e.state), ['delivered'], `round ${round}`);
    }
  });
});
