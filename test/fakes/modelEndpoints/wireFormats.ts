// The four model wire formats the real agents speak, encoded as the real APIs send them: Anthropic
// Messages SSE, OpenAI Responses SSE, OpenAI Chat Completions SSE and Gemini streamGenerateContent SSE.

import type { WireApi } from './script';

/** Where a format writes its server-sent events. */
export interface EventSink {
  /** One SSE frame; `event` is omitted for formats that send only `data:` lines. */
  send(event: string | undefined, data: unknown): void;
}

/** Ids for one response, unique per endpoint so an agent never sees the same call id twice. */
export interface Ids {
  response: string;
  message: string;
  call: string;
}

export interface WireFormat {
  api: WireApi;
  /** Whether this request asks for a stream (else it gets one JSON body). */
  streams(body: Record<string, unknown>): boolean;
  /** A main request is the agent's own turn (it offers tools); others are titles, classifiers, quota checks. */
  isMain(body: Record<string, unknown>): boolean;
  /** The first event(s) a real server sends at once; a hang sends these and then nothing. */
  open(sink: EventSink, model: string, ids: Ids): void;
  /** The rest of a streamed reply: optional text, an optional tool call, then the end of the response. */
  finish(sink: EventSink, model: string, ids: Ids, text: string, tool?: { name: string; args: Record<string, unknown> }): void;
  /** The same reply as one JSON body, for non-streaming requests. */
  whole(model: string, ids: Ids, text: string, tool?: { name: string; args: Record<string, unknown> }): unknown;
  errorBody(status: number, message: string): unknown;
}

const hasTools = (body: Record<string, unknown>): boolean => Array.isArray(body.tools) && body.tools.length > 0;
const now = (): number => Math.floor(Date.now() / 1000);
const usage = { input_tokens: 12, output_tokens: 6 };

