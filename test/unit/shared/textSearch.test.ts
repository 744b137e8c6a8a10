// One report of a literal search's matches for the host's search and the built-in agent's own.

import * as assert from 'node:assert/strict';
import { collectMatches, type TextMatch } from '../../../src/shared/textSearch';
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
