// The streamed chat-completions request of the OpenAI-compatible provider, sent as the `openai` SDK's client
// sends it, without the client. The client builds each request's headers with the global `Headers`, and in
// Node that getter loads the whole bundled fetch (undici): about 10 MB more resident in every agent after its
// first prompt, 100–250 ms on that prompt under --jitless (builtinAgentNodeFlags), and 1–2 ms before each
// later request (header validation run character by character in the interpreter). The SDK still does
// what is worth having from it: the stream's parsing (`Stream.fromSSEResponse`, its SSE decoder) and the
// errors' shape (`APIError.generate` and the connection errors), so the provider reads what the client gave.
// What the client did that is kept: the URL from the base URL (or OPENAI_BASE_URL, else api.openai.com), its
// headers (user agent, OPENAI_ORG_ID, OPENAI_PROJECT_ID, OPENAI_CUSTOM_HEADERS), the 10-minute wait for the
// response headers, and which error each failure becomes (the last two shared with the Anthropic request,
// sdkRequest.ts). Left out: its telemetry headers (x-stainless-*).

import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error';
import { Stream } from 'openai/core/streaming';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { VERSION } from 'openai/version';
import { customHeaders, postForStream, readEnv, type SdkParts } from './sdkRequest';

const defaultBaseUrl = 'https://api.openai.com/v1';
const sdk: SdkParts<Stream<ChatCompletionChunk>> = {
  APIUserAbortError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  stream: (response, controller) => Stream.fromSSEResponse<ChatCompletionChunk>(response, controller),
};

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
    return postForStream(url, this.headers, JSON.stringify(body), signal, sdk);
  }
}