export const anthropic: WireFormat = {
  api: 'anthropic',
  streams: (b) => b.stream === true,
  isMain: hasTools,
  open(sink, model, ids) {
    sink.send('message_start', { type: 'message_start', message: { id: ids.message, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } } });
  },
  finish(sink, _model, ids, text, tool) {
    let index = 0;
    if (text || !tool) {
      sink.send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      sink.send('ping', { type: 'ping' });
      sink.send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
      sink.send('content_block_stop', { type: 'content_block_stop', index });
      index += 1;
    }
    if (tool) {
      sink.send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: ids.call, name: tool.name, input: {} } });
      sink.send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(tool.args) } });
      sink.send('content_block_stop', { type: 'content_block_stop', index });
    }
    sink.send('message_delta', { type: 'message_delta', delta: { stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    sink.send('message_stop', { type: 'message_stop' });
  },
  whole(model, ids, text, tool) {
    const content: unknown[] = [];
    if (text || !tool) content.push({ type: 'text', text });
    if (tool) content.push({ type: 'tool_use', id: ids.call, name: tool.name, input: tool.args });
    return { id: ids.message, type: 'message', role: 'assistant', model, content, stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null, usage };
  },
  errorBody: (status, message) => ({ type: 'error', error: { type: status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error', message } }),
};

function responseObject(model: string, ids: Ids, status: string, output: unknown[]): Record<string, unknown> {
  return { id: ids.response, object: 'response', created_at: now(), status, model, output, usage: status === 'completed' ? { input_tokens: usage.input_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: usage.output_tokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usage.input_tokens + usage.output_tokens } : null };
}

function responsesOutput(ids: Ids, text: string, tool?: { name: string; args: Record<string, unknown> }): unknown[] {
  const out: unknown[] = [];
  if (text || !tool) out.push({ id: ids.message, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
  if (tool) out.push({ id: `fc_${ids.call}`, type: 'function_call', status: 'completed', call_id: ids.call, name: tool.name, arguments: JSON.stringify(tool.args) });
  return out;
}

export const responses: WireFormat = {
  api: 'responses',
  streams: (b) => b.stream === true,
  isMain: hasTools,
  open(sink, model, ids) {
    sink.send('response.created', { type: 'response.created', sequence_number: 0, response: responseObject(model, ids, 'in_progress', []) });
  },
  finish(sink, model, ids, text, tool) {
    let seq = 1;
    const send = (type: string, data: Record<string, unknown>) => sink.send(type, { type, sequence_number: seq++, ...data });
    send('response.in_progress', { response: responseObject(model, ids, 'in_progress', []) });
    const output = responsesOutput(ids, text, tool);
    output.forEach((item, outputIndex) => {
      const it = item as { type: string; id: string };
      if (it.type === 'message') {
        send('response.output_item.added', { output_index: outputIndex, item: { ...it, status: 'in_progress', content: [] } });
        send('response.content_part.added', { item_id: it.id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
        send('response.output_text.delta', { item_id: it.id, output_index: outputIndex, content_index: 0, delta: text });
        send('response.output_text.done', { item_id: it.id, output_index: outputIndex, content_index: 0, text });
        send('response.content_part.done', { item_id: it.id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
      } else {
        send('response.output_item.added', { output_index: outputIndex, item: { ...it, status: 'in_progress', arguments: '' } });
        const args = (item as { arguments: string }).arguments;
        send('response.function_call_arguments.delta', { item_id: it.id, output_index: outputIndex, delta: args });
        send('response.function_call_arguments.done', { item_id: it.id, output_index: outputIndex, arguments: args });
      }
      send('response.output_item.done', { output_index: outputIndex, item });
    });
    send('response.completed', { response: responseObject(model, ids, 'completed', output) });
  },
  whole: (model, ids, text, tool) => responseObject(model, ids, 'completed', responsesOutput(ids, text, tool)),
  errorBody: (status, message) => ({ error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', param: null, code: status === 401 ? 'invalid_api_key' : null } }),
};

export const chat: WireFormat = {
  api: 'chat',
  streams: (b) => b.stream === true,
  isMain: hasTools,
  open(sink, model, ids) {
    sink.send(undefined, { id: ids.response, object: 'chat.completion.chunk', created: now(), model, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  },
  finish(sink, model, ids, text, tool) {
    const chunk = (delta: unknown, finish: string | null) => sink.send(undefined, { id: ids.response, object: 'chat.completion.chunk', created: now(), model, choices: [{ index: 0, delta, finish_reason: finish }] });
    if (text) chunk({ content: text }, null);
    if (tool) chunk({ tool_calls: [{ index: 0, id: ids.call, type: 'function', function: { name: tool.name, arguments: JSON.stringify(tool.args) } }] }, null);
    chunk({}, tool ? 'tool_calls' : 'stop');
    sink.send(undefined, { id: ids.response, object: 'chat.completion.chunk', created: now(), model, choices: [], usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens } });
    sink.send(undefined, '[DONE]');
  },
  whole(model, ids, text, tool) {
    const message = { role: 'assistant', content: text || null, ...(tool ? { tool_calls: [{ id: ids.call, type: 'function', function: { name: tool.name, arguments: JSON.stringify(tool.args) } }] } : {}) };
    return { id: ids.response, object: 'chat.completion', created: now(), model, choices: [{ index: 0, message, finish_reason: tool ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens } };
  },
  errorBody: (status, message) => responses.errorBody(status, message),
};

function geminiCandidate(text: string, tool?: { name: string; args: Record<string, unknown> }): unknown {
  const parts: unknown[] = [];
  if (text || !tool) parts.push({ text });
  if (tool) parts.push({ functionCall: { name: tool.name, args: tool.args } });
  return { content: { role: 'model', parts }, finishReason: 'STOP', index: 0 };
}
const geminiUsage = { promptTokenCount: usage.input_tokens, candidatesTokenCount: usage.output_tokens, totalTokenCount: usage.input_tokens + usage.output_tokens };

export const gemini: WireFormat = {
  api: 'gemini',
  // The method in the path says it: `:streamGenerateContent` streams, `:generateContent` does not.
  streams: () => true,
  isMain: hasTools,
  open(sink, model) {
    // Gemini's first chunk already carries content; an empty text part is what it sends before thinking.
    sink.send(undefined, { candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, index: 0 }], modelVersion: model });
  },
  finish(sink, model, ids, text, tool) {
    sink.send(undefined, { candidates: [geminiCandidate(text, tool)], usageMetadata: geminiUsage, modelVersion: model, responseId: ids.response });
  },
  whole: (model, ids, text, tool) => ({ candidates: [geminiCandidate(text, tool)], usageMetadata: geminiUsage, modelVersion: model, responseId: ids.response }),
  errorBody: (status, message) => ({ error: { code: status, message, status: status === 401 || status === 403 ? 'PERMISSION_DENIED' : status === 400 ? 'INVALID_ARGUMENT' : 'INTERNAL' } }),
};
