// The edit journal: +/− counts, bounded contents (per side and in total), binary content, and one turn's edits of a
// file summed up from its first content to its last.

import * as assert from 'node:assert/strict';
import { EditJournal, type EditSide } from '../../../src/extension/core/acp/editJournal';
import { countLineChanges } from '../../../src/shared/lineDiff';

const root = '/ws';
const text = (t: string): EditSide => ({ kind: 'text', text: t });
let n = 0;
const ids = () => `edit-${++n}`;

describe('edit journal', () => {
  it('counts lines added and removed, and a new file as all added', () => {
    const j = new EditJournal(undefined, ids);
    const changed = j.propose('s', root, '/ws/a.txt', text('one\ntwo\nthree\n'), 'one\n2\nthree\nfour\n');
    assert.deepEqual({ added: changed.edit.view.added, removed: changed.edit.view.removed, created: changed.edit.view.created }, { added: 2, removed: 1, created: false });
    assert.equal(changed.edit.view.path, 'a.txt');
    const created = j.propose('s', root, '/ws/src/new.ts', { kind: 'missing' }, 'a\nb\n');
    assert.equal(created.edit.view.created, true);
    assert.equal(created.edit.view.added, 3, 'two lines and the empty line after the last newline');
    assert.equal(created.edit.view.removed, 0);
    assert.equal(j.propose('s', root, '/elsewhere/x', text(''), 'x').edit.view.path, '/elsewhere/x', 'outside the folder: the absolute path');
  });

  it('counts with an LCS, and falls back to all removed / all added beyond its budget instead of stalling', () => {
    assert.deepEqual(countLineChanges('a\nb\nc\nd', 'a\nc\nd\ne'), { added: 1, removed: 1 });
    const big = Array.from({ length: 2_000 }, (_, i) => `line ${i}`);
    const shuffled = [...big].reverse();
    const counts = countLineChanges(big.join('\n'), shuffled.join('\n'));
    assert.equal(counts.added, counts.removed);
    assert.ok(counts.added >= 1_999 && counts.added <= 2_000);
    // A million one-character lines must not overflow the stack.
    const many = 'x\n'.repeat(1_000_000);
    assert.deepEqual(countLineChanges(many, `${many}y`), { added: 1, removed: 1 });
  });

  it('keeps no side larger than its bound and shows no counts for it', () => {
    const j = new EditJournal({ maxSideChars: 100, maxTotalChars: 10_000 }, ids);
    const p = j.propose('s', root, '/ws/big.txt', { kind: 'tooLarge', bytes: 5_000_000 }, 'small');
    assert.equal(p.edit.view.noDiff, 'tooLarge');
    assert.equal(p.preview, undefined);
    const q = j.propose('s', root, '/ws/big2.txt', text('a'), 'b'.repeat(101));
    assert.equal(q.edit.view.noDiff, 'tooLarge');
    assert.deepEqual(q.edit.after, { kind: 'tooLarge', bytes: 101 });
    assert.equal(j.keptChars, 'small'.length + 1, 'only the small sides are kept');
  });

  it('marks binary content (a NUL) and keeps none of it', () => {
    const j = new EditJournal(undefined, ids);
    const p = j.propose('s', root, '/ws/img.png', text('plain'), 'PNG\u0000\u0001');
    assert.equal(p.edit.view.noDiff, 'binary');
    assert.equal(p.preview, undefined);
    assert.equal(j.propose('s', root, '/ws/b.bin', { kind: 'binary' }, 'text now').edit.view.noDiff, 'binary');
  });

  it('drops the oldest contents beyond its total budget, never the newest', () => {
    const j = new EditJournal({ maxSideChars: 1_000, maxTotalChars: 2_000 }, ids);
    const first = j.propose('s', root, '/ws/1', text('a'.repeat(600)), 'b'.repeat(600));
    const second = j.propose('s', root, '/ws/2', text('c'.repeat(600)), 'd'.repeat(600));
    assert.ok(j.get(first.edit.editId) === undefined, 'the oldest went');
    assert.ok(j.get(second.edit.editId));
    assert.ok(j.keptChars <= 2_000);
    const huge = j.propose('s', root, '/ws/3', text('e'.repeat(1_000)), 'f'.repeat(1_000));
    assert.ok(j.get(huge.edit.editId), 'the newest stays even when it alone fills the budget');
    assert.equal(j.get(second.edit.editId), undefined);
  });

  it('sums one turn\'s edits of a file from its first content to its last, in one entry', () => {
    const j = new EditJournal(undefined, ids);
    const turn = {};
    const a = j.propose('s', root, '/ws/f', text('1\n2\n3'), '1\n2\n3\n4');
    const first = j.commit(a, turn);
    assert.equal(first.file.editId, first.edit.editId, 'one edit: the file is that edit');
    const b = j.propose('s', root, '/ws/f', text('1\n2\n3\n4'), '1\nX\n3\n4\n5');
    const second = j.commit(b, turn);
    assert.notEqual(second.file.editId, b.edit.editId);
    assert.deepEqual({ added: second.file.added, removed: second.file.removed }, { added: 3, removed: 1 });
    const c = j.propose('s', root, '/ws/f', text('1\nX\n3\n4\n5'), '1\n2\n3');
    const third = j.commit(c, turn);
    assert.equal(third.file.editId, second.file.editId, 'the summing entry is replaced in place');
    assert.deepEqual({ added: third.file.added, removed: third.file.removed }, { added: 0, removed: 0 });
    assert.deepEqual(j.get(third.file.editId)?.before, text('1\n2\n3'));
    assert.ok(j.get(a.edit.editId), 'each edit stays openable from its own card');
    const other = j.commit(j.propose('s', root, '/ws/f', text('1\n2\n3'), 'z'), {});
    assert.equal(other.file.editId, other.edit.editId, 'another turn starts its own sum');
  });

  it('forgets a discarded (rejected) edit', () => {
    const j = new EditJournal(undefined, ids);
    const p = j.propose('s', root, '/ws/f', text('a'), 'b');
    j.discard(p);
    assert.equal(j.get(p.edit.editId), undefined);
    assert.equal(j.keptChars, 0);
  });

  it('offers an inline preview only for small text edits', () => {
    const j = new EditJournal(undefined, ids);
    assert.deepEqual(j.propose('s', root, '/ws/f', text('a'), 'b').preview, { oldText: 'a', newText: 'b' });
    assert.equal(j.propose('s', root, '/ws/g', text('a'), 'b'.repeat(30_000)).preview, undefined);
    assert.deepEqual(j.propose('s', root, '/ws/h', { kind: 'missing' }, 'new').preview, { oldText: '', newText: 'new' });
  });
});
