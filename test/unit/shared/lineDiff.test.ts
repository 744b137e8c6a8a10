// Line diffs for edit cards.

import * as assert from 'node:assert/strict';
import { diffLines } from '../../../src/shared/lineDiff';

describe('line diff', () => {
  it('marks a changed line with its context and folds the rest', () => {
    const old = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].join('\n');
    const next = ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h', 'i'].join('\n');
    assert.deepEqual(diffLines(old, next, 1), [
      { op: '…', skipped: 3 },
      { op: ' ', text: 'd' },
      { op: '-', text: 'e' },
      { op: '+', text: 'E' },
      { op: ' ', text: 'f' },
      { op: '…', skipped: 3 },
    ]);
  });

  it('shows a new file as all additions', () => {
    assert.deepEqual(diffLines('', 'x\ny'), [{ op: '+', text: 'x' }, { op: '+', text: 'y' }]);
  });

  it('finds insertions between kept lines', () => {
    const d = diffLines('a\nc', 'a\nb\nc', 5);
    assert.deepEqual(d, [{ op: ' ', text: 'a' }, { op: '+', text: 'b' }, { op: ' ', text: 'c' }]);
  });

  it('stays fast on large rewrites', () => {
    const old = Array.from({ length: 5_000 }, (_, i) => `old ${i}`).join('\n');
    const next = Array.from({ length: 5_000 }, (_, i) => `new ${i}`).join('\n');
    const t0 = performance.now();
    const d = diffLines(old, next);
    assert.equal(d.length, 10_000);
    assert.ok(performance.now() - t0 < 1_000);
  });
});
