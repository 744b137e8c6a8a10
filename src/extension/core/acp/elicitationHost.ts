// Serves an agent's `elicitation/create` (form and URL) and `elicitation/complete`: the request is
// checked and bounded, put to the person through the ElicitationPrompter port, and answered. While
// one is open the turn waits on the person (the watchdog is suspended, as for an approval); an abort
// or cancel of the turn answers every open one `cancel`.

import type { CreateElicitationRequest, CreateElicitationResponse } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { checkElicitationUrl, clip, elicitationLimits, normalizeSchema, validateValues, type ElicitationValues } from '../../../shared/elicitationForm';
import type { Logger } from '../ports/logger';
import { untilAborted } from '../../../shared/untilAborted';

export type ElicitationQuestion =
  | { sessionId: string; mode: 'form'; message: string; schema: unknown }
  | { sessionId: string; mode: 'url'; message: string; url: string; host: string };

export type ElicitationAnswer = { action: 'accept'; content?: ElicitationValues } | { action: 'decline' } | { action: 'cancel' };

export interface ElicitationPrompter {
  /** Must settle (with `cancel`) soon after `signal` aborts, and take the form away. */
  ask(question: ElicitationQuestion, signal: AbortSignal): Promise<ElicitationAnswer>;
}

/** Brackets the time the person is asked, so the turn's watchdog knows it waits on them. */
export interface ElicitationHooks {
  opened(title: string): void;
  closed(title: string, answer: string): void;
}

const invalidParams = -32602;

export class ElicitationHost {
  private readonly open = new Set<AbortController>();
  /** URL elicitations waiting for the agent's `elicitation/complete`, by elicitation id. */
  private readonly awaitingCompletion = new Map<string, () => void>();

  constructor(
    private readonly vigilSessionId: string,
    private readonly prompter: ElicitationPrompter,
    private readonly log: Logger,
  ) {}

  async create(params: CreateElicitationRequest, hooks: ElicitationHooks | undefined, requestSignal: AbortSignal): Promise<CreateElicitationResponse> {
    const message = clip(typeof params.message === 'string' ? params.message : '', elicitationLimits.messageChars);
    const question = this.question(params, message);
    const title = `${question.mode === 'url' ? `open ${question.host}` : 'answer a form'}: ${clip(message, 120)}`;
    const controller = new AbortController();
    const signal = AbortSignal.any([controller.signal, requestSignal]);
    this.open.add(controller);
    let completed = false;
    const id = question.mode === 'url' ? (params as { elicitationId?: unknown }).elicitationId : undefined;
    if (typeof id === 'string') {
      this.awaitingCompletion.set(id, () => {
        completed = true;
        controller.abort();
      });
    }
    hooks?.opened(title);
    let answer: ElicitationAnswer = { action: 'cancel' };
    try {
      answer = await untilAborted(this.prompter.ask(question, signal), signal, (): ElicitationAnswer => ({ action: 'cancel' }));
      // A URL flow ends when the agent says it completed, not when a button was clicked.
      if (completed) answer = { action: 'accept' };
      return this.checked(question, answer);
    } finally {
      this.open.delete(controller);
      if (typeof id === 'string') this.awaitingCompletion.delete(id);
      hooks?.closed(title, answer.action);
    }
  }

  /** `elicitation/complete`: the out-of-band flow of a URL elicitation finished. */
  complete(elicitationId: string): void {
    const done = this.awaitingCompletion.get(elicitationId);
    if (done) done();
    else this.log.debug(`elicitation/complete for an unknown or finished elicitation ${clip(elicitationId, 80)}`);
  }

  get openCount(): number {
    return this.open.size;
  }

  /** Abort or cancel of the turn: every open elicitation is answered `cancel`. */
  cancelAll(): void {
    for (const controller of [...this.open]) controller.abort();
  }

  private question(params: CreateElicitationRequest, message: string): ElicitationQuestion {
    const mode = (params as { mode?: unknown }).mode;
    if (mode === 'form') {
      const schema = (params as { requestedSchema?: unknown }).requestedSchema;
      const form = normalizeSchema(schema);
      if (!form.ok) throw new RequestError(invalidParams, `Vigil cannot show this form: ${form.reason}.`);
      return { sessionId: this.vigilSessionId, mode: 'form', message, schema };
    }
    if (mode === 'url') {
      const url = checkElicitationUrl((params as { url?: unknown }).url);
      if (!url.ok) throw new RequestError(invalidParams, `Vigil does not open this link: ${url.reason}.`);
      if (typeof (params as { elicitationId?: unknown }).elicitationId !== 'string') throw new RequestError(invalidParams, 'A URL elicitation needs an "elicitationId".');
      return { sessionId: this.vigilSessionId, mode: 'url', message, url: url.url, host: url.host };
    }
    throw new RequestError(invalidParams, `Vigil does not support the elicitation mode "${clip(String(mode), 40)}".`);
  }

  /** The host's own check of an accepted form, whatever the view did: nothing unchecked reaches the agent. */
  private checked(question: ElicitationQuestion, answer: ElicitationAnswer): CreateElicitationResponse {
    if (answer.action !== 'accept') return { action: answer.action };
    if (question.mode === 'url') return { action: 'accept' };
    const form = normalizeSchema(question.schema);
    const content = answer.content ?? {};
    const errors = form.ok ? validateValues(form.form, content) : { form: 'the form could not be read' };
    if (Object.keys(errors).length > 0) {
      this.log.warn(`an elicitation answer failed the host's check (${Object.keys(errors).slice(0, 5).join(', ')}); answered "cancel"`);
      return { action: 'cancel' };
    }
    return { action: 'accept', content };
  }
}
