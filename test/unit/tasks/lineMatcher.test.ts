// Notify patterns from agents: RE2 only, bounded pattern and line, clear errors, and an event loop that keeps turning.

import { strict as assert } from 'node:assert';
import { isVigilError } from '../../../src/extension/core/common/errors';
import { LineMatcher, MAX_MATCH_CHARS, MAX_PATTERN_CHARS, MAX_SLOW_LINES, SLOW_LINE_MS, compilePattern, expansionEstimate, matcherForStoredPattern } from '../../../src/extension/core/tasks/lineMatcher';

function rejected(pattern: string): string {
  try {
    compilePattern(pattern);
  } catch (error) {
    assert.ok(isVigilError(error, 'INVALID_INPUT'), `${pattern}: ${String(error)}`);
    return error.message;
  }
  assert.fail(`${pattern} was accepted`);
}

/** Counts event-loop turns: each turn schedules the next, so a blocked loop counts nothing. */
function tickCounter(): { readonly ticks: number; stop(): void } {
  let ticks = 0;
  let running = true;
  const tick = () => {
    ticks += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get ticks() {
      return ticks;
    },
    stop() {
      running = false;
    },
  };
}

/**
 * A clock that stands still, for tests of what matches: on the real clock a pause of the process (a busy machine)
 * between two readings inside one feed uses up the chunk's matching time and skips the line. The time budget has
 * its own tests below, with a clock they move.
 */
const still = { now: () => 0 };

