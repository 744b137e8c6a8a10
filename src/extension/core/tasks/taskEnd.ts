// How a background task ended, in the one wording every surface uses: the agent's wakeup, the MCP task tools,
// the terminal mirror and the task quick pick. Pure, unit-tested.

import type { TaskStatus } from './taskTypes';

/** The facts of a task's end that its description depends on. */
export interface TaskEnd {
  status: TaskStatus;
  exitCode: number | null;
  signal: string | null;
}

const LOST = 'its process disappeared without recording an exit status';

/**
 * The status as a short phrase, for lists and parentheses: "exit code 0", "terminated by SIGSEGV",
 * "killed (SIGTERM)", "lost", "running".
 */
export function taskEndPhrase(t: TaskEnd): string {
  switch (t.status) {
    case 'exited':
      return t.signal ? `terminated by ${t.signal}` : `exit code ${t.exitCode ?? 'unknown'}`;
    case 'killed':
      return `killed${t.signal ? ` (${t.signal})` : ''}`;
    case 'lost':
      return 'lost';
    case 'running':
      return 'running';
    default: {
      const never: never = t.status;
      return String(never);
    }
  }
}

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
