// Which outbox claims a turn's stored prompt carries: the proof that a claim whose window died after storing its
// prompt (and before marking it delivered) was delivered, so no other window wakes the agent with it again.

import { readTranscript } from '../store/transcript';
import { transcriptFile } from '../store/storePaths';

/** Of `claimIds`, those a prompt record in the session's transcript carries (a read only: no lock, nothing moved). */
export type PersistedClaims = (sessionId: string, claimIds: readonly string[]) => Promise<ReadonlySet<string>>;

export function persistedClaimsIn(storageRoot: string): PersistedClaims {
  return async (sessionId, claimIds) => {
    const wanted = new Set(claimIds);
    const found = new Set<string>();
    const { records } = await readTranscript(transcriptFile(storageRoot, sessionId));
    for (const r of records) if (r.type === 'userPrompt' && r.claimId !== undefined && wanted.has(r.claimId)) found.add(r.claimId);
    return found;
  };
}
