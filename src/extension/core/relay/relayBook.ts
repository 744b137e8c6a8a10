// What the relay remembers of the ACP conversation passing through it, so a new window can adopt it
// instead of renegotiating: the `initialize` answer, the sessions opened, the client's requests still in
// flight (renumbered: a new window's ids start again at 0 and must not meet the old window's answers) and
// the agent's requests still unanswered (sent again to the next window).

import type { InFlight } from './relayProtocol';

type Json = Record<string, unknown>;

interface Outgoing {
  gen: number;
  id: unknown;
  method: string;
  sessionId?: string;
  at: number;
}

/** An agent message as it goes to the client: for the window that asked, or the answer to an earlier window's request. */
export type FromAgent =
  | { kind: 'deliver'; m: unknown; answered?: { method: string; sessionId?: string; m: unknown } }
  | { kind: 'orphan'; m: unknown; method: string; sessionId?: string };

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function sessionIdOf(params: unknown): string | undefined {
  return isObject(params) && typeof params.sessionId === 'string' ? params.sessionId : undefined;
}

export class RelayBook {
  /** The attached client's generation; bumped at each attach. */
  gen = 0;
  initialize: unknown;
  readonly sessions: string[] = [];
  private nextId = 1;
  private readonly outgoing = new Map<number, Outgoing>();
  /** Agent→client requests not yet answered, by their id's JSON. */
  private readonly open = new Map<string, Json>();

  constructor(private readonly now: () => number) {}

  /** A client message on its way to the agent: requests get a relay-wide id. */
  fromClient(m: unknown): unknown {
    if (!isObject(m)) return m;
    if (typeof m.method === 'string' && m.id !== undefined && m.id !== null) {
      const id = this.nextId++;
      this.outgoing.set(id, { gen: this.gen, id: m.id, method: m.method, sessionId: sessionIdOf(m.params), at: this.now() });
      return { ...m, id };
    }
    if (m.method === undefined && m.id !== undefined) this.open.delete(JSON.stringify(m.id));
    return m;
  }

  /** An agent message; `m` is the parsed line (anything JSON). */
  fromAgent(m: unknown): FromAgent {
    if (!isObject(m)) return { kind: 'deliver', m };
    if (typeof m.method === 'string') {
      if (m.id !== undefined && m.id !== null) this.open.set(JSON.stringify(m.id), m);
      return { kind: 'deliver', m };
    }
    const sent = typeof m.id === 'number' ? this.outgoing.get(m.id) : undefined;
    if (!sent) return { kind: 'deliver', m };
    this.outgoing.delete(m.id as number);
    this.remember(sent, m);
    const about = { method: sent.method, ...(sent.sessionId ? { sessionId: sent.sessionId } : {}) };
    if (sent.gen === this.gen) return { kind: 'deliver', m: { ...m, id: sent.id }, answered: { ...about, m } };
    return { kind: 'orphan', m, ...about };
  }

  private remember(sent: Outgoing, answer: Json): void {
    if (!isObject(answer.result)) return;
    if (sent.method === 'initialize' && this.initialize === undefined) this.initialize = answer.result;
    const opened = sent.method === 'session/new' ? answer.result.sessionId : sent.method === 'session/load' || sent.method === 'session/resume' ? sent.sessionId : undefined;
    if (typeof opened === 'string' && !this.sessions.includes(opened)) this.sessions.push(opened);
  }

  inflight(): InFlight[] {
    const now = this.now();
    return [...this.outgoing.values()].map((o) => ({ method: o.method, ...(o.sessionId ? { sessionId: o.sessionId } : {}), ageMs: now - o.at }));
  }

  /** The sessions whose `session/prompt` the agent has not answered yet. */
  promptsRunning(): string[] {
    return [...this.outgoing.values()].filter((o) => o.method === 'session/prompt' && o.sessionId).map((o) => o.sessionId!);
  }

  /** The agent's unanswered requests, oldest first. */
  openRequests(): Json[] {
    return [...this.open.values()];
  }

  get openCount(): number {
    return this.open.size;
  }

  /** Forgets an agent request the relay answered itself (held too many, or the turn was cancelled). */
  answered(id: unknown): void {
    this.open.delete(JSON.stringify(id));
  }
}
