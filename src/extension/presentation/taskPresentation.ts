// How a background task reads in quick picks and terminal names (status, elapsed, exit code); pure, unit-tested.

import { formatDuration } from '../../shared/duration';
import { shown } from '../core/acp/clientGrants';
import { taskEndPhrase } from '../core/tasks/taskEnd';
import { taskIcon as sharedTaskIcon } from '../../shared/taskEnd';
import type { MirroredTask } from './taskMirrorFeed';

export interface TaskPickRow {
  label: string;
  description: string;
  detail: string;
}

/** The task's codicon (shared/taskEnd.ts) as a quick pick writes it: `sync~spin`, `pass`, …. */
export function taskIcon(task: MirroredTask): string {
  const icon = sharedTaskIcon(task);
  return icon.spin ? `${icon.name}~spin` : icon.name;
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
