// Builds a wakeup outbox and coordinator over a temporary storage root, plus completion builders and event waits.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Clock } from '../../src/extension/core/ports/clock';
import type { TaskCompletion } from '../../src/extension/core/tasks/taskTypes';
import { WakeupCoordinator, type WakeupCoordinatorOptions, type WakeupEvent } from '../../src/extension/core/wakeups/wakeupCoordinator';
import { WakeupOutbox } from '../../src/extension/core/wakeups/wakeupOutbox';
import type { TurnPort } from '../../src/extension/core/ports/turns';

export async function tempStorageRoot(prefix = 'vigil-wakeups-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

export function completionFor(taskId: string, sessionId: string, overrides: Partial<TaskCompletion> = {}): TaskCompletion {
  return {
    key: `${taskId}:exit`,
    taskId,
    sessionId,
    kind: 'exit',
    command: 'sleep 2',
    status: 'exited',
    exitCode: 0,
    signal: null,
    output: 'done',
    outputTruncated: false,
    at: Date.now(),
    ...overrides,
  };
}

export interface Window {
  outbox: WakeupOutbox;
  coordinator: WakeupCoordinator;
  events: WakeupEvent[];
}

/** One window's wakeup side: its own outbox instance and coordinator, over a shared root and turn port. */
export async function openWindow(
  root: string,
  turns: TurnPort,
  options: Partial<WakeupCoordinatorOptions> & { windowId?: string; clock?: Clock } = {},
): Promise<Window> {
  const outbox = await WakeupOutbox.open({ storageRoot: root, windowId: options.windowId ?? 'w1', clock: options.clock });
  // A long sweep interval by default: tests that want the sweep ask for it.
  const coordinator = new WakeupCoordinator({ sweepIntervalMs: 3_600_000, ...options, turns, outbox });
  const events: WakeupEvent[] = [];
  coordinator.subscribe((e) => events.push(e));
  coordinator.start();
  return { outbox, coordinator, events };
}

/** Resolves with the first event (past or future) that matches, or rejects after `timeoutMs` (a bound for a failing wait only). */
export function waitForEvent(win: Window, predicate: (e: WakeupEvent) => boolean, timeoutMs = 15_000, after = 0): Promise<WakeupEvent> {
  const seen = win.events.slice(after).find(predicate);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out after ${timeoutMs} ms; events: ${JSON.stringify(win.events.map((e) => [e.type, 'outcome' in e ? e.outcome : '']))}`));
    }, timeoutMs);
    const off = win.coordinator.subscribe((e) => {
      if (!predicate(e)) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

export function deliveryOutcome(win: Window, sessionId: string, trigger?: string) {
  return (e: WakeupEvent) => e.type === 'delivery' && e.sessionId === sessionId && (trigger === undefined || e.trigger === trigger);
}

export async function pendingKeys(win: Window, sessionId: string): Promise<string[]> {
  return (await win.outbox.entries(sessionId)).filter((e) => e.state === 'pending' || e.state === 'claimed').map((e) => e.key);
}

/** Lets `n` rounds of I/O callbacks and microtasks run: an interleaving point, not a stand-in for a wait. */
export async function ticks(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * For a mocha suite: a fresh storage root per test, and windows opened on it that are disposed (their work
 * finished) and removed with it after the test.
 */
export function windowsPerTest(): { root(): string; open(turns: TurnPort, options?: Parameters<typeof openWindow>[2]): Promise<Window> } {
  let root = '';
  const windows: Window[] = [];
  beforeEach(async () => {
    root = await tempStorageRoot();
  });
  afterEach(async () => {
    for (const w of windows.splice(0)) {
      w.coordinator.dispose();
      await w.coordinator.idle();
    }
    await fs.rm(root, { recursive: true, force: true });
  });
  return {
    root: () => root,
    async open(turns, options = {}) {
      const w = await openWindow(root, turns, options);
      windows.push(w);
      return w;
    },
  };
}
