// How a literal text search reports what it found, the same for the host's `_vigil/fs/search` and the built-in
// agent's own search: the file's path relative to the searched root with `/`, the line number from 1, and the
// line trimmed and cut to maxMatchLineChars (workspaceLimits.ts).

import { maxMatchLineChars } from './workspaceLimits';

export interface TextMatch {
  path: string;
  line: number;
  text: string;
}

/** Adds the lines of `text` holding `query` to `matches` as matches in `path`; true once `matches` holds `cap`. */
export function collectMatches(matches: TextMatch[], path: string, text: string, query: string, cap: number): boolean {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (!lines[i].includes(query)) continue;
    matches.push({ path, line: i + 1, text: lines[i].trim().slice(0, maxMatchLineChars) });
    if (matches.length >= cap) return true;
  }
  return false;
}
