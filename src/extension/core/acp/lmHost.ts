// Host side of the `vscode-lm` provider: answers `_vigil/lm/*` from the LanguageModelBridge and streams chunks back.

import type { ClientContext } from '@agentclientprotocol/sdk';
import { vigilMethods, type LmChatParams, type LmChunkParams, type LmModelsResult } from '../../../shared/agentProtocol/vigilMethods';
import { errorMessage, isVigilError } from '../common/errors';
import type { Logger } from '../ports/logger';
import type { LanguageModelBridge } from './hostPorts';

export async function listModels(bridge: LanguageModelBridge | undefined): Promise<LmModelsResult> {
  if (!bridge) return { models: [] };
  return { models: await bridge.listModels() };
}

/**
 * Streams one chat as `_vigil/lm/chunk` notifications ending in `end` or `error`, then acknowledges the
 * request. Errors travel in the stream (not as the request's error) so they stay ordered after the chunks.
 */
export async function streamChat(bridge: LanguageModelBridge | undefined, params: LmChatParams, agent: ClientContext, signal: AbortSignal, log: Logger): Promise<Record<string, never>> {
  const send = (event: LmChunkParams['event']) => agent.notify(vigilMethods.lmChunk, { streamId: params.streamId, event });
  if (!bridge) {
    await send({ kind: 'error', code: 'PROVIDER_UNAVAILABLE', message: 'VS Code language models are not available in this host. Choose another provider in vigil.model.provider.' });
    return {};
  }
  try {
    for await (const event of bridge.chat({ model: params.model, system: params.system, messages: params.messages, tools: params.tools }, signal)) {
      if (signal.aborted) break;
      await send(event);
    }
    await send({ kind: 'end' });
  } catch (error) {
    if (signal.aborted) return {};
    const code = isVigilError(error, 'PROVIDER_AUTH') ? 'PROVIDER_AUTH' : isVigilError(error, 'PROVIDER_QUOTA') ? 'PROVIDER_QUOTA' : 'PROVIDER_FAILED';
    log.warn(`vscode-lm request failed: ${errorMessage(error)}`);
    await send({ kind: 'error', code, message: errorMessage(error) });
  }
  return {};
}
