// The one code fence: what the agent is given (attached files, the selection) and the export use it.

import * as assert from 'node:assert/strict';
import { fenceFor, fencedBlock } from '../../../src/shared/codeFence';

describe('code fence', () => {
  it('is three backticks, or one more than the longest run of backticks inside', () => {
    assert.equal(fenceFor(''), '```');
    assert.equal(fenceFor('a `b` ``c``'), '```');
    assert.equal(fenceFor('```js\nx\n```'), '````');
    assert.equal(fenceFor('`````'), '``````');
  });

  it('wraps the text so that nothing inside can close the block', () => {
    assert.equal(fencedBlock('x'), '```\nx\n```');
    assert.equal(fencedBlock('```\nend?\n```'), '````\n```\nend?\n```\n````');
  });
});
