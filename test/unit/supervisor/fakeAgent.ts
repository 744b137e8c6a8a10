// A scripted agent handle for supervisor tests: the test decides when it emits, answers, cancels or dies.

import type { AgentEvent, AgentHandle, AgentHandleProvider, PromptOutcome, PromptRequest } from '../../../src/extension/core/ports/agentHandle';

interface Pending {
  request: PromptRequest;
  resolve(outcome: PromptOutcome): void;
  reject(error: unknown): void;
}

export class FakeAgent implements AgentHandleProvider, AgentHandle {
  readonly calls: string[] = [];
  current: Pending | undefined;
  prompts = 0;
  /** `cooperate`: cancel makes the prompt return `cancelled`; `ignore`: cancel does nothing. */
  onCancel: 'cooperate' | 'ignore' = 'cooperate';
  getError: Error | undefined;

  async get(): Promise<AgentHandle> {
    if (this.getError) throw this.getError;
    return this;
  }

  prompt(request: PromptRequest): Promise<PromptOutcome> {
    this.calls.push('prompt');
    this.prompts += 1;
    return new Promise<PromptOutcome>((resolve, reject) => {
      this.current = { request, resolve, reject };
    });
  }

  /** One activity event from the agent (defaults: waiting on the model). */
  emit(event: Partial<AgentEvent> = {}): void {
    if (!this.current) throw new Error('no prompt in flight');
    this.current.request.onEvent({ description: 'model: streaming', waitingOn: { kind: 'model' }, ...event });
  }

  finish(stopReason: PromptOutcome['stopReason'] = 'end_turn'): void {
    const pending = this.take();
    pending.resolve({ stopReason });
  }

  fail(error: unknown): void {
    this.take().reject(error);
  }

  async cancel(): Promise<void> {
    this.calls.push('cancel');
    if (this.onCancel === 'cooperate' && this.current) this.finish('cancelled');
  }

  async kill(): Promise<void> {
    this.calls.push('kill');
    if (this.current) this.fail(new Error('agent process killed'));
  }

  private take(): Pending {
    const pending = this.current;
    if (!pending) throw new Error('no prompt in flight');
    this.current = undefined;
    return pending;
  }
}
