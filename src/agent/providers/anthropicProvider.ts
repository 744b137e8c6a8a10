// Anthropic Messages API, streamed, with tool use and thinking deltas: the request as `@anthropic-ai/sdk`'s client
// sends it, its stream and errors read through the SDK (anthropicMessages.ts).

import { APIConnectionError, APIError } from '@anthropic-ai/sdk/core/error';
import type { ContentBlockParam, MessageParam, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { AnthropicMessages } from './anthropicMessages';
import { ProviderError, fromHttpStatus, isHardQuota } from './providerError';
import { causeChainText, parseRetryAfter, type FailureFacts } from './retryPolicy';
import type { ChatMessage, ModelEvent, ModelProvider, ModelRequest } from './types';
import { defaultAnthropicModel } from '../../shared/agentProtocol/providers';

export interface AnthropicOptions {
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  maxTokens: number;
}

export class AnthropicProvider implements ModelProvider {
  readonly label: string;
  private readonly client: AnthropicMessages;
  private readonly model: string;

  constructor(private readonly options: AnthropicOptions) {
    if (!options.apiKey) {
      throw new ProviderError('PROVIDER_AUTH', 'No Anthropic API key is set: run "Vigil: Set API Key" (stored in VS Code SecretStorage).', 'Vigil: Set API Key…');
    }
    this.model = options.model || defaultAnthropicModel;
    this.label = `anthropic ${this.model}`;
    // No retries here: the agent loop retries and tells the person that a retry is waiting (modelCall.ts).
    this.client = new AnthropicMessages({ apiKey: options.apiKey, baseUrl: options.baseUrl });
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const blocks = new Map<number, { id: string; name: string; json: string }>();
    let stopReason: string | null = null;
    let inputTokens = 0;
    let outputTokens = 0;
    try {
      const stream = await this.client.create(
        {
          model: this.model,
          max_tokens: this.options.maxTokens,
          system: request.system,
          stream: true,
          messages: toAnthropicMessages(request.messages),
          tools: request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as Tool.InputSchema })),
        },
        signal,
      );
      for await (const event of stream) {
        switch (event.type) {
          case 'message_start': {
            // Cached prompt tokens are counted apart from the rest; the context holds all of them.
            const u = event.message.usage;
            inputTokens = count(u.input_tokens) + count(u.cache_creation_input_tokens) + count(u.cache_read_input_tokens);
            outputTokens = count(u.output_tokens);
            break;
          }
          case 'content_block_start':
            if (event.content_block.type === 'tool_use') {
              blocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' });
            }
            break;
          case 'content_block_delta':
            if (event.delta.type === 'text_delta') yield { kind: 'text', text: event.delta.text };
            else if (event.delta.type === 'thinking_delta') yield { kind: 'thought', text: event.delta.thinking };
            else if (event.delta.type === 'input_json_delta') {
              const block = blocks.get(event.index);
              if (block) block.json += event.delta.partial_json;
            }
            break;
          case 'message_delta':
            stopReason = event.delta.stop_reason ?? stopReason;
            outputTokens = count(event.usage?.output_tokens) || outputTokens;
            break;
          default:
            break;
        }
      }
    } catch (error) {
      throw mapError(error, signal);
    }
    const calls = [...blocks.values()].map((b) => ({ id: b.id, name: b.name, arguments: b.json || '{}' }));
    for (const call of calls) yield { kind: 'toolCall', call };
    if (inputTokens > 0) yield { kind: 'usage', inputTokens, outputTokens };
    if (stopReason === null) throw new ProviderError('PROVIDER_FAILED', 'The Anthropic stream ended before the model finished (connection dropped).', undefined, { facts: { connection: 'stream ended before the finish' } });
    yield { kind: 'end', reason: calls.length > 0 ? 'tool_calls' : stopReason === 'max_tokens' ? 'max_tokens' : stopReason === 'refusal' ? 'refusal' : 'stop' };
  }
}

function toAnthropicMessages(messages: ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      out.push(
        m.images?.length
          ? { role: 'user', content: [...m.images.map((i) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: i.mimeType as 'image/png', data: i.data } })), { type: 'text', text: m.text }] }
          : { role: 'user', content: m.text },
      );
    } else if (m.role === 'assistant') {
      const content: ContentBlockParam[] = [];
      if (m.text) content.push({ type: 'text', text: m.text });
      for (const c of m.toolCalls ?? []) content.push({ type: 'tool_use', id: c.id, name: c.name, input: safeJson(c.arguments) });
      out.push({ role: 'assistant', content: content.length ? content : '' });
    } else {
      // Anthropic wants tool results as user content blocks; consecutive results share one message.
      const last = out[out.length - 1];
      const block: ToolResultBlockParam = { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content };
      if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(block);
      else out.push({ role: 'user', content: [block] });
    }
  }
  return out;
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Invalid arguments were already reported to the model as a tool error; keep the history well-formed.
    return {};
  }
}

function mapError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return signal.reason instanceof Error ? signal.reason : new Error('aborted');
  if (error instanceof ProviderError) return error;
  if (error instanceof APIConnectionError) {
    return new ProviderError('PROVIDER_FAILED', `The connection to Anthropic dropped or could not be opened (${error.message}).`, 'vigil.model.baseUrl', { cause: error, facts: { connection: causeChainText(error) } });
  }
  if (error instanceof APIError) return fromHttpStatus(error.status, 'Anthropic', error.message, error, factsOf(error));
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError('PROVIDER_FAILED', `Anthropic could not be reached or failed mid-stream: ${message}`, 'vigil.model.baseUrl', { cause: error, facts: { connection: causeChainText(error) } });
}

function factsOf(error: APIError): FailureFacts {
  const headers = error.headers;
  return {
    status: error.status,
    retryAfterMs: headers ? parseRetryAfter((name) => headers.get(name), Date.now()) : undefined,
    hardQuota: isHardQuota(error.error, error.message),
  };
}
