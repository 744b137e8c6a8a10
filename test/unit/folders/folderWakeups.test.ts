// Two windows of two folders on one storage root: a session's wakeups are delivered only by a
// window that has the session's folder open; the other window's completion sink, teardown drain,
// idle sweep and user turns leave them pending, untouched.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { SessionFolders } from '../../../src/extension/core/folders/sessionFolders';
import { SessionStore } from '../../../src/extension/core/store/sessionStore';
import { FakeTurnPort } from '../../fakes/fakeTurnPort';
import { completionFor, deliveryOutcome, openWindow, pendingKeys, tempStorageRoot, waitForEvent, type Window } from '../../fakes/wakeupHarness';
import { recordingLogger, type LogRecord } from '../supervisor/harness';

describe('wakeups across windows of different folders', () => {
  let base: string;
  let root: string;
  let alpha: string;
  let beta: string;
  let store: SessionStore;
  const windows: Window[] = [];
  const logs: LogRecord[] = [];

  beforeEach(async () => {
    base = await tempStorageRoot('vigil-folders-');
    root = path.join(base, 'storage');
    alpha = path.join(base, 'alpha');
    beta = path.join(base, 'beta');
    await fs.mkdir(alpha);
    await fs.mkdir(beta);
    store = new SessionStore(root, recordingLogger(logs));
    await store.init();
  });

  afterEach(async () => {
    for (const w of windows.splice(0)) w.coordinator.dispose();
    await fs.rm(base, { recursive: true, force: true });
  });

  /** A window with `folders` open: its own turn port and a coordinator gated by its folder rules. */
  async function window(windowId: string, folders: string[], turns = new FakeTurnPort()): Promise<{ win: Window; turns: FakeTurnPort }> {
    const gate = new SessionFolders({ store, windowFolders: () => folders, logger: recordingLogger(logs) });
    const win = await openWindow(root, turns, { windowId, mayDeliver: (id) => gate.mayDeliver(id) });
    windows.push(win);
    return { win, turns };
  }

  it("a window of folder B neither runs nor consumes a wakeup of folder A's session; A's window delivers it", async () => {
    const session = await store.create('alpha work', 'sa', { folder: alpha });
    const b = await window('wb', [beta]);
    const completion = completionFor('t-1', session.id);

    // B's registry saw the task end (it started it, or re-attached it): durable, not delivered.
    await b.win.coordinator.onCompletion(completion);
    const first = await waitForEvent(b.win, deliveryOutcome(b.win, session.id, 'completion'));
    assert.ok(first.type === 'delivery');
    assert.equal(first.outcome, 'elsewhere');
    await b.win.coordinator.sweep();
    const swept = b.win.events.filter((e) => e.type === 'delivery' && e.trigger === 'sweep');
    assert.deepEqual(swept.map((e) => e.type === 'delivery' && e.outcome), ['elsewhere'], 'the idle sweep skips it');
    assert.equal(await b.win.coordinator.drain(session.id), 'elsewhere', 'so does a teardown drain');
    // A person's turn in B (had the view allowed it) carries nothing away.
    const user = await b.turns.userTurn(session.id);
    assert.equal(user.prefix, '');
    b.turns.endTurn(user.turnId);
    assert.equal(b.turns.wakeupCalls().length, 0, 'B never started a wakeup turn');
    assert.deepEqual(await pendingKeys(b.win, session.id), [completion.key], 'the completion waits, untouched');

    const a = await window('wa', [alpha]);
    await a.win.coordinator.sweep();
    const calls = await a.turns.waitForCalls((c) => c.some((x) => x.source === 'wakeup'));
    assert.equal(calls.filter((c) => c.source === 'wakeup' && c.sessionId === session.id).length, 1);
    await waitForEvent(a.win, (e) => e.type === 'delivered' && e.sessionId === session.id);
    assert.deepEqual(await pendingKeys(a.win, session.id), []);
  });

  it('both windows sweeping at once: each session is woken once, by the window of its folder (40 sessions)', async function () {
    this.timeout(60_000);
    const a = await window('wa', [alpha]);
    const b = await window('wb', [beta]);
    const home = new Map<string, 'a' | 'b'>();
    for (let i = 0; i < 40; i += 1) {
      const side = i % 2 === 0 ? 'a' : 'b';
      const meta = await store.create(`s${i}`, `s${i}`, { folder: side === 'a' ? alpha : beta });
      home.set(meta.id, side);
      // Each completion lands in the window that is *not* its home: the sink stores it, and leaves it.
      await (side === 'a' ? b : a).win.outbox.enqueue(completionFor(`t-${i}`, meta.id));
    }
    await Promise.all([a.win.coordinator.sweep(), b.win.coordinator.sweep(), a.win.coordinator.sweep(), b.win.coordinator.sweep()]);
    for (const [sessionId, side] of home) {
      const mine = (side === 'a' ? a : b).turns.wakeupCalls(sessionId);
      const theirs = (side === 'a' ? b : a).turns.wakeupCalls(sessionId);
      assert.equal(mine.length, 1, `${sessionId} woken once by its window`);
      assert.equal(theirs.length, 0, `${sessionId} never woken by the other folder's window`);
    }
  });
});
