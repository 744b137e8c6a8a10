// A session's title: a new session is untitled until its first message names it; the agent's name for a
// session (`session_info_update`) becomes its title, unless the person named the session themselves:
// their choice stands until they rename it again.

import type { SessionMeta, SessionStore } from '../core/store/sessionStore';

/** Renames the session to the agent's title when allowed; returns the new metadata, or undefined when nothing changed. */
export async function adoptAgentTitle(store: Pick<SessionStore, 'get' | 'rename'>, sessionId: string, title: string): Promise<SessionMeta | undefined> {
  const meta = await store.get(sessionId);
  if (!meta || meta.titleSource === 'person' || meta.title === title) return undefined;
  return store.rename(sessionId, title, 'agent');
}

export const untitled = 'New session';

/** The title a message gives a session: its first line, cut to 60 characters. */
export function titleFrom(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || untitled;
}

/** Names an untitled session after the message sent to it; `known`: its title as a model on screen holds it. */
export async function titleIfUntitled(store: Pick<SessionStore, 'get' | 'rename'>, sessionId: string, text: string, known?: string): Promise<SessionMeta | undefined> {
  const title = known ?? (await store.get(sessionId))?.title;
  if (title !== untitled) return undefined;
  return store.rename(sessionId, titleFrom(text), 'auto');
}
