// What the session webview asks of the rest of the extension. The provider calls it only with
// validated intents; the lead's composition root implements it over the supervisor and the registry.

import type { ApprovalDecision, SessionSnapshot } from '../../../shared/sessionView';

export interface SessionViewController {
  /** Answers every `ready` (first load and every webview reload), so it must reflect current state. */
  getSnapshot(): SessionSnapshot | Promise<SessionSnapshot>;
  onPrompt(intent: { sessionId?: string; text: string }): void | Promise<void>;
  /** Stop button or Escape: the user's abort of the running turn. */
  onStop(intent: { sessionId?: string }): void | Promise<void>;
  onResume(intent: { sessionId?: string }): void | Promise<void>;
  onApproval(intent: { sessionId?: string; requestId: string; decision: ApprovalDecision }): void | Promise<void>;
  onShowTaskOutput(intent: { taskId: string }): void | Promise<void>;
  onKillTask(intent: { taskId: string }): void | Promise<void>;
  /** Without a session id: let the person pick one (or start a new one). */
  onOpenSession(intent: { sessionId?: string }): void | Promise<void>;
}
