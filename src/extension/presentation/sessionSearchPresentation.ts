// What `Vigil: Search Sessions…` shows: one row per hit (the title, where it matched and when, the snippet) and a
// title line that says how far the search got, partial results included; pure, unit-tested.

import type { SearchResult, SessionHit } from '../core/search/sessionSearch';
import { formatRelativeTime } from './relativeTime';

export interface SearchRow {
  sessionId: string;
  label: string;
  description: string;
  detail?: string;
}

/**
 * `$(name)` in a quick pick's label, description and detail draws an icon: text from a transcript or a title is
 * shown as typed, with the `$(` escaped as the workbench reads it.
 */
export function escapeIcons(text: string): string {
  return text.replace(/\$\(/g, '\\$(');
}

export function searchRow(hit: SessionHit, now: number): SearchRow {
  const when = formatRelativeTime(hit.updatedAt, now);
  return {
    sessionId: hit.sessionId,
    label: escapeIcons(hit.title.trim() || 'Untitled session'),
    description: `${hit.where === 'title' ? 'in the title' : 'in the transcript'} · ${when}`,
    detail: hit.snippet === undefined ? undefined : escapeIcons(hit.snippet),
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * The title of the pick: while typing, what is searched; then how many match and, when the result is partial,
 * why (the time ran out, the hit limit, transcripts read only in part or not at all).
 */
export function searchStatus(state: { sessions: number; result?: SearchResult; searching: boolean }, limits: { budgetMs: number; maxBytesPerSession: number }): string {
  const { result } = state;
  if (!result || result.query === '') return `Search ${plural(state.sessions, 'session')} of this folder`;
  const n = result.hits.length;
  const found = n === 0 ? 'No session matches' : result.stopped === 'limit' ? `The ${n} most recent matches` : `${plural(n, 'session')} ${n === 1 ? 'matches' : 'match'}`;
  if (state.searching) return `Searching… ${n > 0 ? `${found} so far` : ''}`.trim();
  const notes: string[] = [];
  if (result.stopped === 'time') notes.push(`searched the newest ${result.searched.toLocaleString('en-US')} of ${plural(result.total, 'session')} in the ${Math.round(limits.budgetMs / 1000)} s allowed`);
  if (result.stopped === 'limit') notes.push('more match: type more to narrow');
  if (result.cut > 0) notes.push(`${plural(result.cut, 'long transcript')} searched in ${result.cut === 1 ? 'its' : 'their'} first ${Math.round(limits.maxBytesPerSession / (1024 * 1024))} MB`);
  if (result.unreadable > 0) notes.push(`${plural(result.unreadable, 'transcript')} could not be read (see Vigil: Show Log)`);
  return notes.length > 0 ? `${found} (${notes.join('; ')})` : found;
}
