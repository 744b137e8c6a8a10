// Open elicitations of the agents, answered from the session view: the first answer wins, a form
// answer that fails the host's check is refused with its reasons (the form stays open), and an abort
// answers `cancel`. URL elicitations keep their URL here; the view only asks for it to be opened.

import { randomUUID } from 'node:crypto';
import { normalizeSchema, validateValues, type ElicitationValues } from '../../shared/elicitationForm';
import type { ElicitationView } from '../../shared/sessionView';
import type { ElicitationAnswer, ElicitationPrompter, ElicitationQuestion } from '../core/acp/elicitationHost';
import { EventHub, type Unsubscribe } from '../core/common/events';

export type ElicitationChange =
  | { type: 'requested'; sessionId: string; elicitation: ElicitationView }
  | { type: 'resolved'; sessionId: string; requestId: string; action: ElicitationAnswer['action'] };

interface Pending {
  sessionId: string;
  view: ElicitationView;
  settle(answer: ElicitationAnswer): void;
}

export class ElicitationBroker implements ElicitationPrompter {
  private readonly pending = new Map<string, Pending>();
  private readonly changes = new EventHub<ElicitationChange>();

  constructor(private readonly now: () => number = Date.now) {}

  subscribe(listener: (change: ElicitationChange) => void): Unsubscribe {
    return this.changes.subscribe(listener);
  }

  openFor(sessionId: string): ElicitationView[] {
    return [...this.pending.values()].filter((p) => p.sessionId === sessionId).map((p) => p.view);
  }

  ask(question: ElicitationQuestion, signal: AbortSignal): Promise<ElicitationAnswer> {
    const requestId = randomUUID();
    const at = this.now();
    const view: ElicitationView =
      question.mode === 'form'
        ? { requestId, mode: 'form', message: question.message, schema: question.schema, at }
        : { requestId, mode: 'url', message: question.message, url: question.url, host: question.host, at };
    return new Promise<ElicitationAnswer>((resolve) => {
      const settle = (answer: ElicitationAnswer) => {
        if (!this.pending.delete(requestId)) return;
        signal.removeEventListener('abort', onAbort);
        this.changes.emit({ type: 'resolved', sessionId: question.sessionId, requestId, action: answer.action });
        resolve(answer);
      };
      const onAbort = () => settle({ action: 'cancel' });
      this.pending.set(requestId, { sessionId: question.sessionId, view, settle });
      signal.addEventListener('abort', onAbort, { once: true });
      this.changes.emit({ type: 'requested', sessionId: question.sessionId, elicitation: view });
      if (signal.aborted) onAbort();
    });
  }

  /**
   * Answers an open elicitation. `false`: it was already answered or cancelled. A string: the answer
   * was refused (the form's own rules), and the elicitation stays open.
   */
  answer(requestId: string, action: ElicitationAnswer['action'], content?: ElicitationValues): boolean | string {
    const pending = this.pending.get(requestId);
    if (!pending) return false;
    const checked = checkAnswer(pending.view, action, content);
    if (typeof checked === 'string') return checked;
    pending.settle(checked);
    return true;
  }

  /** The URL of an open URL elicitation (to be opened by the host), if any. */
  urlOf(requestId: string): string | undefined {
    const view = this.pending.get(requestId)?.view;
    return view?.mode === 'url' ? view.url : undefined;
  }
}

/**
 * A person's answer to an open elicitation as it goes to the agent, or why it is refused (the form stays open):
 * a form's values are checked against its own rules, and a link is accepted by the agent, never by a click.
 */
export function checkAnswer(view: ElicitationView, action: ElicitationAnswer['action'], content?: ElicitationValues): ElicitationAnswer | string {
  if (action !== 'accept') return { action };
  if (view.mode === 'url') return 'A link is accepted by the agent once you finished there; open it, or cancel.';
  const form = normalizeSchema(view.schema);
  if (!form.ok) return `The form cannot be answered: ${form.reason}.`;
  const errors = validateValues(form.form, content ?? {});
  const wrong = Object.entries(errors);
  if (wrong.length > 0) return `Check the form: ${wrong.slice(0, 5).map(([name, why]) => `${name}: ${why}`).join('; ')}`;
  return { action: 'accept', content: content ?? {} };
}
