// One report of a literal search's matches for the host's search and the built-in agent's own.

import * as assert from 'node:assert/strict';
import { collectMatches, foldCase, snippetAround, type TextMatch } from '../../../src/shared/textSearch';
import { maxMatchLineChars } from '../../../src/shared/workspaceLimits';

describe('collectMatches', () => {
  it('reports each line holding the query, numbered from 1, trimmed and cut, and stops at the cap', () => {
    const matches: TextMatch[] = [];
    const long = `  needle ${'x'.repeat(maxMatchLineChars)}`;
    assert.equal(collectMatches(matches, 'a/b.ts', `one\n  a needle  \nnone\n${long}\nneedle again`, 'needle', 2), true);
    assert.deepEqual(matches, [
      { path: 'a/b.ts', line: 2, text: 'a needle' },
      { path: 'a/b.ts', line: 4, text: long.trim().slice(0, maxMatchLineChars) },
    ]);
    assert.equal(collectMatches(matches, 'c.ts', 'nothing here', 'needle', 5), false);
    assert.equal(matches.length, 2);
  });
});

describe('foldCase', () => {
  it('folds case without moving any character, so a hit in the folded text is at the same index in the original', () => {
    for (const text of ['İstanbul', 'ΟΔΟΣ ΟΔΟΣΑ', 'Straße', '𐐀 DESERET', 'ǅ ǈ']) assert.equal(foldCase(text).length, text.length, text);
    assert.equal(foldCase('İSTANBUL'), 'istanbul');
    assert.ok(foldCase('ΟΔΟΣΑ').includes(foldCase('ΟΔΟΣ')), 'a final sigma matches the sigma of a longer word');
  });
});

describe('snippetAround', () => {
  it('cuts one line around the hit on word edges, and says where text was left out', () => {
    const text = `${'lorem ipsum '.repeat(20)}the NEEDLE is here ${'dolor sit '.repeat(20)}`;
    const at = text.indexOf('NEEDLE');
    const snippet = snippetAround(text, at, 6, 80, 20);
    assert.match(snippet, /^… (lorem |ipsum )+the NEEDLE is here (dolor|sit)( dolor| sit)* …$/);
    assert.ok(snippet.length <= 86, snippet);
    assert.equal(snippetAround('short NEEDLE', 6, 6), 'short NEEDLE');
  });

  it('shows line breaks, controls, bidirectional overrides and zero-width characters as one space', () => {
    assert.equal(snippetAround('a\n\tb\u202e\u200bc\u0000\u0007d', 0, 1), 'a b c d');
  });

  it('never cuts a surrogate pair in two', () => {
    const text = `${'𝄞'.repeat(30)}hit${'𝄞'.repeat(30)}`;
    const snippet = snippetAround(text, text.indexOf('hit'), 3, 21, 9);
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(snippet), snippet);
  });
});
