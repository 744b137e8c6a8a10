// Relative last-activity times.

import * as assert from 'node:assert';
import { formatRelativeTime } from '../../../src/extension/presentation/relativeTime';

const now = Date.UTC(2026, 10, 30, 12, 0, 0);
const MIN = 60_000;

describe('relative time', () => {
  it('reads recent times as just now, minutes, hours', () => {
    assert.strictEqual(formatRelativeTime(now - 10_000, now), 'just now');
    assert.strictEqual(formatRelativeTime(now - 50_000, now), '1 min ago');
    assert.strictEqual(formatRelativeTime(now - 5 * MIN, now), '5 min ago');
    assert.strictEqual(formatRelativeTime(now - 61 * MIN, now), '1 hour ago');
    assert.strictEqual(formatRelativeTime(now - 5 * 60 * MIN, now), '5 hours ago');
  });

  it('reads days, weeks, then a date', () => {
    assert.strictEqual(formatRelativeTime(now - 25 * 60 * MIN, now), 'yesterday');
    assert.strictEqual(formatRelativeTime(now - 3 * 24 * 60 * MIN, now), '3 days ago');
    assert.strictEqual(formatRelativeTime(now - 8 * 24 * 60 * MIN, now), '1 week ago');
    assert.strictEqual(formatRelativeTime(now - 20 * 24 * 60 * MIN, now), '2 weeks ago');
    assert.strictEqual(formatRelativeTime(Date.UTC(2026, 0, 2), now), '2026-01-02');
  });

  it('a timestamp from the future (another machine’s clock) reads as just now', () => {
    assert.strictEqual(formatRelativeTime(now + 10 * MIN, now), 'just now');
    assert.strictEqual(formatRelativeTime(Number.NaN, now), 'just now');
  });

});
