// The in-memory output ring: bounded by UTF-8 bytes, cut from the start on a character boundary.

import { strict as assert } from 'node:assert';
import { OutputRing, dropLeadingBytes } from '../../../src/extension/core/tasks/outputRing';
import { LineMatcher } from '../../../src/extension/core/tasks/lineMatcher';

describe('output ring', () => {
  it('keeps everything under the limit and says it is complete', () => {
    const ring = new OutputRing(100);
    ring.push('hello ');
    ring.push('world');
    assert.equal(ring.toString(), 'hello world');
    assert.equal(ring.truncated, false);
  });

  it('drops from the start, never splitting a multi-byte character', () => {
    for (let limit = 1; limit < 40; limit += 1) {
      const ring = new OutputRing(limit);
      for (let i = 0; i < 20; i += 1) ring.push('aé€😀');
      const out = ring.toString();
      assert.ok(Buffer.byteLength(out) <= limit, `limit ${limit}: ${Buffer.byteLength(out)} bytes`);
      assert.ok(!out.includes('\ufffd'), `limit ${limit}: a broken character in ${JSON.stringify(out)}`);
      assert.ok(('aé€😀'.repeat(20)).endsWith(out), `limit ${limit}: not the tail`);
      assert.equal(ring.truncated, true);
    }
  });

  it('handles one chunk bigger than the whole buffer', () => {
    const ring = new OutputRing(10);
    ring.push('x'.repeat(1_000) + 'END');
    assert.equal(ring.toString(), 'xxxxxxxEND');
    assert.equal(ring.truncated, true);
  });

  it('stays bounded over many small pushes', () => {
    const ring = new OutputRing(1_000);
    for (let i = 0; i < 100_000; i += 1) ring.push(`${i}\n`);
    assert.ok(ring.bytes <= 1_000);
    assert.ok(ring.toString().endsWith('99999\n'));
  });

  it('gives a completion tail in characters without cutting a surrogate pair', () => {
    const ring = new OutputRing(1_000);
    ring.push('a😀b');
    assert.deepEqual(ring.tail(2), { text: 'b', truncated: true });
    assert.deepEqual(ring.tail(10), { text: 'a😀b', truncated: false });
  });

  it('dropLeadingBytes moves forward to the next character', () => {
    assert.equal(dropLeadingBytes('é€x', 1), '€x');
    assert.equal(dropLeadingBytes('é€x', 2), '€x');
    assert.equal(dropLeadingBytes('é€x', 3), 'x');
  });
});

// A clock that stands still: on the real clock a pause of the process inside one feed uses up the chunk's
// matching time and skips the line (the budget itself is tested in lineMatcher.test.ts).
const still = { now: () => 0 };

describe('line matcher', () => {
  it('matches the first line across chunk boundaries, once', () => {
    const m = new LineMatcher(/listening on :\d+/, still);
    assert.equal(m.feed('starting\nlisten'), undefined);
    assert.equal(m.feed('ing on :3000\nmore\n'), 'listening on :3000');
    assert.equal(m.feed('listening on :3001\n'), undefined);
  });

  it('matches a banner printed without a newline', () => {
    const m = new LineMatcher(/ready/, still);
    assert.equal(m.feed('server ready'), 'server ready');
  });
});
