// After reclaiming a lease whose turn was in flight: mark the session interrupted in its transcript.

import type { Logger } from '../ports/logger';
import type { SessionStore } from '../store/sessionStore';
import type { WriteGuard } from '../store/transcript';
import type { RecordInput } from '../store/transcriptRecords';
import type { LeaseHolder } from '../lease/leaseRecord';
import { lastTurnState } from './toolCalls';

export const INTERRUPTED_TOOL_TEXT = 'interrupted before a result was produced';

/**
 * Closes the previous holder's turn: every unfinished tool call gets a synthetic result, then an
 * `interrupted` marker, and the session becomes resumable. Written under the new holder's epoch.
 */
export async function markInterrupted(
  store: SessionStore,
  sessionId: string,
  previous: LeaseHolder,
  reason: string,
  guard: WriteGuard,
  logger: Logger,
): Promise<boolean> {
  const tail = await store.readTail(sessionId, 5_000);
  const state = lastTurnState(tail.records, previous.turnId);
  if (state.ended) return false;
  const records: RecordInput[] = state.openToolCalls.map((toolCallId) => ({
    type: 'syntheticToolResult',
    turnId: previous.turnId,
    toolCallId,
    status: 'failed',
    text: INTERRUPTED_TOOL_TEXT,
  }));
  records.push({ type: 'interrupted', turnId: previous.turnId, reason });
  await store.transcriptWriter(sessionId, guard).append(records);
  await store.update(sessionId, { state: 'interrupted', stateReason: reason }, guard);
  logger.warn(`Session ${sessionId}: turn ${previous.turnId} was interrupted (${reason}); ${state.openToolCalls.length} unfinished tool call(s) closed`);
  return true;
}
