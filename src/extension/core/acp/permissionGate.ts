// Decides agent permission requests: workspace trust, then the approval policy, then the person;
// every open question is answered `cancelled` on abort.

import type { PermissionOption, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ApprovalMode, ApprovalPolicy, PermissionAnswer, PermissionPrompter, PermissionQuestion } from './hostPorts';

const readOnlyKinds = new Set(['read', 'search', 'think', 'fetch']);
const mutatingKinds = new Set(['edit', 'delete', 'move', 'execute']);

export type PolicyDecision = 'allow' | 'reject' | 'ask';

/** The whole policy as one pure function, so it is tested without any UI. */
export function decide(kind: string, trusted: boolean, mode: ApprovalMode): PolicyDecision {
  if (!trusted && (mutatingKinds.has(kind) || !readOnlyKinds.has(kind))) return 'reject';
  if (mode === 'allowAll') return 'allow';
  if (mode === 'allowReadOnly' && readOnlyKinds.has(kind)) return 'allow';
  return 'ask';
}

export class PermissionGate {
  private readonly open = new Set<AbortController>();

  constructor(
    private readonly policy: ApprovalPolicy,
    private readonly prompter: PermissionPrompter,
  ) {}

  /** Answers an ACP permission request; `onAsk` brackets the time the person is asked. */
  async answer(
    question: PermissionQuestion,
    options: PermissionOption[],
    hooks: { opened(): void; closed(answer: PermissionAnswer): void },
    requestSignal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const decision = decide(question.kind, this.policy.isTrusted(), this.policy.mode());
    if (decision !== 'ask') return select(options, decision === 'allow' ? 'allowOnce' : 'reject');
    const answer = await this.ask(question, hooks, requestSignal);
    return select(options, answer);
  }

  /** Asks the person directly (e.g. for a path outside the workspace); also cancelled by `cancelAll`. */
  async ask(question: PermissionQuestion, hooks: { opened(): void; closed(answer: PermissionAnswer): void }, requestSignal?: AbortSignal): Promise<PermissionAnswer> {
    const controller = new AbortController();
    const onRequestAbort = () => controller.abort();
    requestSignal?.addEventListener('abort', onRequestAbort, { once: true });
    this.open.add(controller);
    hooks.opened();
    let answer: PermissionAnswer = 'cancelled';
    try {
      answer = await Promise.race([
        this.prompter.ask(question, controller.signal),
        // An abort answers at once even if the prompter is slow to dismiss its UI.
        new Promise<PermissionAnswer>((resolve) => controller.signal.addEventListener('abort', () => resolve('cancelled'), { once: true })),
      ]);
      return answer;
    } finally {
      this.open.delete(controller);
      requestSignal?.removeEventListener('abort', onRequestAbort);
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
