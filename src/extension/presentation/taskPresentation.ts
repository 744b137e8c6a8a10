// How a background task reads in quick picks and terminal names (status, elapsed, exit code); pure, unit-tested.

import { formatDuration } from '../../shared/duration';
import { shown } from '../core/acp/clientGrants';
import { taskEndPhrase } from '../core/tasks/taskEnd';
import type { MirroredTask } from './taskMirrorFeed';

export interface TaskPickRow {
  label: string;
  description: string;
  detail: string;
}

export function taskIcon(task: MirroredTask): string {
  switch (task.status) {
    case 'running':
      return 'sync~spin';
    case 'exited':
      return task.exitCode === 0 && !task.signal ? 'pass' : 'error';
    case 'killed':
      return 'circle-slash';
    case 'lost':
      return 'question';
    default: {
      const never: never = task.status;
      return String(never);
    }
  }
}

export function presentTaskPick(task: MirroredTask & { cwd?: string; sessionId: string }, now: number, sessionTitle?: string): TaskPickRow {
  const elapsed = formatDuration((task.endedAt ?? now) - task.startedAt);
  return {
    label: `$(${taskIcon(task)}) ${oneLine(task.command, 120)}`,
    description: `${taskEndPhrase(task)} · ${elapsed}`,
    detail: [sessionTitle ? `Session: ${sessionTitle}` : `Session ${task.sessionId}`, task.id, ...(task.cwd ? [task.cwd] : [])].join(' · '),
  };
}

/** Terminal tab name: short, one line, says which task. */
export function mirrorName(task: Pick<MirroredTask, 'id' | 'command'>): string {
  return `Vigil ${task.id}: ${oneLine(task.command, 40)}`;
}

/** One line of an agent's text for a tab name, a pick row or a question: control and bidi characters shown escaped. */
export function oneLine(text: string, max: number): string {
  const flat = shown(text.replace(/\s+/g, ' ').trim(), Number.POSITIVE_INFINITY);
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
