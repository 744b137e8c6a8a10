// The ports the VS Code glue implements for the ACP client: ask the person, workspace trust and
// approval policy, VS Code language models (host side of `_vigil/lm/*`), and API keys from SecretStorage.

import type { ChatMessage, ToolSpec } from '../../../shared/agentProtocol/history';
import type { ApprovalDetails } from '../../../shared/fileEdits';

/** What the person answered to a permission prompt; `cancelled` when the prompt was aborted (turn cancelled). */
export type PermissionAnswer = 'allowOnce' | 'allowAlways' | 'reject' | 'cancelled';

export interface PermissionQuestion {
  sessionId: string;
  /** e.g. `run_command npm test`, `write_file src/a.ts`, or `read outside the workspace: /etc/hosts`. */
  title: string;
  /** ACP tool kind (`read`, `edit`, `execute`, …) or `other`. */
  kind: string;
  /** The command, its folder and whether it runs in the background, or the edit and its diff, in readable form. */
  details?: ApprovalDetails;
  /** What the agent sent, shown on request beside the readable form. */
  rawInput?: unknown;
}

export interface PermissionPrompter {
  /** Must settle with `cancelled` soon after `signal` aborts (the prompt UI is dismissed). */
  ask(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer>;
}

/** `vigil.approvals.policy`: ask for everything, auto-allow read-only tools, or auto-allow everything. */
export type ApprovalMode = 'ask' | 'allowReadOnly' | 'allowAll';

export interface ApprovalPolicy {
  /** VS Code workspace trust; an untrusted workspace gets no commands and no writes at all. */
  isTrusted(): boolean;
  /** The mode for a tool kind: `vigil.approvals.byKind` where it names the kind, else the policy. */
  mode(kind?: string): ApprovalMode;
  /** `vigil.edits.review`: writes apply at once (`auto`, the default) or wait for the person's review of their diff. */
  editReview?(): 'auto' | 'ask';
}

export interface LanguageModelInfo {
  id: string;
  name: string;
  vendor?: string;
}

/** One event of a VS Code language model response. */
export type LanguageModelEvent = { kind: 'text'; text: string } | { kind: 'toolCall'; call: { id: string; name: string; arguments: string } };

/**
 * Host side of the `vscode-lm` provider (vscode.lm.selectChatModels / sendRequest). Failures are
 * thrown as VigilError with code PROVIDER_AUTH (no consent/sign-in), PROVIDER_QUOTA, or PROVIDER_FAILED.
 */
export interface LanguageModelBridge {
  listModels(): Promise<LanguageModelInfo[]>;
  chat(
    request: { model?: string; system: string; messages: ChatMessage[]; tools: ToolSpec[] },
    signal: AbortSignal,
  ): AsyncIterable<LanguageModelEvent>;
}

/** API keys from VS Code SecretStorage. Handed to the built-in agent in its environment at spawn; never logged. */
export interface SecretSource {
  apiKey(provider: 'openai-compatible' | 'anthropic'): Promise<string | undefined>;
}
