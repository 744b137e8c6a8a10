// Finds the first output line that matches a task's notify pattern, across chunk boundaries.
// Patterns come from agents, so they run on RE2 (linear time) with bounded size and bounded input.

import { RE2JS } from 're2js';
import { VigilError, errorMessage } from '../common/errors';

/** Longest notify pattern accepted, in characters. */
export const MAX_PATTERN_CHARS = 1_000;
/**
 * RE2's own measure of a compiled pattern's cost. Linear time alone is not enough: when the DFA
 * gives up, the NFA costs (line length × program size) per test; 400 × MAX_MATCH_CHARS stays far
 * below a millisecond-scale pause, while a 1,000-state program on a long line took half a second.
 */
export const MAX_PROGRAM_SIZE = 400;
/** A line is matched against its first this many characters; the rest of an overlong line is skipped. */
export const MAX_MATCH_CHARS = 4_096;

/** What the matcher needs of a compiled pattern: an unanchored search. */
export interface LinePattern {
  test(line: string): boolean;
}

export class LineMatcher {
  /** The open (unterminated) line, at most MAX_MATCH_CHARS long. */
  private partial = '';
  /** The open line is longer than the cap: what follows, up to its newline, is never tested. */
  private overlong = false;
  /** Length of the open line when it was last tested, so an unchanged prefix is not tested again. */
  private testedOpen = -1;
  private matched = false;

  constructor(private readonly pattern: LinePattern) {}

  /** Returns the first matching line (without its newline, cut at MAX_MATCH_CHARS) once; afterwards always undefined. */
  feed(text: string): string | undefined {
    if (this.matched || !text) return undefined;
    let start = 0;
    for (;;) {
      const end = nextBreak(text, start);
      if (end === -1) break;
      this.extend(text.slice(start, end));
      const line = this.partial;
      this.partial = '';
      this.overlong = false;
      const tested = this.testedOpen === line.length;
      this.testedOpen = -1;
      if (!tested && this.test(line)) return line;
      // \r\n is one break.
      start = text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
    }
    this.extend(text.slice(start));
    // A server may print its banner without a newline and then wait: test the open line too,
    // but only when its (capped) text changed since the last test.
    const open = this.partial;
    if (open && open.length !== this.testedOpen) {
      this.testedOpen = open.length;
      if (this.test(open)) return open;
    }
    return undefined;
  }

  get done(): boolean {
    return this.matched;
  }

  private extend(piece: string): void {
    if (this.overlong || !piece) return;
    const room = MAX_MATCH_CHARS - this.partial.length;
    if (piece.length <= room) {
      this.partial += piece;
      return;
    }
    this.partial += piece.slice(0, room);
    this.overlong = true;
  }

  private test(line: string): boolean {
    if (!this.pattern.test(line)) return false;
    this.matched = true;
    this.partial = '';
    return true;
  }
}

function nextBreak(text: string, from: number): number {
  const n = text.indexOf('\n', from);
  const r = text.indexOf('\r', from);
  if (n === -1) return r;
  if (r === -1) return n;
  return Math.min(n, r);
}

const ALLOWED =
  `Notify patterns are RE2 regular expressions of at most ${MAX_PATTERN_CHARS} characters: ` +
  'no backreferences (\\1), no lookahead or lookbehind ((?=…), (?!…), (?<=…), (?<!…)); use (?i) for case-insensitive matching.';

/**
 * Compiles a notify pattern on RE2 (matching time linear in the line, whatever the pattern).
 * Anything it cannot run safely is an INVALID_INPUT error that says what is allowed.
 */
export function compilePattern(pattern: string): LinePattern {
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw new VigilError('INVALID_INPUT', `the pattern is ${pattern.length} characters long. ${ALLOWED}`);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    throw new VigilError('INVALID_INPUT', `${JSON.stringify(pattern)} cannot be used (${errorMessage(error)}). ${ALLOWED}`, { cause: error });
  }
  if (compiled.programSize() > MAX_PROGRAM_SIZE) {
    throw new VigilError(
      'INVALID_INPUT',
      `${JSON.stringify(pattern)} is too complex (RE2 program size ${compiled.programSize()}, at most ${MAX_PROGRAM_SIZE}); use fewer or smaller repetitions. ${ALLOWED}`,
    );
  }
  return compiled;
}

/**
 * The matcher for a stored task record. A record written by an earlier version may hold a pattern
 * RE2 rejects: the task then only notifies on exit (reported once), instead of failing to re-attach.
 */
export function matcherForStoredPattern(pattern: string, report: (message: string) => void): LineMatcher | undefined {
  try {
    return new LineMatcher(compilePattern(pattern));
  } catch (error) {
    report(`its notify pattern is no longer accepted, so it notifies on exit only: ${errorMessage(error)}`);
    return undefined;
  }
}
