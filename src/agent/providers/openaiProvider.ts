// OpenAI-compatible chat completions (OpenAI, OpenRouter, Ollama, LM Studio, vLLM), streamed with tool calls: the
// request as the `openai` SDK's client sends it, its stream and errors read through the SDK (openaiChat.ts).

import { APIConnectionError, APIError } from 'openai/core/error';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { OpenAiChat } from './openaiChat';
import { ProviderError, fromHttpStatus, isHardQuota } from './providerError';
import { causeChainText, parseRetryAfter, type FailureFacts } from './retryPolicy';
import type { ChatMessage, ModelEvent, ModelProvider, ModelRequest } from './types';

export interface OpenAiOptions {
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  maxTokens: number;
}

export class OpenAiProvider implements ModelProvider {
  readonly label: string;
  private readonly client: OpenAiChat;
  private readonly model: string;

  constructor(private readonly options: OpenAiOptions) {
    if (!options.model) {
      throw new ProviderError('PROVIDER_UNAVAILABLE', 'No model name is set for the OpenAI-compatible provider: set vigil.model.name.', 'vigil.model.name');
    }
    this.model = options.model;
    this.label = `openai-compatible ${options.model}`;
    // Local servers (Ollama, LM Studio) need no key; a placeholder is sent, as the SDK's client insisted on one.
    // No retries here: the agent loop retries and tells the person that a retry is waiting (modelCall.ts).
    this.client = new OpenAiChat({ apiKey: options.apiKey ?? 'not-needed', baseUrl: options.baseUrl });
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    let stream;
    try {
      stream = await this.client.create(
        {
          model: this.model,
          stream: true,
          // The last chunk then carries the call's token counts (the header's context usage).
          stream_options: { include_usage: true },
          max_tokens: this.options.maxTokens,
          messages: toOpenAiMessages(request.system, request.messages),
          tools: request.tools.length > 0 ? request.tools.map(toOpenAiTool) : undefined,
        },
        signal,
      );
    } catch (error) {
      throw mapError(error, signal);
    }
    const pending = new Map<number, { id: string; name: string; arguments: string }>();
    let finish: string | null = null;
    let usage: ModelEvent | undefined;
    try {
      for await (const chunk of stream) {
        usage = usageOf(chunk.usage) ?? usage;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = choice.delta as { content?: string | null; reasoning_content?: string | null; reasoning?: string | null; tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }> };
        const thought = delta.reasoning_content ?? delta.reasoning;
        if (thought) yield { kind: 'thought', text: thought };
        if (delta.content) yield { kind: 'text', text: delta.content };
        for (const part of delta.tool_calls ?? []) {
          const slot = pending.get(part.index) ?? { id: '', name: '', arguments: '' };
          if (part.id) slot.id = part.id;
          if (part.function?.name) slot.name += part.function.name;
          if (part.function?.arguments) slot.arguments += part.function.arguments;
          pending.set(part.index, slot);
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    } catch (error) {
      throw mapError(error, signal);
    }
    const calls = [...pending.entries()].sort((a, b) => a[0] - b[0]).map(([index, c]) => ({ ...c, id: c.id || `call_${index}` }));
    for (const call of calls) yield { kind: 'toolCall', call };
    if (usage) yield usage;
    if (finish === null) {
      // The server closed the stream without a finish reason: a dropped connection, not an answer.
      throw new ProviderError('PROVIDER_FAILED', 'The model stream ended before the model finished (connection dropped).', undefined, { facts: { connection: 'stream ended before the finish' } });
    }
    yield { kind: 'end', reason: calls.length > 0 ? 'tool_calls' : finish === 'length' ? 'max_tokens' : finish === 'content_filter' ? 'refusal' : 'stop' };
  }
}

/** `usage` of the last chunk; OpenRouter adds `cost` (in US dollars). Anything that is not a count is ignored. */
function usageOf(raw: unknown): ModelEvent | undefined {
  const u = (raw ?? undefined) as { prompt_tokens?: unknown; completion_tokens?: unknown; cost?: unknown } | undefined;
  if (!u || !isCount(u.prompt_tokens) || !isCount(u.completion_tokens)) return undefined;
  const cost = typeof u.cost === 'number' && Number.isFinite(u.cost) && u.cost >= 0 ? u.cost : undefined;
  return { kind: 'usage', inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens, ...(cost !== undefined ? { cost } : {}) };
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function toOpenAiTool(tool: ModelRequest['tools'][number]): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

function toOpenAiMessages(system: string, messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
  for (const m of messages) {
    switch (m.role) {
      case 'user':
        out.push(
          m.images?.length
            ? { role: 'user', content: [{ type: 'text', text: m.text }, ...m.images.map((i) => ({ type: 'image_url' as const, image_url: { url: `data:${i.mimeType};base64,${i.data}` } }))] }
            : { role: 'user', content: m.text },
        );
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          content: m.text || null,
          tool_calls: m.toolCalls?.length
            ? m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }))
            : undefined,
        });
        break;
      case 'tool':
        out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content });
        break;
    }
  }
  return out;
}

function mapError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return signal.reason instanceof Error ? signal.reason : new Error('aborted');
  if (error instanceof ProviderError) return error;
  if (error instanceof APIConnectionError) {
    return new ProviderError('PROVIDER_FAILED', `The connection to the OpenAI-compatible server dropped or could not be opened (${error.message}); check vigil.model.baseUrl and that the server is running.`, 'vigil.model.baseUrl', { cause: error, facts: { connection: causeChainText(error) } });
  }
  if (error instanceof APIError) {
    const detail = error.message || 'no detail';
    return fromHttpStatus(error.status, 'The OpenAI-compatible server', detail, error, factsOf(error));
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError('PROVIDER_FAILED', `The OpenAI-compatible server could not be reached or failed mid-stream: ${message}`, 'vigil.model.baseUrl', { cause: error, facts: { connection: causeChainText(error) } });
}

function factsOf(error: APIError): FailureFacts {
  const headers = error.headers;
  return {
    status: error.status,
    retryAfterMs: headers ? parseRetryAfter((name) => headers.get(name), Date.now()) : undefined,
    hardQuota: error.code === 'insufficient_quota' || error.type === 'insufficient_quota' || isHardQuota(error.error, error.message),
  };
}
