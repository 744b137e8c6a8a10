// Finds the first output line that matches a task's notify pattern, across chunk boundaries.
// Patterns come from agents, so they run on RE2 (linear time) with bounded size and bounded input.

import { RE2JS } from 're2js';
import { VigilError, errorMessage, isVigilError } from '../common/errors';

/** Longest notify pattern accepted, in characters. */
export const MAX_PATTERN_CHARS = 1_000;
/**
 * RE2's own measure of a compiled pattern's cost (about one per character of a plain pattern).
 * Linear time is not cheap time: a pattern whose DFA explodes (`a[ab]{300}$`) cost 50–300 ms per
 * 4,096-character line on a busy 2-core machine, about 40 ms per 1,024; so both factors are bounded.
 */
export const MAX_PROGRAM_SIZE = 300;
/** A line is matched against its first this many characters; the rest of an overlong line is skipped. */
export const MAX_MATCH_CHARS = 1_024;
/** Matching time one chunk of output may take; lines after it in that chunk are not matched (and counted). */
export const FEED_BUDGET_MS = 5;
/**
 * A pattern whose DFA explodes still costs milliseconds per line within the bounds above (RE2 builds
 * states as it goes). One that took longer than SLOW_LINE_MS on MAX_SLOW_LINES lines, and on at least
 * 1 % of the lines tested (so a busy machine's rare pause does not count), is given up for the task:
 * the extension host pays for a few lines, never for the whole output.
 */
export const SLOW_LINE_MS = 20;
export const MAX_SLOW_LINES = 3;
const SLOW_SHARE = 0.01;

/** What the matcher needs of a compiled pattern: an unanchored search. */
export interface LinePattern {
  test(line: string): boolean;
}

export interface LineMatcherOptions {
  /** Monotonic milliseconds; injected by tests. */
  now?: () => number;
  /** Told once when lines start being skipped, and once when the pattern is given up. */
  report?: (message: string) => void;
  /** The pattern is given up (too costly on this output): the task should notify on exit instead. */
  giveUp?: () => void;
}

export class LineMatcher {
  /** The open (unterminated) line, at most MAX_MATCH_CHARS long. */
  private partial = '';
  /** The open line is longer than the cap: what follows, up to its newline, is never tested. */
  private overlong = false;
  /** Length of the open line when it was last tested, so an unchanged prefix is not tested again. */
  private testedOpen = -1;
  private matched = false;
  private disabled = false;
  private slowLines = 0;
  private testedLines = 0;
  private skipped = 0;
  private readonly now: () => number;

  constructor(
    private readonly pattern: LinePattern,
    private readonly options: LineMatcherOptions = {},
  ) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Returns the first matching line (without its newline, cut at MAX_MATCH_CHARS) once; afterwards always undefined. */
  feed(text: string): string | undefined {
    if (this.matched || this.disabled || !text) return undefined;
    const started = this.now();
    // The first line of a chunk is always tested: the budget bounds the matching of many lines, and a
    // pause of this process (a GC, a busy machine) before any matching must not skip the only one.
    let first = true;
    let start = 0;
    for (;;) {
      const end = nextBreak(text, start);
      if (end === -1) break;
      this.extend(text.slice(start, end));
      const line = this.partial;
      const overlong = this.overlong;
      const tested = this.testedOpen === line.length;
      this.partial = '';
      this.overlong = false;
      this.testedOpen = -1;
      if (!tested && (first ? !this.disabled : this.withinBudget(started))) {
        first = false;
        if (this.test(line, overlong)) return line;
      }
      // \r\n is one break.
      start = text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
    }
    this.extend(text.slice(start));
    // A server may print its banner without a newline and then wait: test the open line too,
    // but only when its (capped) text changed since the last test.
    const open = this.partial;
    if (open && open.length !== this.testedOpen && (first ? !this.disabled : this.withinBudget(started))) {
      this.testedOpen = open.length;
      if (this.test(open, this.overlong)) return open;
    }
    return undefined;
  }

  get done(): boolean {
    return this.matched || this.disabled;
  }

  /** Lines not matched because a chunk of output used up its matching time. */
  get skippedLines(): number {
    return this.skipped;
  }

