// Fencing of a turn's destructive acts on its agent (the kill, the stop of its leftovers) by the lease epoch.
// An agent behind the relay outlives its window: a window frozen long enough for another to take the session's
// lease (and the relay with it) may wake with a Stop or a kill still due, and the agent's processes then belong
// to the other window's turns. Only the holder of the current epoch may stop them.

import type { AgentHandle } from '../ports/agentHandle';
import type { LeaseToken, TurnLeaseStore } from '../lease/turnLease';

/** Whether the turn of `token` may still kill its agent and stop what the agent runs. */
export async function ownsAgent(handle: AgentHandle | undefined, lease: TurnLeaseStore, token: LeaseToken): Promise<boolean> {
  // The host's own child serves this window only: it is always this window's to stop (Stop means stop).
  if (!handle?.outlivesWindow?.()) return true;
  // Unreadable: the lease cannot vouch for this window, and a kill must never hit another window's turn.
  const current = await lease.read(token.sessionId).catch(() => undefined);
  return current?.epoch === token.epoch;
}
