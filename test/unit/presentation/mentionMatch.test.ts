// Ranking of workspace files for the `@` picker.

import * as assert from 'node:assert/strict';
import { fuzzyScore, rankPaths } from '../../../src/extension/presentation/mentionMatch';

describe('mention matching', () => {
  it('matches characters in order and ranks file-name matches first', () => {
    const paths = ['src/webview/composer.ts', 'docs/components.md', 'src/extension/core/acp/acpConnection.ts', 'test/composer.test.ts'];
    assert.deepEqual(new Set(rankPaths('composer', paths, 10)), new Set(['src/webview/composer.ts', 'test/composer.test.ts']));
    assert.equal(fuzzyScore('xyz', 'src/a.ts'), undefined);
    assert.deepEqual(rankPaths('acpcon', paths, 10), ['src/extension/core/acp/acpConnection.ts']);
  });

  it('an exact file name beats a longer one, and the limit holds', () => {
    assert.deepEqual(rankPaths('a.ts', ['src/deep/a.ts', 'lib/a.tsx', 'b/data.ts'], 2), ['src/deep/a.ts', 'lib/a.tsx']);
    assert.equal(rankPaths('', Array.from({ length: 100 }, (_, i) => `f${i}`), 50).length, 50);
  });
});