  private withinBudget(started: number): boolean {
    if (this.disabled) return false;
    if (this.now() - started <= FEED_BUDGET_MS) return true;
    if (this.skipped === 0) {
      this.options.report?.(`output arrives faster than its notify pattern can be matched; lines beyond ${FEED_BUDGET_MS} ms of matching per chunk are skipped`);
    }
    this.skipped += 1;
    return false;
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

  private test(line: string, cut: boolean): boolean {
    // A cut line is tested with a newline after it: RE2's `$` (and `.`) never match there, so
    // `^…$` cannot match a prefix as if it were the whole line.
    const started = this.now();
    const hit = this.pattern.test(cut ? `${line}\n` : line);
    this.testedLines += 1;
    if (!hit && this.now() - started > SLOW_LINE_MS) {
      this.slowLines += 1;
      if (this.slowLines >= MAX_SLOW_LINES && this.slowLines >= this.testedLines * SLOW_SHARE) this.disable();
    }
    if (!hit) return false;
    this.matched = true;
    this.partial = '';
    return true;
  }

  private disable(): void {
    this.disabled = true;
    this.partial = '';
    this.options.report?.(
      `its notify pattern took over ${SLOW_LINE_MS} ms on ${MAX_SLOW_LINES} lines of this output, so it is no longer matched; the task notifies on exit instead`,
    );
    this.options.giveUp?.();
  }
}

function nextBreak(text: string, from: number): number {
  const n = text.indexOf('\n', from);
  const r = text.indexOf('\r', from);
  if (n === -1) return r;
  if (r === -1) return n;
  return Math.min(n, r);
}

/**
 * Bound on expansionEstimate, checked before RE2 compiles. Generous next to MAX_PROGRAM_SIZE (which still decides
 * for what passes): an estimate this size compiles in milliseconds.
 */
export const MAX_EXPANSION = 4 * MAX_PROGRAM_SIZE;

/**
 * About how many items a pattern becomes once RE2 expands `{n}`, `{n,}` and `{n,m}` (each repeated part counted
 * as many times as its largest count, nested counts multiplied). Reads only the text, so its cost is linear;
 * syntax it does not know counts as plain characters, and RE2 then judges the pattern as usual.
 */
export function expansionEstimate(pattern: string): number {
  // One frame per open group: the size of what it holds so far, and of its last item (what a count repeats).
  const frames: Array<{ total: number; last: number }> = [{ total: 0, last: 0 }];
  const top = () => frames[frames.length - 1];
  const item = (size: number) => {
    top().total += size;
    top().last = size;
  };
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i];
    if (ch === '\\') {
      if (pattern[i + 1] === 'Q') {
        // \Q…\E: literal text, one item per character.
        const end = pattern.indexOf('\\E', i + 2);
        const stop = end === -1 ? pattern.length : end;
        for (let k = i + 2; k < stop; k += 1) item(1);
        i = end === -1 ? pattern.length : end + 1;
        continue;
      }
      // \p{Greek}, \x{10FFFF}: the braces belong to the escape, not a count.
      if (/[pPx]/.test(pattern[i + 1] ?? '') && pattern[i + 2] === '{') {
        const close = pattern.indexOf('}', i + 3);
        i = close === -1 ? pattern.length : close;
      } else {
        i += 1;
      }
      item(1);
    } else if (ch === '[') {
      // A class is one item; `]` right after `[` or `[^` is a member, and escapes may hide a `]`.
      let k = i + 1;
      if (pattern[k] === '^') k += 1;
      if (pattern[k] === ']') k += 1;
      while (k < pattern.length && pattern[k] !== ']') k += pattern[k] === '\\' ? 2 : 1;
      i = k;
      item(1);
    } else if (ch === '(') {
      if (pattern[i + 1] === '?') {
        // A group's header is no item: `(?:`, `(?i:`, `(?P<name>`, `(?<name>`; a bare `(?i)` opens no group at all.
        const header = /^\(\?(?:P?<[^>]*>|[a-zA-Z-]*(?::|(\))))/.exec(pattern.slice(i, i + 300));
        if (header) {
          i += header[0].length - 1;
          if (header[1]) continue;
        }
      }
      frames.push({ total: 0, last: 0 });
    } else if (ch === ')' && frames.length > 1) {
      const group = frames.pop()!;
      item(Math.max(group.total, 1));
    } else if (ch === '{') {
      const count = /^\{(\d{1,6})(,(\d{0,6}))?\}/.exec(pattern.slice(i, i + 16));
      if (!count) {
        item(1);
        continue;
      }
      const times = Math.max(Number(count[1]), count[3] ? Number(count[3]) : count[2] ? Number(count[1]) + 1 : 0, 1);
      const frame = top();
      frame.total += frame.last * (times - 1);
      frame.last *= times;
      i += count[0].length - 1;
    } else if (ch !== '*' && ch !== '+' && ch !== '?' && ch !== '|' && ch !== '^' && ch !== '$') {
      item(1);
    }
  }
  while (frames.length > 1) {
    const group = frames.pop()!;
    item(Math.max(group.total, 1));
  }
  return frames[0].total;
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
    const translated = RE2JS.translateRegExp(pattern);
    // RE2 expands counted repetitions while compiling, synchronously: `.{0,999}` × 125 took 0.8 s before
    // its program size could be refused. Refuse an obvious blow-up from the text first.
    const expanded = expansionEstimate(translated);
    if (expanded > MAX_EXPANSION) {
      throw new VigilError(
        'INVALID_INPUT',
        `${JSON.stringify(pattern)} is too complex (its counted repetitions expand to about ${expanded} items, at most ${MAX_EXPANSION}); use fewer or smaller repetitions. ${ALLOWED}`,
      );
    }
    compiled = RE2JS.compile(translated);
  } catch (error) {
    if (isVigilError(error)) throw error;
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
 * The matcher for a task record. A record written by an earlier version may hold a pattern RE2
 * rejects: the task then notifies on exit (reported once, `giveUp` called) instead of failing to re-attach.
 */
export function matcherForStoredPattern(pattern: string, options: Required<Pick<LineMatcherOptions, 'report' | 'giveUp'>>): LineMatcher | undefined {
  try {
    return new LineMatcher(compilePattern(pattern), options);
  } catch (error) {
    options.report(`its notify pattern is no longer accepted, so it notifies on exit only: ${errorMessage(error)}`);
    options.giveUp();
    return undefined;
  }
}
