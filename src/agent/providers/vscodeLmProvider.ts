// VS Code's Language Model API, proxied by the extension host through `_vigil/lm/*` (the agent process has no `vscode`).

import type { HostChannel } from '../hostChannel';
import { vigilMethods, type LmChunkParams, type LmModelsResult } from '../../shared/agentProtocol/vigilMethods';
import { ProviderError } from './providerError';
import type { ModelEvent, ModelProvider, ModelRequest } from './types';

let nextStreamId = 1;

export class VscodeLmProvider implements ModelProvider {
  readonly label: string;

  constructor(
    private readonly host: HostChannel,
    private readonly model?: string,
  ) {
    this.label = `vscode-lm ${model ?? '(first available)'}`;
  }

  /** Asks the host which models exist; an empty list is a clear error, not a silent fallback. */
  static async available(host: HostChannel): Promise<LmModelsResult['models']> {
    if (!host.serves(vigilMethods.lmModels) || !host.serves(vigilMethods.lmChat)) {
      throw new ProviderError(
        'PROVIDER_UNAVAILABLE',
        'This ACP client does not offer VS Code language models (only Vigil does). Choose another provider in vigil.model.provider.',
        'vigil.model.provider',
      );
    }
    const result = await host.request<LmModelsResult>(vigilMethods.lmModels, {});
    return result.models;
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const streamId = `lm-${process.pid}-${nextStreamId++}`;
    const queue: Array<LmChunkParams['event']> = [];
    let wake: (() => void) | undefined;
    const unsubscribe = this.host.onLmChunk(streamId, (event) => {
      queue.push(event);
      wake?.();
    });
    let requestError: unknown;
    const ack = this.host
      .request(vigilMethods.lmChat, { streamId, model: this.model, system: request.system, messages: request.messages, tools: request.tools }, signal)
      .catch((error: unknown) => {
        requestError = error;
        wake?.();
      });
    let sawToolCall = false;
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        if (queue.length === 0 && requestError === undefined) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            if (signal.aborted) resolve();
          });
          wake = undefined;
        }
        if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
        const event = queue.shift();
        if (!event) {
          const message = requestError instanceof Error ? requestError.message : String(requestError);
          throw new ProviderError('PROVIDER_UNAVAILABLE', `The VS Code language model request failed: ${message}`, 'vigil.model.provider', { cause: requestError });
        }
        switch (event.kind) {
          case 'text':
            yield event;
            break;
          case 'toolCall':
            sawToolCall = true;
            yield event;
            break;
          case 'end':
            yield { kind: 'end', reason: sawToolCall ? 'tool_calls' : 'stop' };
            return;
          case 'error':
            throw new ProviderError(event.code, event.message, event.code === 'PROVIDER_UNAVAILABLE' ? 'vigil.model.provider' : undefined);
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      unsubscribe();
      void ack;
    }
  }
}
