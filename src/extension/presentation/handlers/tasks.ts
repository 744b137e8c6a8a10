// A background task's buttons in the view (the task strip, a tool card's terminal): its output, and Kill
// (vscode/taskTerminal.ts).

import type { IntentHandlers } from '../viewHandlers';

export interface TaskPorts {
  show(taskId: string): Promise<void>;
  killBackgroundTask(taskId: string): Promise<void>;
}

/** `ports` is read when a message arrives. */
export function taskHandlers(ports: () => TaskPorts) {
  return {
    showTaskOutput: (m) => ports().show(m.taskId),
    killTask: (m) => ports().killBackgroundTask(m.taskId),
  } satisfies Partial<IntentHandlers>;
}
