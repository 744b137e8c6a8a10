// One way to cut a long text, for the agent's tool results, the view, the approval's raw input and the export.

import * as assert from 'node:assert/strict';
import { cutText } from '../../../src/shared/textCut';

describe('cutText', () => {
  it('leaves a text that fits as it is, up to and including the limit', () => {
    assert.equal(cutText('', 0), '');
    assert.equal(cutText('abc', 3), 'abc');
    assert.equal(cutText('abc', 3, 'cut'), 'abc');
  });

  it('keeps the head and says on a line of its own how many characters more there were, and where they went', () => {
    assert.equal(cutText('abcdef', 4), 'abcd\n… (2 more characters)');
    assert.equal(cutText('abcdef', 4, 'not exported'), 'abcd\n… (2 more characters not exported)');
    assert.equal(cutText('abcdef', 0, 'cut'), '\n… (6 more characters cut)');
  });
});
