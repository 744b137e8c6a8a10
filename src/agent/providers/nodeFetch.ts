// The agent's HTTP transport (model SDKs, MCP servers over HTTP/SSE): a `fetch` on node:http/https. The
// agent runs `--jitless` (builtinAgentNodeFlags, for its idle memory), which removes WebAssembly, and
// Node's own fetch (undici) parses HTTP with WebAssembly; it would also cost an idle agent ~10 MB once run.
// What the SDKs use of a fetch Response is here: status, ok, headers.get/entries, a web ReadableStream body
// (streamed as it arrives, with backpressure), text/json, and the abort signal at any point. Redirects
// are not followed (the model APIs do not redirect; a 3xx reaches the caller as it is).

import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, RequestOptions } from 'node:http';
import { ReadableStream } from 'node:stream/web';

type HeaderSource = Iterable<readonly [string, string]> | Record<string, string | readonly string[] | undefined> | undefined;

export interface NodeFetchInit {
  method?: string;
  headers?: HeaderSource | { forEach(cb: (value: string, name: string) => void): void };
  body?: string | Uint8Array | ArrayBuffer | null;
  signal?: AbortSignal | null;
}

/** The response headers, read as a fetch `Headers` is read (names case-insensitive, repeated values joined). */
export class ResponseHeaders implements Iterable<[string, string]> {
  private readonly map = new Map<string, string>();

  constructor(raw: IncomingHttpHeaders) {
    for (const [name, value] of Object.entries(raw)) {
      if (value === undefined) continue;
      this.map.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
    }
  }

  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }

  forEach(callback: (value: string, name: string, headers: ResponseHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    yield* [...this.map.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/** What the SDKs read of a fetch Response. */
export class NodeResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: ResponseHeaders;
  readonly redirected = false;
  readonly type = 'basic';
  readonly body: ReadableStream<Uint8Array>;
  private used = false;

  constructor(
    readonly url: string,
    message: IncomingMessage,
    signal: AbortSignal | undefined,
  ) {
    this.status = message.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status <= 299;
    this.statusText = message.statusMessage ?? '';
    this.headers = new ResponseHeaders(message.headers);
    this.body = bodyStream(message, signal);
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  private async bytes(): Promise<Uint8Array> {
    if (this.used) throw new TypeError('The response body was already read.');
    this.used = true;
    const chunks: Uint8Array[] = [];
    let length = 0;
    const reader = this.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.byteLength;
    }
    const out = new Uint8Array(length);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }
}

// Loaded on first use (https brings TLS, which a local model server never needs), then kept.
let http: Promise<typeof import('node:http')> | undefined;
let https: Promise<typeof import('node:https')> | undefined;

/**
 * `fetch(url, init)` over node:http/https for http(s) URLs. Failures before a response reject with a
 * TypeError whose `cause` is the socket's error (its code: ECONNREFUSED, ECONNRESET, ...), as Node's fetch
 * does; an abort rejects with the signal's reason; a connection dropped mid-body errors the body stream
 * with the socket's error (ECONNRESET).
 */
export async function nodeFetch(input: string | URL | { url: string }, init: NodeFetchInit = {}): Promise<NodeResponse> {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`fetch supports only http and https URLs, not ${url.protocol}`);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortReason(signal);
  const transport = await (url.protocol === 'https:' ? (https ??= import('node:https')) : (http ??= import('node:http')));
  const body = requestBody(init.body);
  const headers = requestHeaders(init.headers);
  if (body !== undefined && !Object.keys(headers).some((n) => n.toLowerCase() === 'content-length')) headers['content-length'] = String(body.byteLength);
  const options: RequestOptions = { method: (init.method ?? 'GET').toUpperCase(), headers };
  return new Promise<NodeResponse>((resolve, reject) => {
    let settled = false;
    const request: ClientRequest = transport.request(url, options, (message) => {
      if (settled) {
        message.destroy();
        return;
      }
      settled = true;
      // From here the body stream carries any abort; the request listener is no longer needed for the headers.
      signal?.removeEventListener('abort', onAbort);
      resolve(new NodeResponse(url.href, message, signal));
    });
    const onAbort = () => {
      const reason = abortReason(signal!);
      request.destroy(reason as Error);
      if (!settled) {
        settled = true;
        reject(reason);
      }
    };
    request.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      if (settled) return;
      settled = true;
      reject(new TypeError('fetch failed', { cause: error }));
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    request.end(body);
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function requestBody(body: NodeFetchInit['body']): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('This transport sends only string and byte request bodies.');
}

function requestHeaders(headers: NodeFetchInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (typeof (headers as { forEach?: unknown }).forEach === 'function' && !Array.isArray(headers)) {
    (headers as { forEach(cb: (value: string, name: string) => void): void }).forEach((value, name) => {
      out[name] = value;
    });
    return out;
  }
  if (Symbol.iterator in headers) {
    for (const [name, value] of headers as Iterable<readonly [string, string]>) out[name] = value;
    return out;
  }
  for (const [name, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (value !== undefined) out[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}

/** The message as a web stream: chunks as they arrive, paused while the reader is behind, cancel closes the socket. */
function bodyStream(message: IncomingMessage, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let finished = false;
  const stop = () => signal?.removeEventListener('abort', onAbort);
  const onAbort = () => message.destroy(abortReason(signal!) as Error);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (signal?.aborted) {
        message.destroy();
        controller.error(abortReason(signal));
        finished = true;
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      message.on('data', (chunk: Buffer) => {
        if (finished) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) message.pause();
      });
      message.on('end', () => {
        if (finished) return;
        finished = true;
        stop();
        controller.close();
      });
      message.on('error', (error) => {
        if (finished) return;
        finished = true;
        stop();
        controller.error(signal?.aborted ? abortReason(signal) : error);
      });
      message.on('close', () => {
        if (finished) return;
        // Closed before its end without an error event: the peer went away mid-body.
        finished = true;
        stop();
        controller.error(signal?.aborted ? abortReason(signal) : Object.assign(new Error('The connection closed before the response ended.'), { code: 'ECONNRESET' }));
      });
    },
    pull() {
      message.resume();
    },
    cancel() {
      finished = true;
      stop();
      message.destroy();
    },
  });
}
