// At activation: the turns an earlier window of this folder left running behind their relays are taken
// back (the lease re-taken through reclaim, the agent re-attached by the turn), before the startup scan
// would mark them interrupted. A relay that ended without a window leaves its reason for the person; one of
// another Vigil version is stopped, and its turn recovered as interrupted (Resume offered), as after a crash.

import { errorMessage } from '../common/errors';
import type { Logger } from '../ports/logger';
import type { TurnSupervisor } from '../supervisor/turnSupervisor';
import type { RelayAgents } from './relayAgents';
import { relayVersionWords, sameVersion, type RelayRemains } from './relayPlace';

export interface TakeBackDeps {
  relays: RelayAgents;
  supervisor: TurnSupervisor;
  /** Whether this window runs the session (its folder is open here). */
  mayRun(sessionId: string): Promise<boolean>;
  /** Withdraws the questions the window that began the turn published for other windows (it is gone: they are asked again here). */
  withdrawQuestions(sessionId: string, turnId: string, windowId: string): Promise<void>;
  logger: Logger;
}

/** Returns the sessions whose turn this window took back. */
export async function takeBackTurns(d: TakeBackDeps): Promise<string[]> {
  const { live, ended } = await d.relays.scan();
  const taken: string[] = [];
  for (const relay of live) {
    try {
      if (!(await d.mayRun(relay.sessionId))) continue;
      const lease = await d.supervisor.lease.read(relay.sessionId);
      // No turn was running (the relay ends its idle agent at its deadline), or a live window still runs it.
      if (!lease?.holder || (await d.supervisor.lease.liveHolder(relay.sessionId))) continue;
      if (!sameVersion(relay.state!)) {
        await otherVersion(d, relay);
        continue;
      }
      const result = await d.supervisor.adoptTurn(relay.sessionId);
      if (result.kind === 'started') {
        taken.push(relay.sessionId);
        await d.withdrawQuestions(relay.sessionId, lease.holder.turnId, lease.holder.windowId).catch((error: unknown) => d.logger.warn(`session ${relay.sessionId}: withdrawing the earlier window's questions failed: ${errorMessage(error)}`));
      } else d.logger.info(`session ${relay.sessionId}: the turn left behind the relay was not taken back (${result.kind === 'failed' ? result.reason : result.kind})`);
    } catch (error) {
      d.logger.error(`session ${relay.sessionId}: taking back its turn failed: ${errorMessage(error)}`);
    }
  }
  for (const relay of ended) {
    if (!(await d.mayRun(relay.sessionId).catch(() => false))) continue;
    // Read once: the startup scan then marks the turn interrupted, and the session's log says why.
    d.logger.warn(`session ${relay.sessionId}: its agent was ended while no window was attached: ${relay.ended!.reason}`);
    d.supervisor.noteInterruption(relay.sessionId, `The agent was stopped while no Vigil window was open: ${relay.ended!.reason}.`);
    await d.relays.forget(relay);
  }
  return taken;
}

/** A relay of another Vigil version cannot be spoken to: it is stopped with its agent, and the turn recovered as interrupted. */
async function otherVersion(d: TakeBackDeps, relay: RelayRemains): Promise<void> {
  const reason = relayVersionWords(relay.state!.v);
  d.logger.warn(`session ${relay.sessionId}: ${reason}`);
  await d.relays.stop(relay);
  d.supervisor.noteInterruption(relay.sessionId, reason);
  await d.relays.forget(relay);
}

