// Shapes of background tasks: the durable record, the live snapshot, completions and registry events.

import * as z from 'zod';

export type TaskStatus = 'running' | 'exited' | 'killed' | 'lost';

export type CompletionKind = 'exit' | 'pattern';

const notifySchema = z.object({
  onExit: z.boolean().optional(),
  pattern: z.string().optional(),
});

/** The durable record of one task, written atomically to `<storageRoot>/tasks/<id>.json`. */
export const taskRecordSchema = z.object({
  v: z.literal(1),
  id: z.string().min(1),
  sessionId: z.string().min(1),
  command: z.string(),
  cwd: z.string(),
  pid: z.number().int().nullable(),
  /** When the wrapper process started (boot id + start ticks), so a recycled pid is told apart. */
  pidStartedAt: z.string().optional(),
  background: z.boolean(),
  notify: notifySchema,
  outputByteLimit: z.number().int().positive(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  status: z.enum(['running', 'exited', 'killed', 'lost']),
  /** Set once the notify pattern matched, so a re-attached registry never reports it again. */
  patternMatchedAt: z.number().nullable(),
  killRequestedAt: z.number().nullable(),
  /** Wall-clock time after which the task is killed (a `timeout_seconds` of Vigil's MCP task server); durable, so a reload keeps it. */
  deadlineAt: z.number().optional(),
});

export type TaskRecord = z.infer<typeof taskRecordSchema>;

/** What the UI sees of a task: its record plus the live output tail. */
export interface TaskSnapshot extends TaskRecord {
  output: string;
  truncated: boolean;
}

/** One notification for a session, keyed by `(taskId, kind)`: exactly one per key ever reaches the outbox. */
export interface TaskCompletion {
  key: string;
  taskId: string;
  sessionId: string;
  kind: CompletionKind;
  command: string;
  status: TaskStatus;
  exitCode: number | null;
  signal: string | null;
  /** For pattern completions: the pattern and the line that matched it. */
  pattern?: string;
  matchedLine?: string;
  /** The last characters of the output at the time of the completion. */
  output: string;
  outputTruncated: boolean;
  at: number;
}

export function completionKey(taskId: string, kind: CompletionKind): string {
  return `${taskId}:${kind}`;
}

export type TaskEvent =
  | { type: 'created'; task: TaskSnapshot }
  | { type: 'output'; taskId: string; sessionId: string; chunk: string }
  | { type: 'changed'; task: TaskSnapshot }
  | { type: 'completion'; completion: TaskCompletion }
  | { type: 'released'; taskId: string };
