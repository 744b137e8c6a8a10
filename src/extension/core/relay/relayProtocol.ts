// The agent relay's wire: newline-delimited JSON frames on its private socket. The relay (agentRelay.ts)
// and the host's client (relayClient.ts) both import only this file and Node, so the relay stays a small
// program of its own.

/** Bumped on any change of the frames below: a relay of another version is refused, its turn ends as a crash. */
export const RELAY_PROTOCOL = 1;

/** The environment variable that carries the relay's RelayConfig (removed before the agent starts). */
export const RELAY_CONFIG_ENV = 'VIGIL_RELAY_CONFIG';

/** What the host gives the relay (never a secret: the agent's are in the rest of its environment). */
export interface RelayConfig {
  v: number;
  /** The relay's private (0700) folder: secret, state, undelivered log, end record. */
  dir: string;
  socket: string;
  command: string;
  args: string[];
  /** Which agent this is (LaunchSpec.label and .builtin): a window taking the turn back uses the relay's word for it. */
  label: string;
  builtin: boolean;
  cwd: string;
  /**
   * What the relay runs with that the agent must not inherit (ELECTRON_RUN_AS_NODE, glibc's malloc settings):
   * per variable, the agent's own value, or null where it has none.
   */
  agentEnv: Record<string, string | null>;
  /** With no window attached for this long, the relay cancels the turn (vigil.turns.detachedGraceSeconds). */
  graceMs: number;
  /** With no window attached and a prompt running, this long without a message from the agent is a stall. */
  livenessMs: number;
  /** After `session/cancel`, how long the agent gets before its tree is killed. */
  killGraceMs: number;
  /** Bound of the undelivered log, in bytes; reaching it ends the turn (see agentRelay.ts). */
  logCapBytes: number;
  /** Bound on agent→client requests held unanswered while detached; past it they are refused. */
  heldCap: number;
  /** The agent's process marker (its environment's VIGIL_AGENT_RUN), given back to the window that takes it back. */
  marker?: string;
}

/** A client request still waiting for the agent's answer (the relay renumbers them: ids never collide across windows). */
export interface InFlight {
  method: string;
  sessionId?: string;
  /** Milliseconds since it was sent. */
  ageMs: number;
}

/** What the relay runs, as its config named it (RelayConfig's command, args, label and builtin). */
export type RelayedAgent = Pick<RelayConfig, 'command' | 'args' | 'label' | 'builtin'>;

/** The relay's first answer to an authenticated hello: what a new window adopts instead of renegotiating. */
export interface Welcome {
  t: 'welcome';
  v: number;
  agentPid: number;
  /** The agent's answer to the first `initialize` (undefined if it never answered). */
  initialize?: unknown;
  /** ACP session ids opened through this relay, in order. */
  sessions: string[];
  inflight: InFlight[];
  /** Milliseconds since the agent last wrote anything: the silence a re-attached watchdog starts from. */
  silentMs: number;
  /** Per ACP session, what the agent said about it that a new window shows first (its options, commands, usage). */
  state?: Record<string, KeptState[]>;
  /** RelayConfig.marker: how Stop finds what the agent started, also after a reload. */
  marker?: string;
  /** The agent the relay runs, whatever the attaching window's settings name now. */
  agent?: RelayedAgent;
}

/**
 * What the agent said about a session that still holds: the answer that opened it, then the latest of each
 * kind of state update (`config_option_update`, `current_mode_update`, `available_commands_update`,
 * `usage_update`, `session_info_update`), in the order they came.
 */
export type KeptState = { kind: 'opened'; result: unknown } | { kind: 'update'; update: unknown };

export type RelayFrame =
  | Welcome
  /** An agent message, numbered; the client acks the numbers it has handed on. */
  | { t: 'm'; s: number; m: unknown }
  /** The answer to a request of an earlier window (e.g. its `session/prompt`): the id is not the client's. */
  | { t: 'o'; s: number; method: string; sessionId?: string; m: unknown }
  | { t: 'err'; line: string }
  /** A re-attach's replay of the log is over: an answer given before the window came is in (later ones were in flight at the welcome). */
  | { t: 'replayed' }
  | { t: 'exit'; code: number | null; signal: string | null; reason?: string }
  | { t: 'refused'; reason: string };

export type ClientFrame =
  /**
   * `epoch`: the lease epoch of the turn a window takes back. Higher than the attached window's, it takes the agent
   * from that window (frozen, its lease lapsed and reclaimed); otherwise a second window is refused. Optional, so
   * a relay that does not know it still refuses the second window, as before.
   */
  | { t: 'hello'; v: number; secret: string; epoch?: number }
  | { t: 'm'; m: unknown }
  | { t: 'ack'; s: number }
  /** A clean detach (window closing): the relay keeps the agent and starts its deadline. */
  | { t: 'bye' };

/** Longest frame either side accepts; a longer line is a protocol error and closes the connection. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** Files in the relay's folder. */
export const relayFileNames = {
  socket: 's.sock',
  secret: 'secret',
  state: 'state.json',
  log: 'undelivered.jsonl',
  ended: 'ended.json',
} as const;

/** What state.json says (written by the relay once it listens). */
export interface RelayState {
  v: number;
  pid: number;
  agentPid: number;
  socket: string;
  startedAt: number;
}

/** What ended.json says: why the relay ended the agent without a window (shown by the next one). */
export interface RelayEnded {
  reason: string;
  at: number;
  code?: number | null;
  signal?: string | null;
}

/** Splits a byte stream into lines, bounded: calls `onLine` per complete line, `onTooLong` once if a line passes the bound. */
export function lineSplitter(onLine: (line: string) => void, onTooLong: () => void, max = MAX_FRAME_BYTES): (chunk: Buffer) => void {
  let parts: Buffer[] = [];
  let size = 0;
  let broken = false;
  return (chunk) => {
    if (broken) return;
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      // Most lines lie within one read: decoded from it, not copied out first.
      let line: string;
      if (parts.length === 0) line = chunk.toString('utf8', start, nl);
      else {
        parts.push(chunk.subarray(start, nl));
        line = Buffer.concat(parts).toString('utf8');
      }
      parts = [];
      size = 0;
      start = nl + 1;
      if (line.trim()) onLine(line);
    }
    if (start < chunk.length) {
      parts.push(chunk.subarray(start));
      size += chunk.length - start;
      if (size > max) {
        broken = true;
        parts = [];
        onTooLong();
      }
    }
  };
}
