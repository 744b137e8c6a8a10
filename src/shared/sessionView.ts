// The session view model: plain serializable data the extension host fills and the webview renders.
// Shapes follow ACP where ACP has one (tool calls, plans); everything else is Vigil's own.

import type { AgentStateView } from './agentState';
import type { AttachmentSummary } from './promptContext';
import type { ApprovalDetails, FileEditView } from './fileEdits';
import type { ToolKind } from './toolKinds';
import type { TurnChangesView } from './turnChanges';

export type TurnPhase = 'idle' | 'running' | 'quiet' | 'stalled' | 'aborted' | 'interrupted' | 'awaitingApproval';

export interface SessionMetaView {
  id: string;
  title: string;
  agent?: string;
  model?: string;
  cwd?: string;
  createdAt?: number;
  /** Set when the agent's background commands cannot wake it (no Vigil task server for it), saying why. */
  wakeups?: string;
  /** Set while Restricted Mode decides which agent serves (core/settings/restrictedAgent.ts): one line, and what it means. */
  restricted?: { text: string; detail: string };
  /** The built-in agent serves: its history is Vigil's, so an edit, retry or regenerate replaces the last exchange in it. */
  builtin?: boolean;
}

/**
 * A message that replaces the exchange before it (lastExchange.ts): how, and whether the agent's history lost that
 * exchange (the built-in agent's) or still holds it (an agent that keeps its own history gets a new message).
 */
export interface RedoView {
  how: 'edit' | 'retry' | 'regenerate';
  replaced: boolean;
}

/** ACP `ToolKind` (toolKinds.ts). */
export type ToolKindView = ToolKind;
/**
 * ACP `ToolCallStatus`, plus `cancelled` for calls an abort left unfinished (older transcripts) and `ended`
 * for calls the agent still showed pending or running when its turn ended: no result came.
 */
export type ToolStatusView = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'ended';

/** How a tool call with status `ended` reads, in the card and in the transcript record. */
export const TOOL_ENDED_TEXT = 'ended without a result';

export type ToolContentView =
  | { type: 'text'; text: string }
  | { type: 'diff'; path: string; oldText?: string | null; newText: string }
  | { type: 'terminal'; terminalId: string };

export interface ToolCallView {
  toolCallId: string;
  title: string;
  kind: ToolKindView;
  status: ToolStatusView;
  rawInput?: unknown;
  rawOutput?: unknown;
  content: ToolContentView[];
  locations?: { path: string; line?: number }[];
  /** Epoch ms; the card shows the duration from these. */
  startedAt?: number;
  endedAt?: number;
  /** Files this call wrote through Vigil, each openable in the diff editor. */
  edits?: FileEditView[];
}

export interface PlanItemView {
  content: string;
  priority: 'high' | 'medium' | 'low';
  status: 'pending' | 'in_progress' | 'completed';
}

export type NoticeKind = 'quiet' | 'stall' | 'abort' | 'interrupted' | 'error' | 'info';

/**
 * A button on a notice: Open Log (the Vigil output), Open Settings (`vigil.agent`), Sign in… (the agent's auth methods),
 * Change… (whether the person's agent may work in this Restricted Mode folder).
 */
export type NoticeAction = 'openLog' | 'openSettings' | 'signIn' | 'agentConsent';
export const noticeActions: readonly NoticeAction[] = ['openLog', 'openSettings', 'signIn', 'agentConsent'];

export interface NoticeView {
  id: string;
  kind: NoticeKind;
  /** The one-line summary, shown verbatim; the supervisor owns the wording (docs/turn-supervisor.md, shared/turnWords.ts). */
  text: string;
  /** What it means, what the person can do and how Vigil got there: shown folded under the summary. */
  detail?: string;
  /** Offers a Resume button while the session is aborted or interrupted. */
  resumable: boolean;
  at: number;
  /** Buttons that lead out of the problem the notice reports. */
  actions?: NoticeAction[];
}