describe('notify patterns', () => {
  it('the catastrophic-backtracking pattern answers right, and the loop keeps turning between lines', async () => {
    const matcher = () => new LineMatcher(compilePattern('^(a|aa)+$'), still);
    // 38 characters took 4.2 s on a backtracking engine, ×1.6 per character more: these would never return.
    const hostile = `${'a'.repeat(5_000)}!`;
    assert.ok(hostile.length > MAX_MATCH_CHARS, 'longer than the matched prefix: the cut must not fake a line end');
    const counter = tickCounter();
    const rounds = 50;
    for (let i = 0; i < rounds; i += 1) {
      const seenBefore = counter.ticks;
      assert.equal(matcher().feed(`${hostile}\n`), undefined, 'no match: the line ends in !');
      // Sync point: the next round starts only once the ticker has run again in between.
      while (counter.ticks === seenBefore) await new Promise((resolve) => setImmediate(resolve));
    }
    counter.stop();
    assert.ok(counter.ticks >= rounds, `${counter.ticks} ticks`);
    const line = 'a'.repeat(MAX_MATCH_CHARS);
    assert.equal(matcher().feed(`${line}\n`), line, 'a line of only a’s matches');
    assert.equal(matcher().feed(`${line}a\n`), undefined, 'one character more is cut, and a cut line has no end to anchor to');
  });

  it('refuses backreferences and lookaround with a clear INVALID_INPUT error saying what is allowed', () => {
    for (const pattern of ['(a)\\1', 'foo(?=bar)', 'foo(?!bar)', '(?<=x)y', '(?<!x)y', '[unclosed']) {
      const message = rejected(pattern);
      assert.match(message, /RE2/, message);
      assert.match(message, /no backreferences/, message);
    }
  });

  it('refuses a pattern that is too long or too complex', () => {
    assert.match(rejected('a'.repeat(MAX_PATTERN_CHARS + 1)), new RegExp(`is ${MAX_PATTERN_CHARS + 1} characters long.*at most ${MAX_PATTERN_CHARS} characters`));
    assert.match(rejected('a[ab]{999}$'), /too complex/);
    assert.doesNotThrow(() => compilePattern('(?i)(compiled successfully|webpack compiled|ready in \\d+ ?ms|listening on (port )?:?\\d+|Local:\\s+https?://\\S+)'));
  });

  it('refuses a pattern whose counted repetitions blow up before RE2 compiles it (compiling is synchronous)', () => {
    // 1,000 characters that RE2 expands to ~125,000 items: compiling it first held the event loop for most of a second.
    for (const pattern of ['.{0,999}'.repeat(125), '(?:(?:a{0,30}){0,30}){0,30}', '((a|b|c){10}){400}', 'x{0,1000}{0,1000}']) {
      assert.match(rejected(pattern), /counted repetitions expand to about \d+ items, at most \d+.*RE2/, pattern);
    }
    assert.equal(expansionEstimate('(?<port>\\d{1,5})\\/ready'), 11, 'group headers and escapes are no items');
    assert.equal(expansionEstimate('[a-z\\]{]{3}\\p{Greek}{2}\\Q{9}\\E'), 3 + 2 + 3);
    assert.equal(expansionEstimate('((ab){3}c){4}'), 28);
    // What RE2 accepted before is still accepted: the estimate only refuses clear blow-ups.
    for (const pattern of ['(?i)(compiled successfully|webpack compiled|ready in \\d+ ?ms)', '(?<verylongname>\\d){20}', '\\d{1,3}(\\.\\d{1,3}){3}']) {
      assert.doesNotThrow(() => compilePattern(pattern), pattern);
    }
  });

  it('keeps the JavaScript spellings agents use: named groups, \\d, (?i), escaped slashes', () => {
    const m = new LineMatcher(compilePattern('(?<port>\\d+)\\/ready'), still);
    assert.equal(m.feed('port 3000/ready\n'), 'port 3000/ready');
    assert.equal(new LineMatcher(compilePattern('(?i)listening'), still).feed('LISTENING on 80'), 'LISTENING on 80');
  });

  it('matches a line against its first MAX_MATCH_CHARS characters; an endless line does not grow memory', () => {
    const m = new LineMatcher(compilePattern('TAIL'), still);
    for (let i = 0; i < 1_000; i += 1) assert.equal(m.feed('x'.repeat(1_000)), undefined);
    assert.equal(m.feed('TAIL\n'), undefined, 'past the cap of its line');
    assert.equal(m.feed('now TAIL\n'), 'now TAIL', 'the next line is matched again');
    const early = new LineMatcher(compilePattern('HEAD'), still);
    assert.equal(early.feed(`${'y'.repeat(MAX_MATCH_CHARS - 4)}HEAD${'z'.repeat(10_000)}\n`), `${'y'.repeat(MAX_MATCH_CHARS - 4)}HEAD`);
  });

  it('splits \\n, \\r\\n and \\r, across chunk boundaries too', () => {
    const m = new LineMatcher(compilePattern('^second$'), still);
    assert.equal(m.feed('first\r'), undefined);
    assert.equal(m.feed('\nsec'), undefined);
    assert.equal(m.feed('ond\r\nthird'), 'second');
  });

  it('always tests the first line of a chunk, even when the process paused before any matching', () => {
    // The clock jumps past the chunk's budget between its arrival and the first test (a GC, a busy machine).
    let calls = 0;
    const m = new LineMatcher(compilePattern('ready'), { now: () => (calls++ === 0 ? 0 : 1_000) });
    assert.equal(m.feed('ready now\nlater\n'), 'ready now');
    assert.equal(m.skippedLines, 0);
    let open = 0;
    const banner = new LineMatcher(compilePattern('listening'), { now: () => (open++ === 0 ? 0 : 1_000) });
    assert.equal(banner.feed('listening on 3000'), 'listening on 3000', 'an open line alone in its chunk too');
  });

  it('stops matching a chunk once it used its time, says so once, and matches again in the next chunk', () => {
    let now = 0;
    const reports: string[] = [];
    // Every test "takes" 2 ms of the injected clock.
    const slow = { test: (line: string) => ((now += 2), line.includes('ready')) };
    const m = new LineMatcher(slow, { now: () => now, report: (r) => reports.push(r) });
    assert.equal(m.feed('one\ntwo\nthree\nfour\nready\n'), undefined, 'the ready line came after the budget');
    assert.equal(m.skippedLines, 2);
    assert.equal(reports.length, 1);
    assert.match(reports[0], /skipped/);
    assert.equal(m.feed('ready again\n'), 'ready again');
    assert.equal(reports.length, 1, 'told once');
  });

  it('gives a pattern up after a few slow lines: reported once, the task told to notify on exit, no more matching', () => {
    let now = 0;
    const reports: string[] = [];
    let gaveUp = 0;
    let tests = 0;
    // Every test "takes" SLOW_LINE_MS + 1 of the injected clock.
    const costly = { test: (line: string) => ((tests += 1), (now += SLOW_LINE_MS + 1), line.includes('ready')) };
    const m = new LineMatcher(costly, { now: () => now, report: (r) => reports.push(r), giveUp: () => (gaveUp += 1) });
    for (let i = 0; i < MAX_SLOW_LINES; i += 1) assert.equal(m.feed(`slow ${i}\n`), undefined);
    assert.equal(gaveUp, 1);
    assert.equal(m.done, true);
    assert.match(reports.join('\n'), /no longer matched; the task notifies on exit instead/);
    assert.equal(m.feed('ready\n'), undefined, 'given up: not even tested');
    assert.equal(tests, MAX_SLOW_LINES);
    assert.equal(gaveUp, 1);
  });

  it('a rare slow line (a busy machine pausing the process) does not give the pattern up', () => {
    let now = 0;
    let gaveUp = 0;
    let nth = 0;
    // One test in 150 "takes" long; the rest take nothing.
    const paused = { test: (line: string) => ((nth += 1), nth % 150 === 0 && (now += SLOW_LINE_MS + 1), line.includes('ready')) };
    const m = new LineMatcher(paused, { now: () => now, giveUp: () => (gaveUp += 1) });
    for (let i = 0; i < 3_000; i += 1) assert.equal(m.feed(`line ${i}\n`), undefined);
    assert.equal(gaveUp, 0);
    assert.equal(m.feed('ready\n'), 'ready');
  });

  it('a stored pattern RE2 rejects yields no matcher, one explanation and a give-up, instead of a throw', () => {
    const reports: string[] = [];
    let gaveUp = 0;
    const options = { report: (m: string) => reports.push(m), giveUp: () => (gaveUp += 1) };
    assert.equal(matcherForStoredPattern('(a)\\1', options), undefined);
    assert.equal(reports.length, 1);
    assert.equal(gaveUp, 1);
    assert.match(reports[0], /notifies on exit only/);
    assert.ok(matcherForStoredPattern('ready', options) instanceof LineMatcher);
    assert.equal(gaveUp, 1);
  });
});
