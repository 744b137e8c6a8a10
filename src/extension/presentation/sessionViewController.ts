// What the session webview asks of the rest of the extension. The provider calls it only with
// validated intents; the composition root implements it over the supervisor and the registry.
// A handler that throws or rejects is logged and answered to the webview as an error.

import type { ElicitationValue } from '../../shared/elicitationForm';
import type { MentionItem, PromptMention } from '../../shared/promptContext';
import type { RedoHow } from '../../shared/lastExchange';
import type { ApprovalDecision, ElicitationAction, NoticeAction, SessionSnapshot } from '../../shared/sessionView';

export interface SessionViewController {
  /**
   * The shown session's model as it is now: every `ready` is answered with it, so it must reflect
   * every event posted so far (the channel keeps no copy). Synchronous, so no event can slip between
   * taking the snapshot and sending it.
   */
  getSnapshot(): SessionSnapshot;
  onPrompt(intent: { sessionId?: string; text: string; mentions?: PromptMention[] }): void | Promise<void>;
  /** `@` in the composer: files matching the query, the selection, the Problems list. */
  onMentionQuery?(intent: { sessionId?: string; query: string }): Promise<{ items: MentionItem[]; images?: boolean; note?: string }>;
  /** Files dropped on the composer, by the URIs the drag named (hostile until checked): the mentions `@` would make of them. */
  onDropUris?(intent: { sessionId?: string; uris: string[] }): Promise<{ items: MentionItem[]; note?: string }>;
  /** The composer's Problems button: the Problems of the active editor's file, as a mention. */
  onActiveProblems?(intent: { sessionId?: string }): Promise<{ items: MentionItem[]; note?: string }>;
  onElicitation?(intent: { sessionId?: string; requestId: string; action: ElicitationAction; content?: Record<string, ElicitationValue> }): void | Promise<void>;
  /** `sessionId`: the session of the surface asking (an editor tab's); else the side bar's. */
  onOpenElicitationUrl?(intent: { requestId: string; sessionId?: string }): void | Promise<void>;
  /** Stop button or Escape: the user's abort of the running turn. */
  onStop(intent: { sessionId?: string }): void | Promise<void>;
  onResume(intent: { sessionId?: string }): void | Promise<void>;
  onApproval(intent: { sessionId?: string; requestId: string; decision: ApprovalDecision }): void | Promise<void>;
  onShowTaskOutput(intent: { taskId: string }): void | Promise<void>;
  onKillTask(intent: { taskId: string }): void | Promise<void>;
  /** A file link in model markdown; the path is the webview's claim and must be checked again. */
  onOpenFile(intent: { path: string; line?: number }): void | Promise<void>;
  /** An edit's "Open diff": the id is the host's own (the view names no file); unknown ids get a plain message. */
  onOpenDiff?(intent: { editId: string }): void | Promise<void>;
  /** Without a session id: let the person pick one (or start a new one). */
  onOpenSession(intent: { sessionId?: string }): void | Promise<void>;
  /** A notice's button: Open Log, Open Settings, Sign in…. */
  onNoticeAction?(intent: { sessionId?: string; action: NoticeAction }): void | Promise<void>;
  /** A header control of the agent's options (agentOptionPicks.ts): one option's values, or all options. */
  onAgentOption?(intent: { sessionId?: string; configId?: string }): void | Promise<void>;
  /** "Restore to before this turn" on a turn's checkpoint (checkpointCommands.ts). */
  onRestoreCheckpoint?(intent: { sessionId?: string; turnId: string; path?: string }): void | Promise<void>;
  /** Edit and send again, Retry or Regenerate the last exchange (turnRedo.ts); refused with the reason when it is not the last. */
  onRedo?(intent: { sessionId?: string; entryId: string; how: RedoHow; text?: string }): void | Promise<void>;
  /** A turn's changes in the diff editor: one file of it, or the whole turn. */
  onOpenTurnChanges?(intent: { sessionId?: string; turnId: string; path?: string }): void | Promise<void>;
}
