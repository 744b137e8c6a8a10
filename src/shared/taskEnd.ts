// How a background task stands, as a short phrase: the one wording of the session view's task strip, the
// agent's wakeup, the MCP task tools, the terminal mirror and the task quick pick (core/tasks/taskEnd.ts
// builds its sentences on it). Pure, unit-tested.

import type { TaskStatusView } from './sessionView';

/** The facts of a task's end that its description depends on. */
export interface TaskEnd {
  status: TaskStatusView;
  exitCode: number | null;
  signal: string | null;
}

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

/** Whether a task ended badly: it exited with a code other than 0 (or none known), or a signal ended it. */
export function taskFailed(t: TaskEnd): boolean {
  return t.status === 'exited' && (t.exitCode !== 0 || t.signal !== null);
}

/**
 * The codicon of a task's status, the same in the view's task strip and the quick pick: running spins, as a
 * running turn does (turnWords.ts); a task that exited 0 passed, any other exit failed; killed; lost.
 */
export function taskIcon(t: TaskEnd): { name: string; spin: boolean } {
  switch (t.status) {
    case 'running':
      return { name: 'sync', spin: true };
    case 'exited':
      return { name: taskFailed(t) ? 'error' : 'pass', spin: false };
    case 'killed':
      return { name: 'circle-slash', spin: false };
    case 'lost':
      return { name: 'question', spin: false };
    default: {
      const never: never = t.status;
      return { name: String(never), spin: false };
    }
  }
}
