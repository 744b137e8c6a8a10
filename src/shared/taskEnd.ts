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
