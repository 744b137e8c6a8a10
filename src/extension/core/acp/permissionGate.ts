// Decides agent permission requests and the client-side operations Vigil serves (terminal/create,
// fs/write_text_file): workspace trust, then the approval policy, then the person; every open
// question is answered `cancelled` on abort.
//
// The client-side rule. An operation is "covered" when an earlier permission request of this session
// was allowed for it: an `allow_once` answer to an `execute` (or `edit`) tool call covers ONE
// following terminal/create (or write) of the same turn, and when the tool call names its command
// (`rawInput.command`) or files (`locations`, `rawInput.path`) only that command (as the shell runs it)
// or those files (one write each; a write through a symlink is the write of its target); `allow_always` covers the kind for the rest of the session, like the built-in agent's
// own memory of it. A covered operation runs without a second question. One that is not covered is
// decided by the same `decide()` as a permission request (with `vigil.approvals.byKind`): refused in
// Restricted Mode, allowed under "allowAll", asked under "ask" and "allowReadOnly" with the real
// command and cwd, or the real path, shown. A terminal cwd outside the workspace (or missing) is
// asked about under every policy, covered or not, as files outside the workspace are; that approval
// is never remembered ("allow always" counts once).

import type { PermissionOption, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { describeCounts, type ApprovalDetails } from '../../../shared/fileEdits';
import type { ToolKind } from '../../../shared/toolKinds';
import { untilAborted } from '../../../shared/untilAborted';
import { describeOp, GrantLedger, shown, type ClientOp, type ToolCallLike } from './clientGrants';
import type { ApprovalMode, ApprovalPolicy, PermissionAnswer, PermissionPrompter, PermissionQuestion } from './hostPorts';

const readOnlyKinds: ReadonlySet<string> = new Set<ToolKind>(['read', 'search', 'think', 'fetch']);
const mutatingKinds: ReadonlySet<string> = new Set<ToolKind>(['edit', 'delete', 'move', 'execute']);

export type PolicyDecision = 'allow' | 'reject' | 'ask';

export type ClientOpVerdict = { allowed: true } | { allowed: false; reason: string };

export type AskHooks = { opened(title: string): void; closed(title: string, answer: PermissionAnswer): void };

/** The whole policy as one pure function, so it is tested without any UI. */
export function decide(kind: string, trusted: boolean, mode: ApprovalMode): PolicyDecision {
  if (!trusted && (mutatingKinds.has(kind) || !readOnlyKinds.has(kind))) return 'reject';
  if (mode === 'allowAll') return 'allow';
  if (mode === 'allowReadOnly' && readOnlyKinds.has(kind)) return 'allow';
  return 'ask';
}

export class PermissionGate {
  private readonly open = new Set<AbortController>();
  private readonly grants: GrantLedger;

  /** `workspaceRoot` resolves the relative paths a tool call names. */
  constructor(
    private readonly policy: ApprovalPolicy,
    private readonly prompter: PermissionPrompter,
    workspaceRoot = process.cwd(),
  ) {
    this.grants = new GrantLedger(workspaceRoot);
  }

  /**
   * Answers an ACP permission request; `hooks` bracket the time the person is asked. An allowed
   * request of `toolCall` is recorded so the operations it covers are not asked again.
   */
  async answer(
    question: PermissionQuestion,
    options: PermissionOption[],
    hooks: { opened(): void; closed(answer: PermissionAnswer): void },
    requestSignal: AbortSignal,
    toolCall?: ToolCallLike,
  ): Promise<RequestPermissionResponse> {
    const decision = decide(question.kind, this.policy.isTrusted(), this.policy.mode(question.kind));
    const response = decision !== 'ask' ? select(options, decision === 'allow' ? 'allowOnce' : 'reject') : select(options, await this.ask(question, hooks, requestSignal));
    // What counts is the option the agent receives, not what the person clicked: an agent that offers
    // no "always" option gets "once", and its operations are covered once.
    if (toolCall && response.outcome.outcome === 'selected') {
      const chosen = options.find((o) => o.optionId === (response.outcome as { optionId: string }).optionId);
      if (chosen?.kind === 'allow_once' || chosen?.kind === 'allow_always') this.grants.record(toolCall, chosen.kind === 'allow_always');
    }
    return response;
  }

  /** Decides a client-side operation the agent wants Vigil to perform (see the rule in the header). */
  async authorize(sessionId: string, op: ClientOp, hooks: AskHooks, requestSignal: AbortSignal, rawInput?: unknown): Promise<ClientOpVerdict> {
    const what = describeOp(op);
    if (!this.policy.isTrusted()) {
      const action = op.kind === 'execute' ? 'run commands' : 'write files';
      return { allowed: false, reason: `Refused to ${what}: this workspace is in Restricted Mode (not trusted), so Vigil does not let the agent ${action}. Trust the workspace to allow it.` };
    }
    const covered = this.grants.take(op);
    const outside = op.kind === 'execute' && !op.cwdInside;
    if (covered && !outside) return { allowed: true };
    if (!outside) {
      const decision = decide(op.kind, true, this.policy.mode(op.kind));
      if (decision === 'allow') return { allowed: true };
      if (decision === 'reject') return { allowed: false, reason: `Refused to ${what}: the approval policy does not allow it.` };
    }
    const title = outside ? what : `${what} (the agent did not ask for permission first)`;
    const details: ApprovalDetails | undefined = op.kind === 'execute' ? { type: 'command', command: shown(op.commandLine, 20_000), cwd: shown(op.cwd, 4_000), background: op.background } : undefined;
    const question = { sessionId, title, kind: op.kind, ...(details ? { details } : {}), ...(rawInput !== undefined ? { rawInput } : {}) };
    const answer = await this.ask(question, { opened: () => hooks.opened(title), closed: (a) => hooks.closed(title, a) }, requestSignal);
    if (answer === 'allowAlways' && !outside) this.grants.grantAlways(op.kind);
    if (answer === 'allowOnce' || answer === 'allowAlways') return { allowed: true };
    return { allowed: false, reason: `Refused to ${what}: ${answer === 'cancelled' ? 'the question was cancelled' : 'the person did not approve it'}. Do not retry it; ask the person or choose another way.` };
  }

  /** Whether writes wait for the person's review of their diff (`vigil.edits.review` is `ask`). */
  get reviewsEdits(): boolean {
    return this.policy.editReview?.() === 'ask';
  }

  /**
   * `ask` review of a write: the person sees its diff and accepts or rejects this one file. It replaces the
   * policy's question (one question per write, not two); a permission given for the write is used up, and a policy
   * that refuses writes still refuses them unasked.
   */
  async reviewEdit(sessionId: string, op: Extract<ClientOp, { kind: 'edit' }>, details: Extract<ApprovalDetails, { type: 'edit' }>, hooks: AskHooks, requestSignal: AbortSignal, rawInput?: unknown): Promise<ClientOpVerdict> {
    const what = describeOp(op);
    if (!this.policy.isTrusted()) {
      return { allowed: false, reason: `Refused to ${what}: this workspace is in Restricted Mode (not trusted), so Vigil does not let the agent write files. Trust the workspace to allow it.` };
    }
    this.grants.take(op);
    if (decide(op.kind, true, this.policy.mode(op.kind)) === 'reject') return { allowed: false, reason: `Refused to ${what}: the approval policy does not allow it.` };
    const title = `edit ${details.edit.path} (${describeCounts(details.edit)})`;
    const question = { sessionId, title, kind: op.kind, details, ...(rawInput !== undefined ? { rawInput } : {}) };
    const answer = await this.ask(question, { opened: () => hooks.opened(title), closed: (a) => hooks.closed(title, a) }, requestSignal);
    if (answer === 'allowOnce' || answer === 'allowAlways') return { allowed: true };
    const why = answer === 'cancelled' ? 'the review was cancelled before the person answered' : 'the person rejected the edit';
    return { allowed: false, reason: `Did not write ${details.edit.path}: ${why}. The file is unchanged. Do not write it again unless the person asks; ask them what they want instead.` };
  }

  /**
   * An edit tool's permission request of an agent that writes only through Vigil (the built-in agent) while writes are
   * reviewed: allowed once unasked, since the write it leads to is asked about with its diff (one question, not two).
   */
  allowForReview(options: PermissionOption[], toolCall: ToolCallLike): RequestPermissionResponse {
    const response = select(options, 'allowOnce');
    if (response.outcome.outcome === 'selected') this.grants.record(toolCall, false);
    return response;
  }

  /** The turn ended: approvals given "once" in it cover nothing after it. */
  endTurn(): void {
    this.grants.endTurn();
  }

  /** Asks the person directly (e.g. for a path outside the workspace); also cancelled by `cancelAll`. */
  async ask(question: PermissionQuestion, hooks: { opened(): void; closed(answer: PermissionAnswer): void }, requestSignal?: AbortSignal): Promise<PermissionAnswer> {
    const controller = new AbortController();
    const signal = requestSignal ? AbortSignal.any([controller.signal, requestSignal]) : controller.signal;
    this.open.add(controller);
    hooks.opened();
    let answer: PermissionAnswer = 'cancelled';
    try {
      // An abort answers at once even if the prompter is slow to dismiss its UI.
      answer = await untilAborted(this.prompter.ask(question, signal), signal, () => 'cancelled' as const);
      return answer;
    } finally {
      this.open.delete(controller);
      hooks.closed(answer);
    }
  }

  get openCount(): number {
    return this.open.size;
  }

  /** Abort: every open question is answered `cancelled`. */
  cancelAll(): void {
    for (const controller of [...this.open]) controller.abort();
  }
}

function select(options: PermissionOption[], answer: PermissionAnswer): RequestPermissionResponse {
  if (answer === 'cancelled') return { outcome: { outcome: 'cancelled' } };
  const wanted = answer === 'allowOnce' ? ['allow_once', 'allow_always'] : answer === 'allowAlways' ? ['allow_always', 'allow_once'] : ['reject_once', 'reject_always'];
  for (const kind of wanted) {
    const option = options.find((o) => o.kind === kind);
    if (option) return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
  // The agent offered no option of the wanted kind: refusing is the only safe answer.
  return { outcome: { outcome: 'cancelled' } };
}
