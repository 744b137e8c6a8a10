// What the status bar item says in each turn state (the table in docs/ui.md); pure, so it is unit-tested.

import type { TurnPhase } from '../../shared/sessionView';

export interface StatusModel {
  phase: TurnPhase;
  sessionTitle?: string;
  /** Milliseconds since the turn started. */
  elapsedMs?: number;
  /** Milliseconds since the last activity. */
  silenceMs?: number;
  waitingOn?: string;
  runningTasks: number;
  /** The turn shown runs in another window (this one follows it through the store). */
  elsewhere?: boolean;
  /** An approval waits in a session that no window shows a person: say so, and where. */
  unseenApproval?: { sessionTitle: string; question: string; count: number };
}

export interface StatusPresentation {
  text: string;
  tooltip: string;
  background?: 'warning' | 'error';
  /** Foreground colour theme key for states that should stand out without a background. */
  color?: 'warning' | 'prominent';
}

export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

function seconds(ms: number | undefined): number {
  return Math.floor((ms ?? 0) / 1000);
}

export function presentStatus(model: StatusModel): StatusPresentation {
  const tasks = model.runningTasks > 0 ? ` · ${model.runningTasks} bg` : '';
  const lines = [
    `Session: ${model.sessionTitle ?? 'none'}`,
    `Phase: ${model.phase === 'awaitingApproval' ? 'approval' : model.phase}`,
    ...(model.waitingOn ? [`Waiting on: ${model.waitingOn}`] : []),
    ...(model.silenceMs !== undefined && model.phase !== 'idle' ? [`Silent for: ${seconds(model.silenceMs)} s`] : []),
    `Background tasks running: ${model.runningTasks}`,
  ];
  if (model.elsewhere) lines.push('Runs in: another window (answer, stop or take over from here)');
  const unseen = model.unseenApproval;
  if (unseen) lines.push(`Approval waiting in “${unseen.sessionTitle}”: ${unseen.question}${unseen.count > 1 ? ` (+${unseen.count - 1} more)` : ''} — no window shows it`);
  const tooltip = lines.join('\n');
  // A question nobody can see outranks everything but this window's own live states.
  if (unseen && (model.phase === 'idle' || model.phase === 'aborted' || model.phase === 'interrupted' || model.elsewhere)) {
    return { text: `$(question) Vigil approval waiting in “${clipTitle(unseen.sessionTitle)}”`, tooltip, color: 'prominent' };
  }
  const where = model.elsewhere ? ' · in another window' : '';
  switch (model.phase) {
    case 'idle':
      return { text: `$(hubot) Vigil${tasks}`, tooltip };
    case 'running':
      return { text: `$(sync~spin) Vigil ${formatElapsed(model.elapsedMs ?? 0)}${where}${tasks}`, tooltip };
    case 'quiet':
      return { text: `$(watch) Vigil silent ${seconds(model.silenceMs)}s${tasks}`, tooltip, color: 'warning' };
    case 'stalled':
      return { text: `$(warning) Vigil stalled ${seconds(model.silenceMs)}s — recovering`, tooltip, background: 'warning' };
    case 'aborted':
      return { text: '$(error) Vigil turn aborted — Resume', tooltip, background: 'error' };
    case 'interrupted':
      return { text: '$(error) Vigil turn interrupted — Resume', tooltip, background: 'error' };
    case 'awaitingApproval':
      return { text: `$(question) Vigil needs approval${where}`, tooltip, color: 'prominent' };
    default: {
      const never: never = model.phase;
      return { text: `Vigil ${String(never)}`, tooltip };
    }
  }
}

function clipTitle(title: string): string {
  return title.length > 30 ? `${title.slice(0, 29)}…` : title;
}
