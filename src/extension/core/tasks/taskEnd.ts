// How a background task ended, in the one wording every surface uses: the agent's wakeup, the MCP task tools,
// the terminal mirror, the task quick pick and the session view's task strip (its phrase lives in
// shared/taskEnd.ts, which the view can import). Pure, unit-tested.

import { taskEndPhrase, type TaskEnd } from '../../../shared/taskEnd';

export { taskEndPhrase, type TaskEnd };

const LOST = 'its process disappeared without recording an exit status';

/**
 * The status as the predicate of a sentence about the task: "exited with code 0", "was terminated by SIGSEGV",
 * "was killed (SIGTERM)", "was lost: its process disappeared without recording an exit status", "is running".
 */
export function taskEndSentence(t: TaskEnd): string {
  switch (t.status) {
    case 'exited':
      return t.signal ? `was ${taskEndPhrase(t)}` : `exited with code ${t.exitCode ?? 'unknown'}`;
    case 'killed':
      return `was ${taskEndPhrase(t)}`;
    case 'lost':
      return `was lost: ${LOST}`;
    case 'running':
      return 'is running';
    default: {
      const never: never = t.status;
      return String(never);
    }
  }
}
