// The one wakeup prompt formatter: exit, signal, kill, lost and pattern completions as the agent reads them.

import { strict as assert } from 'node:assert';
import { formatCompletion, formatWakeupPrompt } from '../../../src/extension/core/wakeups/wakeupPrompt';
import { completionFor } from '../../fakes/wakeupHarness';

describe('wakeup prompt', () => {
  it('formats an exit as in the contract', () => {
    const text = formatCompletion(completionFor('t-42', 's', { command: 'npm test', output: '12 passing\n', outputTruncated: true }));
    assert.equal(text, '[IMPORTANT: Background task t-42 completed (exit code 0).\nCommand: npm test\nOutput (last 11 characters):\n12 passing]');
  });

  it('names signals, kills, lost tasks, pattern matches and empty output', () => {
    assert.match(formatCompletion(completionFor('t-1', 's', { exitCode: null, signal: 'SIGSEGV' })), /t-1 completed \(terminated by SIGSEGV\)\./);
    assert.match(formatCompletion(completionFor('t-2', 's', { status: 'killed', signal: 'SIGTERM' })), /t-2 was killed \(SIGTERM\)\./);
    assert.match(formatCompletion(completionFor('t-3', 's', { status: 'lost', exitCode: null })), /t-3 was lost: its process disappeared/);
    const pattern = formatCompletion(completionFor('t-4', 's', { kind: 'pattern', status: 'running', pattern: 'listening on :3000', matchedLine: 'listening on :3000', output: '' }));
    assert.match(pattern, /^\[IMPORTANT: Background task t-4 matched "listening on :3000" \(still running\)\./);
    assert.match(pattern, /Matched line: listening on :3000\nOutput: \(none\)\]$/);
  });

  it('puts several completions in one prompt, oldest first', () => {
    const text = formatWakeupPrompt([completionFor('t-a', 's'), completionFor('t-b', 's')]);
    assert.ok(text.indexOf('t-a') < text.indexOf('t-b'));
    assert.equal(text.split('[IMPORTANT:').length - 1, 2);
  });
});
