// What the relay remembers of the ACP conversation passing through it, so a new window can adopt it
// instead of renegotiating: the `initialize` answer, the sessions opened, the client's requests still in
// flight (renumbered: a new window's ids start again at 0 and must not meet the old window's answers) and
// the agent's requests still unanswered (sent again to the next window).

import { STATE_UPDATES } from '../../../shared/agentState';
import type { InFlight, KeptState } from './relayProtocol';

type Json = Record<string, unknown>;

interface Outgoing {
  gen: number;
  id: unknown;
  method: string;
  sessionId?: string;
  /** `session/set_mode`'s mode: kept as the session's mode once the agent says yes. */
  modeId?: string;
  at: number;
}

/** A kept state entry larger than this is not kept (the next window then asks the agent as it does after a restart). */
const keptStateBytes = 256 * 1024;

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
  /** Per ACP session: what it was opened with and the latest of each state update, oldest first (see KeptState). */
  private readonly said = new Map<string, Map<string, KeptState>>();

  constructor(private readonly now: () => number) {}

  /** A client message on its way to the agent: requests get a relay-wide id. */
  fromClient(m: unknown): unknown {
    if (!isObject(m)) return m;
    if (typeof m.method === 'string' && m.id !== undefined && m.id !== null) {
      const id = this.nextId++;
      const modeId = m.method === 'session/set_mode' && isObject(m.params) && typeof m.params.modeId === 'string' ? m.params.modeId : undefined;
      this.outgoing.set(id, { gen: this.gen, id: m.id, method: m.method, sessionId: sessionIdOf(m.params), ...(modeId ? { modeId } : {}), at: this.now() });
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
      else if (m.method === 'session/update') this.keepUpdate(m.params);
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
    if (typeof opened === 'string') this.keep(opened, 'opened', { kind: 'opened', result: { configOptions: answer.result.configOptions, modes: answer.result.modes, models: answer.result.models } });
    if (!sent.sessionId) return;
    if (sent.method === 'session/set_mode' && sent.modeId) this.keep(sent.sessionId, 'current_mode_update', { kind: 'update', update: { sessionUpdate: 'current_mode_update', currentModeId: sent.modeId } });
    if (sent.method === 'session/set_config_option' && Array.isArray(answer.result.configOptions)) {
      this.keep(sent.sessionId, 'config_option_update', { kind: 'update', update: { sessionUpdate: 'config_option_update', configOptions: answer.result.configOptions } });
    }
  }

  private keepUpdate(params: unknown): void {
    const sessionId = sessionIdOf(params);
    const update = isObject(params) ? params.update : undefined;
    if (!sessionId || !isObject(update) || typeof update.sessionUpdate !== 'string' || !STATE_UPDATES.includes(update.sessionUpdate)) return;
    this.keep(sessionId, update.sessionUpdate, { kind: 'update', update });
  }

  /** The latest of its kind replaces the earlier one and moves to the end, so the order they apply in is kept. */
  private keep(sessionId: string, kind: string, entry: KeptState): void {
    let kept = this.said.get(sessionId);
    if (!kept) this.said.set(sessionId, (kept = new Map()));
    kept.delete(kind);
    if (JSON.stringify(entry).length <= keptStateBytes) kept.set(kind, entry);
  }

  /** What a new window shows of each session before anything else (the welcome's `state`). */
  keptState(): Record<string, KeptState[]> {
    return Object.fromEntries([...this.said].map(([sessionId, kept]) => [sessionId, [...kept.values()]]));
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
