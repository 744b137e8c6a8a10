// What the status bar item says in each turn state, in the terms of shared/turnWords.ts (the table in docs/ui.md);
// pure, so it is unit-tested.

import type { TurnPhase } from '../../shared/sessionView';
import { isTurnLive } from '../../shared/sessionViewReducer';
import { phaseIcons, phaseTerm, stateWord } from '../../shared/turnWords';

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
  /** Why a stopped turn stopped: the summary of its notice. */
  why?: string;
  /** An approval waits in a session that no window shows a person: say so, and where. */
  unseenApproval?: { sessionTitle: string; question: string; count: number };
}

export interface StatusPresentation {
  text: string;
  /** What a screen reader says: "Vigil: <the state's term>, …" (shared/turnWords.ts), never the icon names. */
  label: string;
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

function tooltipOf(model: StatusModel): string {
  const live = isTurnLive(model.phase);
  const lines = [
    `Session: ${model.sessionTitle ?? 'none'}`,
    `Status: ${phaseTerm(model.phase)}`,
    ...(model.why && !live ? [`Why: ${model.why}`] : []),
    ...(model.waitingOn && live ? [`Waiting on: ${model.waitingOn}`] : []),
    ...(model.silenceMs !== undefined && live ? [`No progress for: ${seconds(model.silenceMs)} s`] : []),
    `Background tasks running: ${model.runningTasks}`,
  ];
  if (model.elsewhere) lines.push('Runs in: another window (answer, stop or take over from here)');
  const unseen = model.unseenApproval;
  if (unseen) lines.push(`Approval waiting in “${unseen.sessionTitle}”: ${unseen.question}${unseen.count > 1 ? ` (+${unseen.count - 1} more)` : ''} — no window shows it`);
  return lines.join('\n');
}

/** The screen reader's line: the state's term first (a stop's reason starts with it), then what the text shows beside it. */
function labelOf(model: StatusModel, ...parts: Array<string | false | undefined>): string {
  const tasks = model.runningTasks > 0 && `${model.runningTasks} background task${model.runningTasks === 1 ? '' : 's'} running`;
  const term = phaseTerm(model.phase);
  const why = !isTurnLive(model.phase) && model.why?.startsWith(term) ? model.why : undefined;
  return [`Vigil: ${why ?? term}`, ...parts, tasks].filter(Boolean).join(', ');
}

export function presentStatus(model: StatusModel): StatusPresentation {
  const tasks = model.runningTasks > 0 ? ` · ${model.runningTasks} bg` : '';
  const tooltip = tooltipOf(model);
  const unseen = model.unseenApproval;
  // A question nobody can see outranks everything but this window's own live states.
  if (unseen && (model.phase === 'idle' || model.phase === 'aborted' || model.phase === 'interrupted' || model.elsewhere)) {
    const title = clipTitle(unseen.sessionTitle);
    return { text: `$(question) Vigil: “${title}” ${stateWord('awaitingApproval')}`, label: `Vigil: “${title}” ${stateWord('awaitingApproval')}`, tooltip, color: 'prominent' };
  }
  const where = model.elsewhere ? ' · in another window' : '';
  const silent = `no progress for ${seconds(model.silenceMs)} s`;
  switch (model.phase) {
    case 'idle':
      return { text: `$(hubot) Vigil${tasks}`, label: labelOf(model), tooltip };
    case 'running': {
      const elapsed = formatElapsed(model.elapsedMs ?? 0);
      return { text: `$(sync~spin) Vigil ${elapsed}${where}${tasks}`, label: labelOf(model, model.elsewhere && 'in another window', elapsed), tooltip };
    }
    case 'quiet':
      return { text: `$(watch) Vigil ${stateWord('quiet')} ${seconds(model.silenceMs)}s${tasks}`, label: labelOf(model, silent), tooltip, color: 'warning' };
    case 'stalled':
      return { text: `$(warning) Vigil ${stateWord('stalled')} ${seconds(model.silenceMs)}s — stopping`, label: labelOf(model, silent, 'stopping the turn'), tooltip, background: 'warning' };
    case 'aborted':
    case 'interrupted':
      return { text: `$(${phaseIcons[model.phase]}) Vigil turn ${stateWord(model.phase)} — Resume`, label: labelOf(model, 'Resume to continue'), tooltip, background: 'error' };
    case 'awaitingApproval':
      return { text: `$(question) Vigil ${stateWord('awaitingApproval')}${where}`, label: labelOf(model, model.elsewhere && 'in another window'), tooltip, color: 'prominent' };
    default: {
      const never: never = model.phase;
      return { text: `Vigil ${String(never)}`, label: `Vigil ${String(never)}`, tooltip };
    }
  }
}

function clipTitle(title: string): string {
  return title.length > 30 ? `${title.slice(0, 29)}…` : title;
}
