// The transcript window: a bounded slice of a long transcript, following the tail or the reader.

import * as assert from 'node:assert/strict';
import { TranscriptWindow } from '../../../src/webview/transcriptWindow';

const sizes = { initial: 40, step: 40, max: 120 };

describe('transcript window', () => {
  it('starts on the tail of a long session', () => {
    const w = new TranscriptWindow(sizes);
    w.reset(10_000);
    assert.deepEqual(w.range, { start: 9_960, end: 10_000 });
    assert.equal(w.followTail, true);
  });

  it('follows appended entries and never holds more than max', () => {
    const w = new TranscriptWindow(sizes);
    w.reset(100);
    for (let n = 101; n <= 1_000; n++) w.grow(n - 1, n);
    assert.deepEqual(w.range, { start: 880, end: 1_000 });
  });

  it('scrolling up renders older slices and drops the far end beyond max', () => {
    const w = new TranscriptWindow(sizes);
    w.reset(10_000);
    w.older();
    w.older();
    assert.deepEqual(w.range, { start: 9_880, end: 10_000 });
    w.older();
    assert.deepEqual(w.range, { start: 9_840, end: 9_960 });
    assert.equal(w.followTail, false);
    while (w.older());
    assert.deepEqual(w.range, { start: 0, end: 120 });
  });

  it('a reader scrolled up is not moved by new entries, and the slice stays bounded', () => {
    const w = new TranscriptWindow(sizes);
    w.reset(10_000);
    w.older();
    w.older();
    w.older();
    assert.equal(w.grow(10_000, 10_001), false, 'the window does not reach the tail');
    assert.deepEqual(w.range, { start: 9_840, end: 9_960 });
    while (w.newer(10_001));
    assert.deepEqual(w.range, { start: 9_881, end: 10_001 });
  });

  it('keeps showing the same entries when history is inserted before them', () => {
    const w = new TranscriptWindow(sizes);
    w.reset(300);
    w.shift(9_700);
    assert.deepEqual(w.range, { start: 9_960, end: 10_000 });
    assert.equal(w.older(), true);
  });

  it('restores around an anchor, and resets when the transcript shrinks', () => {
    const w = new TranscriptWindow(sizes);
    w.reset(10_000, 500);
    assert.deepEqual(w.range, { start: 480, end: 520 });
    assert.equal(w.followTail, false);
    assert.equal(w.grow(10_000, 10), true);
    assert.deepEqual(w.range, { start: 0, end: 10 });
  });

  it('opens a snapshot on a first-paint slice of the tail, filled up to the initial slice and no further', () => {
    const w = new TranscriptWindow({ ...sizes, first: 12 });
    w.openAtTail(10_000);
    assert.deepEqual(w.range, { start: 9_988, end: 10_000 });
    assert.equal(w.followTail, true);
    assert.equal(w.fill(), true);
    assert.deepEqual(w.range, { start: 9_976, end: 10_000 }, 'one more first-paint slice');
    assert.equal(w.fill(Number.POSITIVE_INFINITY), true);
    assert.deepEqual(w.range, { start: 9_960, end: 10_000 }, 'the initial slice, as a reset gives');
    assert.equal(w.fill(Number.POSITIVE_INFINITY), false, 'never beyond it');
    assert.deepEqual(w.range, { start: 9_960, end: 10_000 });
  });

  it('a short session is all in its first-paint slice; without a first size the initial slice opens at once', () => {
    const w = new TranscriptWindow({ ...sizes, first: 12 });
    w.openAtTail(5);
    assert.deepEqual(w.range, { start: 0, end: 5 });
    assert.equal(w.fill(), false);
    const plain = new TranscriptWindow(sizes);
    plain.openAtTail(10_000);
    assert.deepEqual(plain.range, { start: 9_960, end: 10_000 });
    assert.equal(plain.fill(), false);
  });
});
