// A turn's admission under its lease: the admission hook's contribution, then the prompt stored durably.

import { errorMessage } from '../common/errors';
import type { Logger } from '../ports/logger';
import type { AdmissionHook, TurnSource } from '../ports/turns';
import type { LeaseToken, TurnLeaseStore } from '../lease/turnLease';
import type { SessionStore } from '../store/sessionStore';
import type { TurnRun } from './turnRun';

export interface PromptAdmission {
  hook: AdmissionHook | undefined;
  run: TurnRun;
  sessionId: string;
  turnId: string;
  source: TurnSource;
  prompt: string;
  logger: Logger;
  lease: TurnLeaseStore;
  token: LeaseToken;
  sessions: SessionStore;
  /** Set the session's state back to idle once the prompt is stored. */
  clearState: boolean;
  /** Unregisters the turn when it is not admitted, before its lease is given back. */
  abandon(): void;
}

/**
 * `stored` with the text the agent is given; `failed` (the prompt could not be stored) or `lost` (a wakeup whose
 * claim another window took while this one was frozen past its deadline: nothing is stored) with the lease given
 * back. A user turn whose carried claim was lost that way is stored without it.
 */
export type AdmissionOutcome = { kind: 'stored'; text: string } | { kind: 'failed' } | { kind: 'lost' };

export async function admitPrompt(a: PromptAdmission): Promise<AdmissionOutcome> {
  let contribution: Awaited<ReturnType<AdmissionHook>>;
  try {
    contribution = await a.hook?.({ sessionId: a.sessionId, turnId: a.turnId, source: a.source });
  } catch (error) {
    a.logger.error(`Admission hook failed for session ${a.sessionId}: ${errorMessage(error)}`);
  }
  const carried = contribution?.prefix ? `${contribution.prefix}\n\n${a.prompt}` : a.prompt;
  // 'carried': stored with the claim; 'plain': a user turn's lost claim left out; 'lost': a wakeup with nothing to carry.
  let stored = 'carried' as 'carried' | 'plain' | 'lost';
  const store = async (held: boolean): Promise<void> => {
    if (!held) stored = a.source === 'wakeup' ? 'lost' : 'plain';
    if (stored === 'carried') await a.run.admit(carried, contribution?.claimId);
    else if (stored === 'plain') await a.run.admit(a.prompt);
  };
  let failed = false;
  try {
    await (contribution?.persist ? contribution.persist(store) : store(true));
    if (stored !== 'lost' && a.clearState) await a.sessions.update(a.sessionId, { state: 'idle' }, a.lease.guard(a.token));
  } catch (error) {
    a.logger.error(`Session ${a.sessionId}: the prompt could not be stored: ${errorMessage(error)}`);
    failed = true;
  }
  if (failed || stored === 'lost') {
    a.abandon();
    await a.lease.release(a.token).catch((e: unknown) => a.logger.warn(`Releasing the lease failed: ${errorMessage(e)}`));
  }
  const settle = (fn: (() => void) | undefined) => {
    try {
      fn?.();
    } catch (error) {
      a.logger.error(`Admission callback failed: ${errorMessage(error)}`);
    }
  };
  if (failed || stored !== 'carried') {
    settle(contribution?.onNotPersisted);
    return failed ? { kind: 'failed' } : stored === 'lost' ? { kind: 'lost' } : { kind: 'stored', text: a.prompt };
  }
  settle(contribution?.onPersisted);
  return { kind: 'stored', text: carried };
}
