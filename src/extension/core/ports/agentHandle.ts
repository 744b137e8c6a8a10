// The contract between the turn supervisor and whatever runs the agent (the ACP client, or a test fake).

import type { PromptAttachment } from '../../../shared/promptContext';
import type { NoticeAction } from '../../../shared/sessionView';
import type { Unsubscribe } from './subscription';

/** What a turn is waiting on right now; chooses the watchdog bound and is shown to the person. */
export type WaitingOn =
  | { kind: 'model' }
  | { kind: 'agent' }
  | { kind: 'approval' }
  /** A tool reported by the agent; `observable` is true when its output reaches us as activity (client terminals). */
  | { kind: 'tool'; name: string; toolCallId?: string; observable: boolean };

export function describeWaitingOn(w: WaitingOn): string {
  switch (w.kind) {
    case 'model':
      return 'model';
    case 'agent':
      return 'agent';
    case 'approval':
      return 'your approval';
    case 'tool':
      return `tool ${w.name}`;
    default: {
      const never: never = w;
      return String(never);
    }
  }
}

/**
 * One unit of agent activity. Every event advances the turn's activity generation, except
 * that lease renewals and keep-alives are never reported as events at all.
 */
export interface AgentEvent {
  /** Short description for logs and the status bar, e.g. `model: streaming`, `tool: run_command npm test`. */
  description: string;
  waitingOn: WaitingOn;
  /** An ACP `session/update` payload (the `update` field) to persist in the transcript and show. */
  update?: Record<string, unknown>;
  /** A line for the turn's transcript (e.g. "Retrying in 8 s (2/5) after HTTP 429."). */
  notice?: string;
  /** A permission request opened or closed: the watchdog is suspended while one is open. */
  approval?: 'opened' | 'closed';
}

export type PromptStopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled';

export interface PromptOutcome {
  stopReason: PromptStopReason;
}

/** A provider failure that must pause the session's wakeups (credentials or quota). */
export interface AgentFailure {
  code: 'PROVIDER_AUTH' | 'PROVIDER_QUOTA' | 'AGENT_FAILED' | 'AGENT_CRASHED';
  message: string;
  /** What the person can do about it (shown as buttons on the failure notice). */
  remedies?: NoticeAction[];
  /** A turn taken back after a reload whose agent could not be re-attached: it ends interrupted (Resume offered), as a crash of its window does. */
  notTakenBack?: boolean;
}

/** What a stopped turn's agent had left running and was stopped (SIGTERM now, SIGKILL after the grace). */
export interface LeftoverReport {
  /** One bounded, masked line: "Stopped 2 processes the agent left running: sleep 600, npm test". */
  summary: string;
  /** Settles after the grace: a line about those that needed SIGKILL, if any. */
  killed: Promise<string | undefined>;
}

export interface PromptRequest {
  sessionId: string;
  turnId: string;
  text: string;
  /** Files, chosen text and images the person attached (checked by the host); absent for wakeups and resumes. */
  attachments?: PromptAttachment[];
  /**
   * The prompt replaces the session's last exchange (an edit, retry or regenerate) in an agent whose history is Vigil's
   * (the built-in agent): its process starts again from the transcript's history, which leaves that exchange out.
   */
  rewritesHistory?: boolean;
  /** Receives every activity event of this prompt, in order. */
  onEvent(event: AgentEvent): void;
  /**
   * The prompt was sent by an earlier window and is still running behind the agent's relay: nothing is
   * sent; the handle re-attaches and follows it to its answer (docs/turn-supervisor.md, The detached state),
   * and says how long the agent had been silent, so the watchdog counts that silence.
   */
  adopted?: { silentFor(ms: number): void; readonly startedAt: number; /** The lease epoch it was taken back under (the relay's fencing). */ readonly epoch: number };
  /** Resolves once every event handed to `onEvent` so far is stored (the turn's transcript): the relay's acknowledgement waits for it. */
  stored?(): Promise<void>;
}

/**
 * A handle on the agent serving one session. Implementations must make `cancel` and `kill`
 * safe to call at any time, any number of times.
 */
export interface AgentHandle {
  /** Sends `session/prompt`; resolves when the agent answers; rejects with an Error carrying an `AgentFailure` in `cause` on failure. */
  prompt(request: PromptRequest): Promise<PromptOutcome>;
  /** Cooperative cancel (`session/cancel`); open permission requests are answered `cancelled`. */
  cancel(sessionId: string): Promise<void>;
  /** Kills the agent's whole process tree; the next prompt starts a fresh process. */
  kill(reason: string): Promise<void>;
  /** Called when the agent process dies on its own. */
  onExit?(listener: (info: { code: number | null; signal: string | null }) => void): Unsubscribe;
  /** After a cancelled or aborted turn: stops the processes the agent started during `turnId` and left running. */
  stopLeftovers?(turnId: string, graceMs: number): Promise<LeftoverReport | undefined>;
  /**
   * True while the agent runs behind the relay, which another window can take it over from (with the session's
   * lease): then a window that no longer holds the lease owns neither the agent nor what it runs.
   */
  outlivesWindow?(): boolean;
}

export interface AgentHandleProvider {
  /** Returns the handle for a session, spawning an agent process if none is running. */
  get(sessionId: string): Promise<AgentHandle>;
}
