// Windows over one storage root, each a real TurnSupervisor with its own outbox, coordinator and scripted agent.

import { systemClock } from '../../src/extension/core/ports/clock';
import { silentLogger } from '../../src/extension/core/ports/logger';
import type { LivenessSettings } from '../../src/extension/core/supervisor/livenessSettings';
import { TurnSupervisor } from '../../src/extension/core/supervisor/turnSupervisor';
import type { StartTurnResult, TurnEnded } from '../../src/extension/core/ports/turns';
import { FakeAgent } from '../unit/supervisor/fakeAgent';
import { openWindow, type Window } from './wakeupHarness';

const QUIET: LivenessSettings = { enabled: true, timeoutMs: 600_000, toolTimeoutMs: 600_000, graceMs: 5_000 };

export interface SupervisorWindow extends Window {
  windowId: string;
  sup: TurnSupervisor;
  agent: FakeAgent;
  /** The window goes away: its coordinator and supervisor stop (a running turn is left to the test). */
  close(): void;
  /** Test cleanup: stops new work, ends a running turn and waits until all of it has finished writing. */
  shutDown(sessionId: string): Promise<void>;
}

export async function openSupervisorWindow(root: string, windowId: string, maxPerTurn = 5): Promise<SupervisorWindow> {
  const agent = new FakeAgent();
  const sup = new TurnSupervisor({ storageRoot: root, clock: systemClock, logger: silentLogger, agents: agent, settings: () => QUIET, windowId });
  await sup.sessions.init();
  const win = await openWindow(root, sup, { windowId, maxPerTurn: () => maxPerTurn });
  let closed = false;
  return {
    ...win,
    windowId,
    sup,
    agent,
    close: () => {
      if (closed) return;
      closed = true;
      win.coordinator.dispose();
      sup.dispose();
    },
    shutDown: async (sessionId: string) => {
      win.coordinator.dispose();
      await win.coordinator.idle();
      await agent.cancel();
      const deadline = Date.now() + 10_000;
      while (sup.getSnapshot(sessionId) !== undefined) {
        if (Date.now() > deadline) throw new Error(`a turn of ${windowId} did not end`);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      closed = true;
      sup.dispose();
    },
  };
}

/** Waits, on the event loop (never on a duration), until the window's agent has a prompt in flight. */
export async function promptInFlight(win: SupervisorWindow, what = 'the agent to receive the prompt'): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!win.agent.current) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} in ${win.windowId}`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Starts a turn in `win` and waits until its agent has the prompt. */
export async function runningTurn(win: SupervisorWindow, sessionId: string, source: 'user' | 'wakeup' | 'resume' = 'user'): Promise<{ turnId: string; ended: Promise<TurnEnded> }> {
  const result: StartTurnResult = await win.sup.startTurn(sessionId, `a ${source} message`, { source });
  if (result.kind !== 'started') throw new Error(`turn did not start in ${win.windowId}: ${JSON.stringify(result)}`);
  await promptInFlight(win);
  return { turnId: result.turnId, ended: result.ended };
}

/** A provider credential failure, as the agent handle reports it. */
export function authFailure(message = 'the API key was rejected (401)'): Error {
  return new Error(message, { cause: { code: 'PROVIDER_AUTH', message } });
}
