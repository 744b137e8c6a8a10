// Bounds how many tasks run at once, per session and per window: each running task holds a process tree and
// file handles in the host. A start takes a slot before it asks the person and holds it until its task
// counts as running, so concurrent starts (a burst of calls, approvals waiting) cannot all pass the check.

import { VigilError } from '../common/errors';
import type { StartSlot } from '../ports/terminalHost';

export interface TaskCaps {
  /** `vigil.tasks.maxRunningPerSession`. */
  perSession: number;
  /** `vigil.tasks.maxRunningPerWindow`. */
  perWindow: number;
}

export const DEFAULT_TASK_CAPS: TaskCaps = { perSession: 16, perWindow: 64 };
/** The ranges of the settings (package.json declares the same). */
export const TASK_CAP_RANGE = { perSession: { min: 1, max: 256 }, perWindow: { min: 1, max: 1024 } } as const;

interface RunningTask {
  id: string;
  sessionId: string;
}

class Slot implements StartSlot {
  constructor(
    readonly sessionId: string,
    private readonly free: (slot: Slot) => void,
  ) {}

  release(): void {
    this.free(this);
  }
}

/** Ids named in a refusal at most; the rest are counted. */
const SHOWN_IDS = 20;

export class StartSlots {
  private readonly held = new Set<Slot>();

  constructor(
    private readonly caps: () => TaskCaps,
    private readonly running: () => readonly RunningTask[],
  ) {}

  /** A slot for one start of `sessionId`; throws `TASK_LIMIT` with what the agent can do when a cap is reached. */
  take(sessionId: string): StartSlot {
    const problem = this.refusal(sessionId);
    if (problem) throw new VigilError('TASK_LIMIT', problem);
    const slot = new Slot(sessionId, (s) => this.held.delete(s));
    this.held.add(slot);
    return slot;
  }

  /** `slot` when it is a live slot of this gate for `sessionId` (taken before an approval), else a fresh one. */
  hold(sessionId: string, slot: StartSlot | undefined): StartSlot {
    if (slot instanceof Slot && this.held.has(slot) && slot.sessionId === sessionId) return slot;
    return this.take(sessionId);
  }

  private refusal(sessionId: string): string | undefined {
    const caps = sane(this.caps());
    const running = this.running();
    const mine = running.filter((t) => t.sessionId === sessionId).map((t) => t.id);
    const starting = [...this.held].filter((s) => s.sessionId === sessionId).length;
    const then = 'then start this command again';
    if (mine.length + starting >= caps.perSession) {
      return (
        `Not started: this session already has ${describe(mine, starting)}, and Vigil runs at most ${caps.perSession} at once per session ` +
        `(vigil.tasks.maxRunningPerSession). Wait until one ends (a background command wakes you when it does) or kill one you no longer need, ${then}.`
      );
    }
    const all = running.length + this.held.size;
    if (all >= caps.perWindow) {
      const yours = mine.length > 0 ? `${mine.length} of them this session's (${ids(mine)})` : 'none of them this session\'s';
      const act = mine.length > 0 ? `wait until one ends or kill one of this session's you no longer need, ${then}` : `wait for them to end (or ask the person to stop some), ${then}`;
      return `Not started: ${all} commands are running or starting in this window, ${yours}, and Vigil runs at most ${caps.perWindow} at once per window (vigil.tasks.maxRunningPerWindow). To run it, ${act}.`;
    }
    return undefined;
  }
}

/** A cap that is not a whole number of at least 1 (a broken setting reader) is its default, never "no cap". */
function sane(caps: TaskCaps): TaskCaps {
  const ok = (n: number) => Number.isInteger(n) && n >= 1;
  return { perSession: ok(caps.perSession) ? caps.perSession : DEFAULT_TASK_CAPS.perSession, perWindow: ok(caps.perWindow) ? caps.perWindow : DEFAULT_TASK_CAPS.perWindow };
}

function describe(running: string[], starting: number): string {
  const parts = [];
  if (running.length > 0) parts.push(`${running.length} command${running.length === 1 ? '' : 's'} running (${ids(running)})`);
  if (starting > 0) parts.push(`${starting} being started`);
  return parts.join(' and ');
}

function ids(list: string[]): string {
  return list.length <= SHOWN_IDS ? list.join(', ') : `${list.slice(0, SHOWN_IDS).join(', ')} and ${list.length - SHOWN_IDS} more`;
}
