// The agent's name for a session (`session_info_update`) becomes its title, unless the person named
// the session themselves: their choice stands until they rename it again.

import type { SessionMeta, SessionStore } from '../core/store/sessionStore';

/** Renames the session to the agent's title when allowed; returns the new metadata, or undefined when nothing changed. */
export async function adoptAgentTitle(store: Pick<SessionStore, 'get' | 'rename'>, sessionId: string, title: string): Promise<SessionMeta | undefined> {
  const meta = await store.get(sessionId);
  if (!meta || meta.titleSource === 'person' || meta.title === title) return undefined;
  return store.rename(sessionId, title, 'agent');
}