export type EntryView =
  | { kind: 'user'; id: string; text: string; at: number; source?: 'user' | 'wakeup' | 'resume'; attachments?: AttachmentSummary[]; redo?: RedoView }
  | { kind: 'agent'; id: string; markdown: string; streaming: boolean; at: number }
  | { kind: 'thought'; id: string; text: string; streaming: boolean; at: number }
  | { kind: 'toolCall'; id: string; at: number; toolCall: ToolCallView }
  | { kind: 'plan'; id: string; at: number; items: PlanItemView[] }
  | { kind: 'notice'; id: string; at: number; notice: NoticeView }
  | { kind: 'wakeup'; id: string; at: number; text: string; taskIds: string[] }
  /**
   * The end of a turn that has a checkpoint (offers "Restore to before this turn" and the files it changed, from the
   * checkpoint's trees, for every agent), or says why it has none.
   */
  | { kind: 'checkpoint'; id: string; at: number; turnId: string; restorable: boolean; note?: string; changes?: TurnChangesView }
  /** At a turn's end: the files it changed through Vigil, with +/− counts. */
  | { kind: 'edits'; id: string; at: number; files: FileEditView[] };

export type EntryKind = EntryView['kind'];

export interface TurnStatusView {
  phase: TurnPhase;
  turnId?: string;
  /** Epoch ms of turn start and of the last activity, so the view can tick between updates. */
  startedAt?: number;
  lastActivityAt?: number;
  silenceSeconds: number;
  /** e.g. "model", "tool run_command npm test", "your approval". */
  waitingOn?: string;
  /** Set while another window runs the turn (this window follows it through the store), e.g. "another window". */
  where?: string;
}

export type TaskStatusView = 'running' | 'exited' | 'killed' | 'lost';

export interface TaskView {
  id: string;
  command: string;
  status: TaskStatusView;
  startedAt: number;
  endedAt?: number;
  exitCode?: number | null;
  signal?: string | null;
}

export type ApprovalDecision = 'allowOnce' | 'allowAlways' | 'reject';

export interface ApprovalView {
  requestId: string;
  toolCallId?: string;
  title: string;
  kind?: ToolKindView;
  rawInput?: unknown;
  at: number;
  /** The command, folder and background flag, or the edit and its diff, in readable form. */
  details?: ApprovalDetails;
}

/**
 * An agent's open `elicitation/create`. A form carries the agent's requested schema as the host
 * accepted it; the view reads it with the same `normalizeSchema` (elicitationForm.ts). A URL is
 * shown with its host and opened by the host, never by the view.
 */
export type ElicitationView =
  | { requestId: string; mode: 'form'; message: string; schema: unknown; at: number }
  | { requestId: string; mode: 'url'; message: string; url: string; host: string; at: number };

export type ElicitationAction = 'accept' | 'decline' | 'cancel';

export interface SessionSnapshot {
  /** Null while no session is open: the view shows an empty state. */
  session: SessionMetaView | null;
  entries: EntryView[];
  turn: TurnStatusView;
  /** Pinned above the input: the live quiet/stall banner and a resumable abort/interrupted notice. */
  notices: NoticeView[];
  tasks: TaskView[];
  approvals: ApprovalView[];
  /** The agent's options, commands and usage (absent until the agent said any). */
  agent?: AgentStateView;
  /** Open elicitations of the agent (absent: none). */
  elicitations?: ElicitationView[];
}

export type ToolCallPatch = Partial<Omit<ToolCallView, 'toolCallId'>>;

/** Incremental changes; `applyHostEvent` folds them into a snapshot. */
export type HostEvent =
  | { type: 'entryAppended'; entry: EntryView }
  | { type: 'chunkAppended'; entryId: string; entryKind: 'agent' | 'thought'; text: string; at: number }
  | { type: 'streamEnded'; entryId: string }
  | { type: 'toolCallCreated'; toolCall: ToolCallView; at: number }
  | { type: 'toolCallUpdated'; toolCallId: string; patch: ToolCallPatch }
  | { type: 'planUpdated'; entryId: string; items: PlanItemView[]; at: number }
  | { type: 'turnStatusChanged'; turn: TurnStatusView; notice?: NoticeView }
  /** A pinned notice that no longer holds (e.g. "Waiting for settings…" once the message went or was given back). */
  | { type: 'noticeWithdrawn'; noticeId: string }
  | { type: 'taskChanged'; task: TaskView }
  | { type: 'approvalRequested'; approval: ApprovalView }
  | { type: 'approvalResolved'; requestId: string }
  | { type: 'sessionMetaChanged'; session: SessionMetaView }
  | { type: 'agentStateChanged'; agent: AgentStateView }
  | { type: 'elicitationRequested'; elicitation: ElicitationView }
  | { type: 'elicitationResolved'; requestId: string };

export function emptySnapshot(): SessionSnapshot {
  return { session: null, entries: [], turn: { phase: 'idle', silenceSeconds: 0 }, notices: [], tasks: [], approvals: [] };
}
