// What the tests of windows that die or freeze around a wakeup share: windows with a real supervisor and a fake
// agent, closed once their turns have written their ends, and the wakeup prompts a session's transcript holds.

import type { TurnSupervisor } from '../../../src/extension/core/supervisor/turnSupervisor';
import type { Window } from '../../fakes/wakeupHarness';
import type { FakeAgent } from '../supervisor/fakeAgent';

export interface SupervisedWindow extends Window {
  sup: TurnSupervisor;
  agent: FakeAgent;
}

/** Stops the window's deliveries, lets its turn end (each end writes its records) and then its supervisor go. */
export async function closeSupervisedWindow(w: SupervisedWindow, sessionId: string): Promise<void> {
  w.coordinator.dispose();
  while (w.sup.getSnapshot(sessionId) !== undefined) {
    if (w.agent.current) w.agent.finish();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await w.coordinator.idle();
  w.sup.dispose();
}

/** The wakeup prompts stored in the session's transcript, in order. */
export async function wakeupPrompts(w: SupervisedWindow, sessionId: string): Promise<string[]> {
  const { records } = await w.sup.sessions.readAll(sessionId);
  return records.flatMap((r) => (r.type === 'userPrompt' && r.text.includes('Background task') ? [r.text] : []));
}
