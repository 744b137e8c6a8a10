// The words a person reads for a session's state: one term per TurnPhase, the same in the status bar, the
// view's status line, the session list, the notices, the notifications and what a screen reader hears
// (the table in docs/ui.md). How the supervisor got there (watchdog, lease, generation, reclaim) goes into
// a notice's folded details and the log, never into these terms.

import type { TurnPhase } from './sessionView';

/** Each phase's one term, capitalised as at the start of a line; `stateWord` gives it for the middle of one. */
export const phaseTerms: Readonly<Record<TurnPhase, string>> = {
  idle: 'Idle',
  running: 'Running',
  quiet: 'Quiet',
  stalled: 'Stalled',
  awaitingApproval: 'Needs your approval',
  // Aborted (by the person or the watchdog) and interrupted (its window closed, another window took over) both
  // ended the turn before it finished, kept what it did and offer Resume: to a person that is one state, and
  // the notice says why. Two words here made the watchdog's stop read "aborted" in its notice and
  // "Interrupted" in the status line a moment later.
  aborted: 'Stopped',
  interrupted: 'Stopped',
};

/** The codicon of each phase where one is shown beside the term (the status line, the notices, the session list). */
export const phaseIcons: Readonly<Record<TurnPhase, string>> = {
  idle: 'circle-outline',
  running: 'sync',
  quiet: 'watch',
  stalled: 'warning',
  awaitingApproval: 'question',
  aborted: 'debug-stop',
  interrupted: 'debug-stop',
};

export function phaseTerm(phase: TurnPhase): string {
  return phaseTerms[phase];
}

/** The term inside a sentence or a list row: "stopped", "needs your approval". */
export function stateWord(phase: TurnPhase): string {
  return phaseTerms[phase].toLowerCase();
}

/**
 * The phase whose term a text starts with ("Stopped: no progress for 6 s" → aborted), case-insensitive;
 * stopped reads back as `aborted`. Tests read the screen with it.
 */
export function phaseOfTerm(text: string): TurnPhase | undefined {
  const said = text.trim().toLowerCase();
  return (Object.keys(phaseTerms) as TurnPhase[]).find((phase) => {
    const term = phaseTerms[phase].toLowerCase();
    return said === term || (said.startsWith(term) && /^[\s:,·—]/.test(said.slice(term.length)));
  });
}

/** What is said while the watchdog's abort is being attempted (the stall is observed, nothing is stopped yet). */
export const STOPPING = 'Vigil is stopping the turn';

/** What a stopped turn means for the person's work and what they can do: the start of every stop notice's details. */
export const STOPPED_MEANS = 'What the turn did before it stopped is kept. Resume continues it, or send a new message.';

/** The one-line summaries of the notices; the facts of docs/turn-supervisor.md (how long, what it waited on) stay in them or their details. */
export const summaries = {
  quiet: (seconds: number) => `${phaseTerms.quiet}: no progress for ${seconds} s`,
  stall: (seconds: number) => `${phaseTerms.stalled}: no progress for ${seconds} s`,
  stoppedNoProgress: (seconds: number) => `${phaseTerms.aborted}: no progress for ${seconds} s`,
  stoppedByYou: `${phaseTerms.aborted} by you`,
  stoppedFromAnotherWindow: `${phaseTerms.aborted} from another window`,
  stoppedTakenOver: `${phaseTerms.aborted}: another window took this session over`,
  stoppedAgentEnded: `${phaseTerms.aborted}: the agent did not respond, so Vigil ended it`,
  stoppedWindowClosed: `${phaseTerms.aborted}: the window running this turn closed before it finished`,
  stoppedWindowLapsed: `${phaseTerms.aborted}: the window running this turn stopped responding`,
  stoppedNoAnswer: `${phaseTerms.aborted}: the window running this turn did not answer when asked to stop, so this window ended it`,
  stoppedNoEnd: `${phaseTerms.aborted}: the window running this turn let go of the session before the turn recorded its end`,
  stopped: `${phaseTerms.aborted} before it finished`,
} as const;

/** While Vigil cannot know which agent the person chose (the editor has not passed their settings on yet). */
export const waitingForSettings = {
  text: 'Waiting for settings…',
  detail: 'VS Code has not yet passed your agent settings to Vigil in this window. Your message is sent as soon as it does, and to no agent before that.',
} as const;

/** "No progress for 30 s (waiting on: model)." — the opening of the stall and stop details. */
export function noProgressFor(seconds: number, waitingOn: string): string {
  return `No progress for ${seconds} s (waiting on: ${waitingOn}).`;
}
