// The streamed Messages request of the Anthropic provider, sent as the `@anthropic-ai/sdk` client sends it,
// without the client. The client builds each request's headers with the global `Headers`, and in Node that getter
// loads the whole bundled fetch (undici): under --jitless (builtinAgentNodeFlags) that load fails on the first
// prompt (an unhandled rejection, "WebAssembly is not defined", in the agent's log), and what it loaded stays
// resident; the client's module also evaluates some 330 of the SDK's modules, where this one needs a dozen. The
// SDK still does what is worth having from it: the stream's parsing (`Stream.fromSSEResponse`, its SSE decoder)
// and the errors (`APIError.generate` and the connection errors), so the provider reads what the client gave.
// What the client did that is kept: the URL from the base URL (or ANTHROPIC_BASE_URL, else api.anthropic.com) and
// /v1/messages, its headers (the key as `authorization: Bearer`, which is how this SDK version sends it;
// anthropic-version, user agent, ANTHROPIC_CUSTOM_HEADERS), and, shared with the OpenAI-compatible request
// (sdkRequest.ts), the 10-minute wait for the response headers and which error each failure becomes. Left out:
// its telemetry headers (x-stainless-*), its request log (ANTHROPIC_LOG) and OpenTelemetry spans; the subclasses
// it picks for some errors by `error.details.error_code` (each extends the class of its status, which is all the
// provider reads, and their table loads every resource module); and the warning it prints for a retired model
// name (the SDK keeps that table internal).

import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk/core/error';
import { Stream } from '@anthropic-ai/sdk/core/streaming';
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { VERSION } from '@anthropic-ai/sdk/version';
import { anthropicVersion } from './anthropicVersion';
import { customHeaders, postForStream, readEnv, type SdkParts } from './sdkRequest';

const defaultBaseUrl = 'https://api.anthropic.com';
export { anthropicVersion };
const sdk: SdkParts<Stream<RawMessageStreamEvent>> = {
  APIUserAbortError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  stream: (response, controller) => Stream.fromSSEResponse<RawMessageStreamEvent>(response, controller),
};

/** What the provider sends: the client sent `user_profile_id` and `workspace_id` as headers, and the provider sets neither. */
export type AnthropicMessagesBody = Omit<MessageCreateParamsStreaming, 'user_profile_id' | 'workspace_id'>;

export class AnthropicMessages {
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;

  /** `baseUrl` undefined: ANTHROPIC_BASE_URL, else Anthropic's API (as the client). Throws on a custom header name that is not an HTTP token (the client's request did). */
  constructor(options: { baseUrl?: string; apiKey: string }, env: NodeJS.ProcessEnv = process.env) {
    this.baseUrl = (options.baseUrl !== undefined ? options.baseUrl : readEnv(env, 'ANTHROPIC_BASE_URL')) || defaultBaseUrl;
    // In the client's order: its defaults, the key, the custom headers, the body's type (later ones win).
    this.headers = {
      accept: 'application/json',
      'user-agent': `Anthropic/JS ${VERSION}`,
      'anthropic-version': anthropicVersion,
      authorization: `Bearer ${options.apiKey}`,
      ...customHeaders(readEnv(env, 'ANTHROPIC_CUSTOM_HEADERS')),
      'content-type': 'application/json',
    };
  }

  /**
   * POSTs the request and resolves once the response headers arrived: a stream of events, or the error the client
   * would have thrown (APIUserAbortError when `signal` aborted, APIConnection(Timeout)Error, an APIError by status).
   */
  async create(body: AnthropicMessagesBody, signal: AbortSignal): Promise<Stream<RawMessageStreamEvent>> {
    return postForStream(this.url, this.headers, JSON.stringify(body), signal, sdk);
  }

  /** Where the request goes; as the client, an invalid base URL fails the request (not the provider's start). */
  get url(): string {
    return new URL(this.baseUrl + (this.baseUrl.endsWith('/') ? 'v1/messages' : '/v1/messages')).toString();
  }
}
