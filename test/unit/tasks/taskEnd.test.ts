// How a task ended reads the same to the agent (wakeup) and to the person (terminal mirror, task quick pick).

import { strict as assert } from 'node:assert';
import { taskEndPhrase, taskEndSentence, type TaskEnd } from '../../../src/extension/core/tasks/taskEnd';
import { formatCompletion } from '../../../src/extension/core/wakeups/wakeupPrompt';
import { describeEnd, type MirroredTask } from '../../../src/extension/presentation/taskMirrorFeed';
import { presentTaskPick } from '../../../src/extension/presentation/taskPresentation';
import { completionFor } from '../../fakes/wakeupHarness';

const ends: Array<TaskEnd & { phrase: string; sentence: string }> = [
  { status: 'exited', exitCode: 0, signal: null, phrase: 'exit code 0', sentence: 'exited with code 0' },
  { status: 'exited', exitCode: null, signal: null, phrase: 'exit code unknown', sentence: 'exited with code unknown' },
  { status: 'exited', exitCode: null, signal: 'SIGSEGV', phrase: 'terminated by SIGSEGV', sentence: 'was terminated by SIGSEGV' },
  { status: 'killed', exitCode: null, signal: 'SIGTERM', phrase: 'killed (SIGTERM)', sentence: 'was killed (SIGTERM)' },
  { status: 'killed', exitCode: null, signal: null, phrase: 'killed', sentence: 'was killed' },
  { status: 'lost', exitCode: null, signal: null, phrase: 'lost', sentence: 'was lost: its process disappeared without recording an exit status' },
  { status: 'running', exitCode: null, signal: null, phrase: 'running', sentence: 'is running' },
];

describe('task end wording', () => {
  for (const end of ends) {
    it(`${end.status}${end.signal ? ` by ${end.signal}` : ` with ${end.exitCode}`}: "${end.phrase}" / "${end.sentence}"`, () => {
      assert.equal(taskEndPhrase(end), end.phrase);
      assert.equal(taskEndSentence(end), end.sentence);
    });
  }

  it('the wakeup, the terminal mirror and the quick pick say the same thing about the same end', () => {
    for (const end of ends.filter((e) => e.status !== 'running')) {
      const { status, exitCode, signal } = end;
      const wakeup = formatCompletion(completionFor('t-1', 's', { status, exitCode, signal }));
      const task: MirroredTask = { id: 't-1', command: 'make', status, exitCode, signal, startedAt: 0, endedAt: 1_000 };
      assert.ok(wakeup.includes(status === 'exited' ? `(${end.phrase})` : end.sentence), wakeup);
      assert.ok(describeEnd(task).startsWith(end.sentence), describeEnd(task));
      assert.ok(presentTaskPick({ ...task, sessionId: 's' }, 1_000).description.startsWith(`${end.phrase} · `));
    }
  });
});
