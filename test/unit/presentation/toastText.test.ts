// A notice's lines as one notification: sentences stay apart, the text is bounded.

import * as assert from 'node:assert/strict';
import { toastText } from '../../../src/extension/presentation/toastText';

describe('toast text', () => {
  it('puts a full stop after a line that has none before joining, and keeps the ones that have', () => {
    const notice = 'Vigil: The agent exited (code 1) while starting.\nIts last output:\nError: CODEX_HOME points to "/tmp/x", but that path does not exist\n\nOpen Log shows everything it wrote.';
    assert.equal(toastText(notice), 'Vigil: The agent exited (code 1) while starting. Its last output: Error: CODEX_HOME points to "/tmp/x", but that path does not exist. Open Log shows everything it wrote.');
    assert.equal(toastText('One line without a stop'), 'One line without a stop');
  });

  it('is bounded', () => {
    const shown = toastText('x'.repeat(5_000));
    assert.equal(shown.length, 1_500);
    assert.ok(shown.endsWith('…'));
  });
});
