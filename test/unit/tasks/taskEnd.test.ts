// How a task ended reads the same to the agent (wakeup) and to the person (terminal mirror, task quick pick).

import { strict as assert } from 'node:assert';
import { taskEndPhrase, taskEndSentence, type TaskEnd } from '../../../src/extension/core/tasks/taskEnd';
import { formatCompletion } from '../../../src/extension/core/wakeups/wakeupPrompt';
import { describeEnd, type MirroredTask } from '../../../src/extension/presentation/taskMirrorFeed';
import { presentTaskPick } from '../../../src/extension/presentation/taskPresentation';
import { taskFailed, taskIcon } from '../../../src/shared/taskEnd';
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

describe('task status icon', () => {
  const icons: Array<[TaskEnd, string]> = [
    [{ status: 'running', exitCode: null, signal: null }, 'sync~spin'],
    [{ status: 'exited', exitCode: 0, signal: null }, 'pass'],
    [{ status: 'exited', exitCode: 2, signal: null }, 'error'],
    [{ status: 'exited', exitCode: null, signal: null }, 'error'],
    [{ status: 'exited', exitCode: null, signal: 'SIGSEGV' }, 'error'],
    [{ status: 'killed', exitCode: null, signal: 'SIGTERM' }, 'circle-slash'],
    [{ status: 'lost', exitCode: null, signal: null }, 'question'],
  ];

  it('one icon per end, the same in the view\'s task strip and the quick pick: only an exit with code 0 passed', () => {
    for (const [end, expected] of icons) {
      const icon = taskIcon(end);
      assert.equal(`${icon.name}${icon.spin ? '~spin' : ''}`, expected, JSON.stringify(end));
      assert.equal(taskFailed(end), expected === 'error', JSON.stringify(end));
      const row = presentTaskPick({ id: 't-1', command: 'make', ...end, startedAt: 0, endedAt: end.status === 'running' ? null : 1, sessionId: 's' }, 1);
      assert.ok(row.label.startsWith(`$(${expected}) `), row.label);
    }
  });
});
