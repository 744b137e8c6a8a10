// What one row of the session list shows (label, icon, colour, description, tooltip, context value); pure, unit-tested.

import type { SessionMeta } from '../core/store/sessionStore';
import type { CheckedPlacement } from '../core/folders/sessionFolders';
import { folderName } from '../core/folders/sessionFolder';
import { formatRelativeTime } from './relativeTime';
import type { TurnPhase } from '../../shared/sessionView';
import { isTurnLive } from '../../shared/sessionViewReducer';
import { phaseIcons, phaseTerm, stateWord } from '../../shared/turnWords';

export interface SessionRow {
  label: string;
  description: string;
  /** The description as a screen reader hears it: always starting with the state's term. */
  accessibleDescription: string;
  tooltip: string;
  /** A codicon id (ThemeIcon) and an optional theme colour id for it. */
  icon: string;
  iconColor?: string;
  /** `session.<status>[.resumable]`; package.json menus match `viewItem =~ /^session/`. */
  contextValue: string;
  /** The live phase of a turn in this window, else the session's stored state. */
  status: TurnPhase;
  turnRunning: boolean;
}

/** Icons and colours per state; the words are shared/turnWords.ts's, as everywhere else. */
const LOOKS: Record<TurnPhase, { icon: string; color?: string }> = {
  idle: { icon: 'comment-discussion' },
  running: { icon: 'sync~spin', color: 'charts.blue' },
  quiet: { icon: phaseIcons.quiet, color: 'list.warningForeground' },
  stalled: { icon: phaseIcons.stalled, color: 'list.warningForeground' },
  aborted: { icon: phaseIcons.aborted, color: 'list.errorForeground' },
  interrupted: { icon: phaseIcons.interrupted, color: 'list.errorForeground' },
  awaitingApproval: { icon: phaseIcons.awaitingApproval, color: 'charts.yellow' },
};

/**
 * `live`: the state the session's view shows (or would), idle included, when this window knows it (its
 * model, a turn it runs, another window's turn board); else the stored state speaks, which a turn's end writes.
 */
export function rowStatus(meta: Pick<SessionMeta, 'state'>, live: TurnPhase | undefined): TurnPhase {
  return live ?? meta.state;
}

/** `elsewhere`: the turn runs in another window of this machine (followed through the store). */
export function presentSession(meta: SessionMeta, live: TurnPhase | undefined, runningTasks: number, now: number, elsewhere = false): SessionRow {
  const status = rowStatus(meta, live);
  const where = elsewhere && isTurnLive(status) ? ' in another window' : '';
  const running = isTurnLive(status);
  const resumable = !running && (status === 'aborted' || status === 'interrupted');
  const when = formatRelativeTime(meta.updatedAt, now);
  const tasks = runningTasks > 0 ? ` · ${runningTasks} bg` : '';
  const state = `${stateWord(status)}${where}`;
  // An idle row shows only its time; a screen reader still hears the state first, as for every other row.
  const description = status === 'idle' ? `${when}${tasks}` : `${state} · ${when}${tasks}`;
  const label = meta.title.trim() || 'Untitled session';
  const reason = meta.stateReason && !running && status !== 'idle' ? meta.stateReason : undefined;
  const tooltip = [
    meta.title,
    // A stop's reason starts with its term ("Stopped: no progress for 30 s"): it is the status line itself.
    ...(reason?.startsWith(phaseTerm(status)) ? [`Status: ${reason}`] : [`Status: ${phaseTerm(status)}${where}`, ...(reason ? [`Why: ${reason}`] : [])]),
    `Last activity: ${when} (${new Date(meta.updatedAt).toLocaleString()})`,
    `Background tasks running: ${runningTasks}`,
    ...(resumable ? ['Resume it with “Vigil: Resume Session…”.'] : []),
  ].join('\n');
  const look = LOOKS[status];
  return {
    label,
    description,
    accessibleDescription: `${state} · ${when}${tasks}`,
    tooltip,
    icon: look.icon,
    iconColor: look.color,
    contextValue: `session.${running ? 'running' : status}${resumable ? '.resumable' : ''}`,
    status,
    turnRunning: running,
  };
}

/** Rename input: non-empty and at most 200 characters; returns the message to show, or undefined when valid. */
export function validateSessionTitle(value: string): string | undefined {
  const title = value.trim();
  if (title.length === 0) return 'A session title cannot be empty.';
  if (title.length > 200) return `A session title can have at most 200 characters (this one has ${title.length}).`;
  return undefined;
}

/** How a row shows the session's folder: `here` rows are listed first; others carry a label and why. */
export interface FolderRow {
  here: boolean;
  /** Appended to the row's description (the folder's name, or what is wrong with it). */
  label?: string;
  /** A tooltip line. */
  detail?: string;
}

export function folderRow(placement: CheckedPlacement): FolderRow {
  switch (placement.kind) {
    case 'home':
      return { here: true, detail: `Folder: ${placement.folder}` };
    case 'adopt':
      return { here: true, detail: `Folder: none recorded yet (it takes ${placement.folder} when it next runs here)` };
    case 'folderless':
      return { here: true };
    case 'foreign':
      return { here: false, label: folderName(placement.folder), detail: `Folder: ${placement.folder}, not open in this window. Open that folder to continue this session.` };
    case 'missing':
      return { here: false, label: `${folderName(placement.folder)} (missing)`, detail: `Folder: ${placement.folder} does not exist any more; the session cannot run.` };
    case 'damaged':
      return { here: false, label: 'folder record damaged', detail: `Its stored folder is damaged (${placement.reason}); it will not run until session.json is fixed.` };
  }
}

/** Rows of this window's folders first, then the others; each group keeps its order (newest first). */
export function orderByFolder<T>(items: readonly T[], folderOf: (item: T) => FolderRow): T[] {
  const here = items.filter((item) => folderOf(item).here);
  const elsewhere = items.filter((item) => !folderOf(item).here);
  return [...here, ...elsewhere];
}
