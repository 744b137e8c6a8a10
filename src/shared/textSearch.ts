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

/**
 * `text` in lower case with its indices unchanged, so a hit found in the folded text is at the same place in the
 * original: İ is the one letter whose lower case is longer (i + a combining dot); it folds to a plain i. A final
 * sigma folds as any sigma, since its lower case depends on what follows it, which a query cut short does not know.
 */
export function foldCase(text: string): string {
  return text.replace(/\u0130/g, 'i').toLowerCase().replace(/\u03c2/g, '\u03c3');
}

// Whitespace, controls, bidirectional overrides and other invisible format characters.
// eslint-disable-next-line no-control-regex
const blank = /[\s\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]+/g;

/** `text` with each run of whitespace and invisible characters as one space: hostile text can neither hide nor reorder. */
export function singleSpaced(text: string): string {
  return text.replace(blank, ' ');
}

/**
 * One line of `text` around the hit at [index, index + length): up to `before` characters ahead of it and the rest of
 * `width` after, on word edges where there is one, "…" where text was left out, single-spaced (`singleSpaced`).
 */
export function snippetAround(text: string, index: number, length: number, width = 120, before = 40): string {
  const from = Math.max(0, index - before);
  const to = Math.min(text.length, Math.max(index + length, from + width));
  let start = from;
  if (from > 0 && !/\s/.test(text[from - 1])) {
    const space = text.slice(from, index).search(/\s/);
    if (space !== -1) start = from + space + 1;
  }
  let end = to;
  if (to < text.length) {
    const space = text.slice(index + length, to + 1).search(/\s[^\s]*$/);
    if (space !== -1) end = index + length + space;
  }
  // A surrogate pair is never cut in two.
  if (start > 0 && /[\udc00-\udfff]/.test(text[start] ?? '')) start -= 1;
  if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1] ?? '')) end -= 1;
  const body = singleSpaced(text.slice(start, end)).trim();
  return `${start > 0 ? '… ' : ''}${body}${end < text.length ? ' …' : ''}`;
}
