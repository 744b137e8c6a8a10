// Open permission requests of the agent, answered from the session view (or any other surface):
// the first answer wins, and an abort of the turn answers `cancelled`.

import { randomUUID } from 'node:crypto';
import type { PermissionAnswer, PermissionPrompter, PermissionQuestion } from '../core/acp/hostPorts';
import type { ApprovalView } from '../../shared/sessionView';
import { toolKindOf } from '../../shared/toolKinds';
import { cutText } from '../../shared/textCut';
import { EventHub, type Unsubscribe } from '../core/common/events';

export type ApprovalChange =
  | { type: 'requested'; sessionId: string; approval: ApprovalView }
  | { type: 'resolved'; sessionId: string; requestId: string; answer: PermissionAnswer };

interface Pending {
  sessionId: string;
  view: ApprovalView;
  settle(answer: PermissionAnswer): void;
}

/** Raw input larger than this (e.g. a whole file's content) is shown cut. */
const rawInputChars = 20_000;

export class ApprovalBroker implements PermissionPrompter {
  private readonly pending = new Map<string, Pending>();
  private readonly changes = new EventHub<ApprovalChange>();

  constructor(private readonly now: () => number = Date.now) {}

  subscribe(listener: (change: ApprovalChange) => void): Unsubscribe {
    return this.changes.subscribe(listener);
  }

  openFor(sessionId: string): ApprovalView[] {
    return [...this.pending.values()].filter((p) => p.sessionId === sessionId).map((p) => p.view);
  }

  ask(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer> {
    const requestId = randomUUID();
    const view: ApprovalView = {
      requestId,
      title: question.title,
      kind: toolKindOf(question.kind),
      at: this.now(),
      ...(question.details ? { details: question.details } : {}),
      ...(question.rawInput !== undefined ? { rawInput: boundedRaw(question.rawInput) } : {}),
    };
    return new Promise<PermissionAnswer>((resolve) => {
      const settle = (answer: PermissionAnswer) => {
        if (!this.pending.delete(requestId)) return;
        signal.removeEventListener('abort', onAbort);
        this.changes.emit({ type: 'resolved', sessionId: question.sessionId, requestId, answer });
        resolve(answer);
      };
      const onAbort = () => settle('cancelled');
      this.pending.set(requestId, { sessionId: question.sessionId, view, settle });
      signal.addEventListener('abort', onAbort, { once: true });
      this.changes.emit({ type: 'requested', sessionId: question.sessionId, approval: view });
      if (signal.aborted) onAbort();
    });
  }

  /** Answers a request; false when it was already answered or cancelled. */
  answer(requestId: string, answer: Exclude<PermissionAnswer, 'cancelled'>): boolean {
    const pending = this.pending.get(requestId);
    if (!pending) return false;
    pending.settle(answer);
    return true;
  }
}

function boundedRaw(raw: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(raw);
  } catch {
    return '(the raw input cannot be shown: it is not plain JSON)';
  }
  if (text === undefined || text.length <= rawInputChars) return raw;
  return cutText(text, rawInputChars, 'not shown');
}
