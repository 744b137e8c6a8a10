// The streamed chat-completions request of the OpenAI-compatible provider, sent as the `openai` SDK's client
// sends it, without the client. The client builds each request's headers with the global `Headers`, and in
// Node that getter loads the whole bundled fetch (undici): about 10 MB more resident in every agent after its
// first prompt, 100–250 ms on that prompt under --jitless (builtinAgentNodeFlags), and 1–2 ms before each
// later request (header validation run character by character in the interpreter). The SDK still does
// what is worth having from it: the stream's parsing (`Stream.fromSSEResponse`, its SSE decoder) and the
// errors' shape (`APIError.generate` and the connection errors), so the provider reads what the client gave.
// What the client did that is kept: the URL from the base URL (or OPENAI_BASE_URL, else api.openai.com), its
// headers (user agent, OPENAI_ORG_ID, OPENAI_PROJECT_ID, OPENAI_CUSTOM_HEADERS), the 10-minute wait for the
// response headers, and which error each failure becomes. Left out: its telemetry headers (x-stainless-*).

import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error';
import { Stream } from 'openai/core/streaming';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { VERSION } from 'openai/version';
import { nodeFetch, type NodeResponse } from './nodeFetch';

/** The client's default wait for the response headers (its `timeout`). */
const headersTimeoutMs = 10 * 60 * 1000;
const defaultBaseUrl = 'https://api.openai.com/v1';
const httpTokenHeaderName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export class OpenAiChat {
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;

  /** `baseUrl` undefined: OPENAI_BASE_URL, else OpenAI's API (as the client). Throws, as the client did, on a custom header name that is not an HTTP token. */
  constructor(options: { baseUrl?: string; apiKey: string }, env: NodeJS.ProcessEnv = process.env) {
    this.baseUrl = (options.baseUrl !== undefined ? options.baseUrl : readEnv(env, 'OPENAI_BASE_URL')) || defaultBaseUrl;
    const organization = readEnv(env, 'OPENAI_ORG_ID');
    const project = readEnv(env, 'OPENAI_PROJECT_ID');
    // In the client's order: its defaults, the key, the custom headers, the body's type (later ones win).
    this.headers = {
      accept: 'application/json',
      'user-agent': `OpenAI/JS ${VERSION}`,
      ...(organization ? { 'openai-organization': organization } : {}),
      ...(project ? { 'openai-project': project } : {}),
      authorization: `Bearer ${options.apiKey}`,
      ...customHeaders(readEnv(env, 'OPENAI_CUSTOM_HEADERS')),
      'content-type': 'application/json',
    };
  }

  /**
   * POSTs the request and resolves once the response headers arrived: a stream of chunks, or the error the client
   * would have thrown (APIUserAbortError when `signal` aborted, APIConnection(Timeout)Error, an APIError by status).
   */
  async create(body: ChatCompletionCreateParamsStreaming, signal: AbortSignal): Promise<Stream<ChatCompletionChunk>> {
    const url = new URL(this.baseUrl + (this.baseUrl.endsWith('/') ? 'chat/completions' : '/chat/completions')).toString();
    if (signal.aborted) throw new APIUserAbortError();
    // As the client: the turn's signal aborts this request's own controller, which also ends the stream later.
    const controller = new AbortController();
    signal.addEventListener('abort', () => controller.abort(), { once: true });
    const timer = setTimeout(() => controller.abort(), headersTimeoutMs);
    let response: NodeResponse;
    try {
      response = await nodeFetch(url, { method: 'POST', headers: this.headers, body: JSON.stringify(body), signal: controller.signal });
    } catch (caught) {
      if (signal.aborted) throw new APIUserAbortError();
      const error = caught instanceof Error ? caught : new Error(String(caught));
      const timedOut = error.name === 'AbortError' || /timed? ?out/i.test(String(error) + ('cause' in error ? String(error.cause) : ''));
      throw timedOut ? new APIConnectionTimeoutError() : new APIConnectionError({ cause: error });
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) {
      const text = await response.text().catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
      const json = safeJson(text);
      throw APIError.generate(response.status, json, json ? undefined : text, response.headers as unknown as Headers);
    }
    return Stream.fromSSEResponse<ChatCompletionChunk>(response as unknown as Response, controller);
  }
}

function readEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name]?.trim();
}

/** OPENAI_CUSTOM_HEADERS: one `name: value` per line. */
function customHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text?.split('\n') ?? []) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.substring(0, colon).trim();
    if (!httpTokenHeaderName.test(name)) throw new TypeError(`Header name must be a valid HTTP token ["${name}"]`);
    out[name.toLowerCase()] = line.substring(colon + 1).trim();
  }
  return out;
}

function safeJson(text: string): object | undefined {
  try {
    return JSON.parse(text) as object;
  } catch {
    return undefined;
  }
}
