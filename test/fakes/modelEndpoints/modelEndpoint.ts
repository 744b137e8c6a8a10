// A local model server on 127.0.0.1 (ephemeral port) that real agents talk to instead of a vendor's API:
// one queue of scripted replies served in whichever wire format the agent asks in, every request recorded.

import { EventEmitter } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ModelReply, type RecordedRequest, type WireApi } from './script';
import { anthropic, chat, type EventSink, gemini, type Ids, responses, type WireFormat } from './wireFormats';

/** Answer to main requests when the test scripted nothing more: a short text, so the agent's turn ends. */
export const unscriptedText = 'Nothing more was scripted for this turn.';

interface Hanging {
  res: http.ServerResponse;
  format: WireFormat;
  model: string;
  ids: Ids;
  sink: EventSink;
}

export class ModelEndpoint {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ModelReply[] = [];
  private readonly hanging = new Set<Hanging>();
  private readonly changes = new EventEmitter();
  private counter = 0;

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
    private readonly apiKey: string | undefined,
    private readonly models: ReadonlyArray<Record<string, unknown>> | undefined,
  ) {
    this.changes.setMaxListeners(0);
  }

  /**
   * With `apiKey`, model requests that do not carry it (header or `?key=`) are refused with 401, as the real APIs do.
   * `models`: what `GET …/models` lists (OpenAI's shape) instead of the one `test-model`.
   */
  static async start(o: { apiKey?: string; models?: ReadonlyArray<Record<string, unknown>> } = {}): Promise<ModelEndpoint> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const endpoint = new ModelEndpoint(server, (server.address() as AddressInfo).port, o.apiKey, o.models);
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => void endpoint.handle(req, res));
    return endpoint;
  }

  /** `http://127.0.0.1:PORT`, without a trailing slash or a version path. */
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Appends replies for the next main requests, in order. */
  script(...replies: ModelReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** How many scripted replies are still waiting for a request. */
  get pending(): number {
    return this.queue.length;
  }

  /** The agent-turn requests (those that consumed or would have consumed a scripted reply). */
  mainRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.main);
  }

  /** Streams still held open by a `hang` reply. */
  get hangingCount(): number {
    return this.hanging.size;
  }

  /**
   * Ends every held stream: with `text`, the response completes as if the model had answered it;
   * without, the connection is dropped mid-stream (as a crashed server would).
   */
  release(text?: string): void {
    for (const h of [...this.hanging]) {
      this.hanging.delete(h);
      if (text === undefined) h.res.destroy();
      else {
        h.format.finish(h.sink, h.model, h.ids, text);
        h.res.end();
      }
    }
    this.changed();
  }

  /** Resolves once `test` holds, checked whenever a request arrives, ends or its client goes away. */
  async waitFor(test: () => boolean, what: string, ms = 120_000): Promise<void> {
    if (test()) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!test()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`model endpoint: timed out waiting for ${what}; requests so far: ${this.describe()}`));
      }, ms);
      const cleanup = () => {
        clearTimeout(timer);
        this.changes.off('change', check);
      };
      this.changes.on('change', check);
    });
  }

  /** One line per request, for failure messages. */
  describe(): string {
    const t0 = this.requests[0]?.at ?? 0;
    return this.requests.map((r) => `#${r.seq} +${r.at - t0}ms ${r.method} ${r.url} ${r.main ? 'main' : 'side'} → ${r.answered}${r.closedAt !== undefined ? ` (client closed after ${r.closedAt - r.at}ms)` : ''}`).join('; ') || 'none';
  }

  async close(): Promise<void> {
    for (const h of this.hanging) h.res.destroy();
    this.hanging.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private changed(): void {
    this.changes.emit('change');
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw === '' ? undefined : raw;
    try {
      if (raw !== '') body = JSON.parse(raw);
    } catch {
      // Not JSON: recorded as text, answered as an unknown request below.
    }
    const url = req.url ?? '/';
    const pathname = new URL(url, this.origin).pathname;
    const record: RecordedRequest = { seq: this.requests.length, api: 'other', method: req.method ?? 'GET', url, headers: req.headers, body, main: false, answered: 'pending', at: Date.now() };
    this.requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) {
        record.clientClosed = true;
        record.closedAt = Date.now();
        for (const h of this.hanging) if (h.res === res) this.hanging.delete(h);
        this.changed();
      }
    });
    const obj = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const route = this.route(record.method, pathname);
    record.api = route.api;
    if (this.apiKey !== undefined && route.api !== 'other' && !carriesKey(req, url, this.apiKey)) {
      record.answered = 'unauthorized';
      const format = { anthropic, responses, chat, gemini }[route.api];
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(format.errorBody(401, 'invalid api key (the local model endpoint expects the test key)')));
    } else route.answer(record, obj, res, pathname);
    this.changed();
  }

  private route(method: string, pathname: string): { api: WireApi; answer: (r: RecordedRequest, b: Record<string, unknown>, res: http.ServerResponse, pathname: string) => void } {
    const json = (res: http.ServerResponse, status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const gem = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(pathname);
    if (method === 'POST' && gem) {
      const [, model, verb] = gem;
      if (verb === 'countTokens') return { api: 'gemini', answer: (r, _b, res) => ((r.answered = 'tokens'), json(res, 200, { totalTokens: 12 })) };
      return { api: 'gemini', answer: (r, b, res) => this.respond(r, gemini, b, res, model, verb === 'streamGenerateContent') };
    }
    if (method === 'POST' && pathname.endsWith('/messages/count_tokens')) return { api: 'anthropic', answer: (r, _b, res) => ((r.answered = 'tokens'), json(res, 200, { input_tokens: 12 })) };
    if (method === 'POST' && pathname.endsWith('/messages')) return { api: 'anthropic', answer: (r, b, res) => this.respond(r, anthropic, b, res, String(b.model ?? 'claude'), anthropic.streams(b)) };
    if (method === 'POST' && pathname.endsWith('/responses')) return { api: 'responses', answer: (r, b, res) => this.respond(r, responses, b, res, String(b.model ?? 'gpt'), responses.streams(b)) };
    if (method === 'POST' && pathname.endsWith('/chat/completions')) return { api: 'chat', answer: (r, b, res) => this.respond(r, chat, b, res, String(b.model ?? 'gpt'), chat.streams(b)) };
    if (method === 'GET' && pathname.endsWith('/models')) {
      // Model lists: each API's own shape, naming whatever model the agent is configured with.
      return {
        api: pathname.includes('v1beta') ? 'gemini' : 'other',
        answer: (r, _b, res) => {
          r.answered = 'models';
          if (pathname.includes('v1beta')) json(res, 200, { models: [{ name: 'models/gemini-2.5-pro', supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'] }] });
          else if (this.models) json(res, 200, { object: 'list', data: this.models, has_more: false });
          else json(res, 200, { object: 'list', data: [{ id: 'test-model', object: 'model', type: 'model', display_name: 'Test model', created: 0, created_at: '2025-01-01T00:00:00Z', owned_by: 'vigil-tests' }], has_more: false });
        },
      };
    }
    if (method === 'GET' && pathname.endsWith('/responses')) {
      // Codex's built-in OpenAI provider tries a WebSocket first; refusing the upgrade sends it to HTTP.
      return { api: 'other', answer: (r, _b, res) => ((r.answered = 'websocket refused'), json(res, 426, { error: { message: 'WebSocket transport is not offered; use HTTP' } })) };
    }
    return { api: 'other', answer: (r, _b, res) => ((r.answered = 'not found'), json(res, 404, { error: { message: `the local model endpoint does not serve ${method} ${pathname}` } })) };
  }

  private respond(r: RecordedRequest, format: WireFormat, body: Record<string, unknown>, res: http.ServerResponse, model: string, stream: boolean): void {
    this.counter += 1;
    const ids: Ids = { response: `resp_${this.counter}`, message: `msg_${this.counter}`, call: `call_${this.counter}` };
    r.main = format.isMain(body);
    let reply: ModelReply | undefined = r.main ? this.queue.shift() : undefined;
    r.answered = reply?.kind ?? (r.main ? 'default' : 'side');
    if (!reply) reply = { kind: 'text', text: r.main ? unscriptedText : sideText(format, body) };
    if (reply.kind === 'error') {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(format.errorBody(reply.status, reply.message)));
      return;
    }
    const t = reply.kind === 'text' ? reply.text : reply.kind === 'tool' ? (reply.text ?? '') : '';
    const tool = reply.kind === 'tool' ? { name: reply.name, args: reply.args } : undefined;
    if (!stream) {
      if (reply.kind === 'hang') {
        this.hanging.add({ res, format, model, ids, sink: { send: () => undefined } });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${this.counter}` });
      res.end(JSON.stringify(format.whole(model, ids, t, tool)));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'request-id': `req_${this.counter}` });
    const sink: EventSink = {
      send: (event, data) => {
        if (res.destroyed) return;
        res.write(`${event !== undefined ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      },
    };
    format.open(sink, model, ids);
    if (reply.kind === 'hang') {
      this.hanging.add({ res, format, model, ids, sink });
      return;
    }
    format.finish(sink, model, ids, t, tool);
    res.end();
  }
}

function carriesKey(req: http.IncomingMessage, url: string, key: string): boolean {
  const h = req.headers;
  const bearer = typeof h.authorization === 'string' && h.authorization === `Bearer ${key}`;
  return bearer || h['x-api-key'] === key || h['x-goog-api-key'] === key || new URL(url, 'http://x').searchParams.get('key') === key;
}

/**
 * Side requests (session titles, next-speaker and routing classifiers) get a short answer that parses
 * as what each asks for: JSON where a JSON response was requested.
 */
function sideText(format: WireFormat, body: Record<string, unknown>): string {
  const config = body.generationConfig as { responseMimeType?: string } | undefined;
  if (format.api === 'gemini' && config?.responseMimeType === 'application/json') return JSON.stringify({ reasoning: 'The model answered; the user speaks next.', next_speaker: 'user' });
  return 'Scripted session';
}
