// What the OpenAI-compatible and Anthropic requests share now that neither goes through its SDK's client
// (openaiChat.ts, anthropicMessages.ts): both clients sent a streamed POST the same way, waited 10 minutes
// for the response headers, turned each failure into the same kind of error, and read custom headers from
// an environment variable in the same format. The errors and the stream are still each SDK's own classes,
// passed in by the caller, so each provider reads what its client gave.

import { nodeFetch, type NodeResponse } from './nodeFetch';

/** Both clients' default wait for the response headers (their `timeout`). */
const headersTimeoutMs = 10 * 60 * 1000;
const httpTokenHeaderName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The parts of an SDK a request's outcome is made of: its error classes and its SSE stream. */
export interface SdkParts<S> {
  APIUserAbortError: new () => Error;
  APIConnectionError: new (options: { cause: Error }) => Error;
  APIConnectionTimeoutError: new () => Error;
  APIError: { generate(status: number, body: object | undefined, message: string | undefined, headers: Headers): Error };
  stream(response: Response, controller: AbortController): S;
}

/** An environment variable as the clients read it: trimmed (empty counts as unset wherever it is read). */
export function readEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name]?.trim();
}

/**
 * `<VENDOR>_CUSTOM_HEADERS`: one `name: value` per line, names lower-cased (a later line wins). Throws on a name
 * that is not an HTTP token, which the clients' `Headers` refused too.
 */
export function customHeaders(text: string | undefined): Record<string, string> {
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

/**
 * POSTs `body` and resolves once the response headers arrived: the SDK's stream of events, or the error its client
 * would have thrown (APIUserAbortError when `signal` aborted, APIConnection(Timeout)Error, an APIError by status).
 */
export async function postForStream<S>(url: string, headers: Record<string, string>, body: string, signal: AbortSignal, sdk: SdkParts<S>): Promise<S> {
  if (signal.aborted) throw new sdk.APIUserAbortError();
  // As the clients: the caller's signal aborts this request's own controller, which also ends the stream later.
  const controller = new AbortController();
  signal.addEventListener('abort', () => controller.abort(), { once: true });
  const timer = setTimeout(() => controller.abort(), headersTimeoutMs);
  let response: NodeResponse;
  try {
    response = await nodeFetch(url, { method: 'POST', headers, body, signal: controller.signal });
  } catch (caught) {
    if (signal.aborted) throw new sdk.APIUserAbortError();
    const error = caught instanceof Error ? caught : new Error(String(caught));
    const timedOut = error.name === 'AbortError' || /timed? ?out/i.test(String(error) + ('cause' in error ? String(error.cause) : ''));
    throw timedOut ? new sdk.APIConnectionTimeoutError() : new sdk.APIConnectionError({ cause: error });
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) {
    const text = await response.text().catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    const json = safeJson(text);
    throw sdk.APIError.generate(response.status, json, json ? undefined : text, response.headers as unknown as Headers);
  }
  return sdk.stream(response as unknown as Response, controller);
}

function safeJson(text: string): object | undefined {
  try {
    return JSON.parse(text) as object;
  } catch {
    return undefined;
  }
}
