// Vigil's agent relay: a small program of its own (dist/agentRelay.js), started detached in its own process
// group, that runs one agent process as its child and owns the agent's stdio. It outlives the extension host:
// a window reload or an extension-host restart detaches the window, not the agent, and the next window
// re-attaches on the relay's private socket (0700 folder, per-relay secret, one client at a time: a second
// attach is refused while one is attached, so a turn is never taken from a live window, unless it comes with a
// higher lease epoch: the lease moved on to that window, and the attached one is frozen and fenced off).
//
// While no window is attached, every agent message goes to a bounded durable log (replayed at the next
// attach, then dropped) and the agent's requests wait for a window. The relay has one policy of its own, a
// deadline: no window within `graceMs`, or no message from a running prompt for `livenessMs`, or a full log,
// ends the turn (`session/cancel`, then the agent's tree is killed after `killGraceMs`) and ended.json says
// why. See docs/turn-supervisor.md (The detached state).

import { spawn } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { killProcessTree } from '../common/processTree';
import { RelayBook } from './relayBook';
import { IdleGc, loadGc } from './relayIdleGc';
import { framed, openFrame, RelayLog, type LogPiece } from './relayLog';
import { lineSplitter, RELAY_CONFIG_ENV, RELAY_PROTOCOL, relayFileNames, type ClientFrame, type RelayConfig, type RelayEnded, type RelayState } from './relayProtocol';

// From the environment, not argv: the process table then shows the relay, not its agent's command line
// (tools that look for the agent's command must find the agent alone).
const config = JSON.parse(process.env[RELAY_CONFIG_ENV] ?? '{}') as RelayConfig;
const file = (name: keyof typeof relayFileNames) => path.join(config.dir, relayFileNames[name]);
const now = () => Math.round(performance.now());
const book = new RelayBook(now);
const secret = randomBytes(32);
/** Bound on an agent stderr line passed on; longer lines are cut. */
const stderrLineBytes = 64 * 1024;
const authMs = 5_000;
const idleGc = new IdleGc(loadGc());

/** A frame for the client: `line` is sent; if the client goes before acknowledging it, `kept` (or `line`) is logged. */
interface Outgoing {
  s: number;
  line: string;
  /** An answer to the client's own request, as an earlier window's answer (the next window never asked it). */
  kept?: string;
  /** The id's JSON of an agent request. */
  request?: string;
}
type Unacked = Omit<Outgoing, 'kept'>;

let client: net.Socket | undefined;
/** The lease epoch the attached client took the turn back under (0: it started the agent); only a higher one takes the agent from it. */
let clientEpoch = 0;
let killTimer: NodeJS.Timeout | undefined;
let seq = 0;
/** Frames sent to the attached client and not yet acknowledged: logged again if it goes away. */
let unacked: Unacked[] = [];
let unackedBytes = 0;
/** The log being replayed to the attached client; new frames wait in `pending` until it is done. */
let replay: { socket: net.Socket; read: () => LogPiece | undefined } | undefined;
let pending: Outgoing[] = [];
/** The replayed lines not yet acknowledged, flat: number, end offset in the log, … (from `markHead` on). */
let marks: number[] = [];
let markHead = 0;
/** The agent is gone while a replay is under way: what ends the relay, once the replay and the exit reached the client. */
let afterReplay: (() => void) | undefined;
let detachedAt: number | undefined = now();
let lastProgress = now();
let ending: string | undefined;
const log = new RelayLog(file('log'));
let agentExited = false;
let logFull = false;

function writeFileAtomic(name: keyof typeof relayFileNames, data: string, mode = 0o600): void {
  const target = file(name);
  fs.writeFileSync(`${target}.tmp`, data, { mode });
  fs.renameSync(`${target}.tmp`, target);
}

function fail(message: string, code?: string): never {
  process.stdout.write(`${JSON.stringify({ error: message, code })}\n`);
  process.exit(1);
}

if (config.v !== RELAY_PROTOCOL) fail(`relay protocol ${String(config.v)} is not ${RELAY_PROTOCOL}`);
fs.rmSync(file('secret'), { force: true });
fs.writeFileSync(file('secret'), secret.toString('hex'), { mode: 0o600, flag: 'wx' });
for (const signal of ['SIGHUP', 'SIGPIPE'] as const) process.on(signal, () => undefined);

// The agent's environment is what it would be without the relay: what the relay runs with (ELECTRON_RUN_AS_NODE,
// glibc's malloc settings) is put back as the agent had it.
const env: NodeJS.ProcessEnv = { ...process.env };
delete env[RELAY_CONFIG_ENV];
for (const [name, value] of Object.entries(config.agentEnv ?? {})) {
  if (value === null) delete env[name];
  else env[name] = value;
}
const agent = spawn(config.command, config.args, { cwd: config.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
agent.once('error', (error: NodeJS.ErrnoException) => fail(error.message, error.code));
agent.stdin.on('error', () => undefined);

function toAgent(m: unknown): void {
  if (!agentExited) agent.stdin.write(`${JSON.stringify(m)}\n`);
}

// ---- the durable log of what no window received ----

function appendLog(line: string, request?: string): void {
  if (logFull) return;
  if (log.bytes + Buffer.byteLength(line) + 1 > config.logCapBytes) {
    // Past the cap nothing more is kept: the turn is cancelled rather than continued with a hole in it.
    logFull = true;
    end(`no window was attached and the agent's output passed the ${Math.round(config.logCapBytes / 1024)} KiB kept for it`);
    return;
  }
  log.append(line, request);
}

// ---- frames to the client ----

/** `head`: the frame's JSON without its closing brace (relayLog's openFrame); it is numbered here. */
function send(head: string, answered?: { method: string; sessionId?: string; m: string }, request?: string): void {
  seq += 1;
  const line = framed(head, seq);
  if (!client) return appendLog(line, request);
  const kept = answered ? framed(`${openFrame({ t: 'o', method: answered.method, sessionId: answered.sessionId })},"m":${answered.m}`, seq) : undefined;
  const out: Outgoing = { s: seq, line, ...(kept ? { kept } : {}), ...(request !== undefined ? { request } : {}) };
  if (replay) pending.push(out);
  else deliver(client, out);
}

function deliver(socket: net.Socket, out: Outgoing): void {
  socket.write(`${out.line}\n`);
  const line = out.kept ?? out.line;
  unacked.push({ s: out.s, line, ...(out.request !== undefined ? { request: out.request } : {}) });
  unackedBytes += line.length;
  // A client that never acknowledges is not allowed to grow the relay: the oldest are taken as received.
  while (log.bytes + unackedBytes > config.logCapBytes) {
    if (markHead < marks.length) ackLog(marks[markHead]);
    else if (unacked.length > 0) unackedBytes -= unacked.shift()!.line.length;
    else break;
  }
}

/** The replayed lines up to number `s` reached the client: the log forgets them. */
function ackLog(s: number): void {
  let to = -1;
  for (; markHead < marks.length && marks[markHead] <= s; markHead += 2) to = marks[markHead + 1];
  if (to >= 0) log.ackedTo(to);
  if (markHead > 4096 && markHead * 2 > marks.length) {
    marks = marks.slice(markHead);
    markHead = 0;
  }
}

/** Gives the client the log a piece at a time, each once the socket took the one before (so nothing piles up here). */
function pump(): void {
  const r = replay;
  if (!r || client !== r.socket) return;
  for (;;) {
    const piece = r.read();
    if (!piece) return finishReplay(r.socket);
    for (const mark of piece.marks) marks.push(mark);
    if (!r.socket.write(piece.bytes)) return void r.socket.once('drain', pump);
  }
}

function finishReplay(socket: net.Socket): void {
  replay = undefined;
  // What the log held is in: an answer given before this window came is among it (one given since was in flight
  // at the welcome). Then what waited for the replay.
  socket.write(`${JSON.stringify({ t: 'replayed' })}\n`);
  for (const out of pending) deliver(socket, out);
  pending = [];
  afterReplay?.();
}

function fromAgentLine(line: string): void {
  lastProgress = now();
  let m: unknown;
  let parsed = true;
  try {
    m = JSON.parse(line);
  } catch {
    m = line;
    parsed = false;
  }
  const isRequest = typeof m === 'object' && m !== null && 'method' in m && 'id' in m;
  if (isRequest && !client && book.openCount >= config.heldCap) {
    toAgent({ jsonrpc: '2.0', id: (m as { id: unknown }).id, error: { code: -32000, message: 'No Vigil window is attached to answer this request.' } });
    return;
  }
  const routed = book.fromAgent(m);
  // The agent's line goes into the frame as it came (it is valid JSON and has no newline) unless the book
  // changed the message (an answer gets the client's own id back): no second serialization on the way.
  const raw = parsed && routed.m === m ? line : JSON.stringify(routed.m);
  const request = isRequest ? JSON.stringify((m as { id: unknown }).id) : undefined;
  if (routed.kind === 'orphan') send(`${openFrame({ t: 'o', method: routed.method, sessionId: routed.sessionId })},"m":${raw}`);
  else send(`{"t":"m","m":${raw}`, routed.answered && { method: routed.answered.method, sessionId: routed.answered.sessionId, m: line }, request);
}

const fromAgent = lineSplitter(fromAgentLine, () => end('the agent wrote a line longer than the relay takes'));
agent.stdout.on('data', (chunk: Buffer) => {
  idleGc.activity();
  // The frames of one read leave in one write, not one each.
  const socket = client;
  socket?.cork();
  fromAgent(chunk);
  socket?.uncork();
});
agent.stderr.on(
  'data',
  lineSplitter(
    (line) => client?.write(`${JSON.stringify({ t: 'err', line: line.slice(0, stderrLineBytes) })}\n`),
    () => undefined,
    stderrLineBytes * 4,
  ),
);

// ---- attach, detach ----

function detach(socket: net.Socket): void {
  if (client !== socket) return;
  client = undefined;
  detachedAt = now();
  // Answers that arrive from now on are for a window that is gone: the next one gets them as earlier answers.
  book.gen += 1;
  // The replayed lines not acknowledged are still in the log, the rest of it after them; then what was sent since,
  // or held for after the replay. The next window never asked what the answers among them answer: they reach it
  // as an earlier window's answers.
  replay = undefined;
  marks = [];
  markHead = 0;
  for (const u of unacked) appendLog(u.line, u.request);
  for (const out of pending) appendLog(out.kept ?? out.line, out.request);
  unacked = [];
  unackedBytes = 0;
  pending = [];
}

function cutOff(socket: net.Socket): void {
  detach(socket);
  socket.destroy();
}

function attach(socket: net.Socket): void {
  client = socket;
  // A window came back after the deadline's cancel and before its kill: the agent is its again.
  clearTimeout(killTimer);
  detachedAt = undefined;
  book.gen += 1;
  const welcome = { t: 'welcome', v: RELAY_PROTOCOL, agentPid: agent.pid, initialize: book.initialize, sessions: book.sessions, inflight: book.inflight(), silentMs: now() - lastProgress, state: book.keptState(), marker: config.marker, agent: { command: config.command, args: config.args, label: config.label, builtin: config.builtin } };
  socket.write(`${JSON.stringify(welcome)}\n`);
  const resent = log.requestKeys();
  replay = { socket, read: log.reader() };
  // Requests the last window received and never answered (it went away mid-approval) are asked again, after the log.
  for (const m of book.openRequests()) {
    const key = JSON.stringify(m.id);
    if (!resent.has(key)) send(openFrame({ t: 'm', m }), undefined, key);
  }
  pump();
}

function onClientFrame(socket: net.Socket, frame: ClientFrame): void {
  if (frame.t === 'm') toAgent(book.fromClient(frame.m));
  else if (frame.t === 'ack') {
    ackLog(frame.s);
    while (unacked.length > 0 && unacked[0].s <= frame.s) unackedBytes -= unacked.shift()!.line.length;
  } else if (frame.t === 'bye') {
    detach(socket);
    socket.end();
  }
}

function authentic(frame: unknown): boolean {
  const f = frame as { t?: unknown; v?: unknown; secret?: unknown };
  if (f?.t !== 'hello' || typeof f.secret !== 'string') return false;
  const given = Buffer.from(f.secret, 'utf8');
  const expected = Buffer.from(secret.toString('hex'), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const server = net.createServer((socket) => {
  let authed = false;
  const refuse = (reason: string) => socket.end(`${JSON.stringify({ t: 'refused', reason })}\n`);
  const timer = setTimeout(() => socket.destroy(), authMs);
  socket.on('error', () => undefined);
  socket.on('data', () => idleGc.activity());
  socket.on('close', () => {
    clearTimeout(timer);
    detach(socket);
  });
  socket.on(
    'data',
    lineSplitter(
      (line) => {
        let frame: ClientFrame;
        try {
          frame = JSON.parse(line) as ClientFrame;
        } catch {
          socket.destroy();
          return;
        }
        if (authed) return onClientFrame(socket, frame);
        clearTimeout(timer);
        if (!authentic(frame)) return void socket.destroy();
        if ((frame as { v?: unknown }).v !== RELAY_PROTOCOL) return refuse(`this relay speaks version ${RELAY_PROTOCOL}, not ${String((frame as { v?: unknown }).v)}`);
        if (agentExited) return refuse('the agent has exited');
        const epoch = (frame as { epoch?: unknown }).epoch;
        const given = typeof epoch === 'number' && Number.isSafeInteger(epoch) ? epoch : 0;
        if (client && given <= clientEpoch) return refuse('another window is attached to this agent');
        // The turn's lease moved on to this window (the attached one froze and its lease lapsed): the old one is cut off,
        // so what it sends when it wakes reaches nothing.
        if (client) cutOff(client);
        authed = true;
        clientEpoch = given;
        attach(socket);
      },
      () => socket.destroy(),
    ),
  );
});

// ---- the deadline ----

function end(reason: string): void {
  if (ending !== undefined) return;
  ending = reason;
  writeFileAtomic('ended', JSON.stringify({ reason, at: Date.now() } satisfies RelayEnded));
  for (const sessionId of book.promptsRunning()) toAgent({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } });
  for (const m of book.openRequests()) {
    const answer = m.method === 'session/request_permission' ? { result: { outcome: { outcome: 'cancelled' } } } : { error: { code: -32000, message: 'The turn was cancelled.' } };
    toAgent({ jsonrpc: '2.0', id: m.id, ...answer });
    book.answered(m.id);
  }
  if (book.promptsRunning().length === 0) agent.stdin.end();
  killTimer = setTimeout(() => {
    if (!client) void killProcessTree(agent.pid!).catch(() => undefined);
  }, config.killGraceMs);
}

const tick = Math.max(20, Math.min(1_000, config.graceMs / 10, config.livenessMs / 10));
const deadline = setInterval(() => {
  if (detachedAt === undefined || ending !== undefined) return;
  const t = now();
  if (t - detachedAt >= config.graceMs) end(`no Vigil window was attached within ${Math.round(config.graceMs / 1000)} s`);
  else if (book.promptsRunning().length > 0 && t - lastProgress >= config.livenessMs) end(`the turn made no progress for ${Math.round(config.livenessMs / 1000)} s while no window was attached`);
}, tick);

// The exit is passed on once the agent's stdout and stderr are drained (its last words explain a crash),
// or a second after it, should a grandchild hold the pipes open.
agent.once('exit', (code, signal) => {
  agentExited = true;
  const report = () => onAgentGone(code, signal);
  const timer = setTimeout(report, 1_000);
  agent.once('close', () => {
    clearTimeout(timer);
    report();
  });
});

let reported = false;
function onAgentGone(code: number | null, signal: NodeJS.Signals | null): void {
  if (reported) return;
  reported = true;
  clearInterval(deadline);
  const reason = ending;
  if (client) {
    send(openFrame({ t: 'exit', code, signal, ...(reason ? { reason } : {}) }));
  } else {
    writeFileAtomic('ended', JSON.stringify({ reason: reason ?? 'the agent exited while no window was attached', at: Date.now(), code, signal } satisfies RelayEnded));
  }
  server.close();
  fs.rmSync(file('state'), { force: true });
  fs.rmSync(config.socket, { force: true });
  // The client has the exit (or the log and ended.json say it): nothing keeps the relay. A replay under way is
  // finished first (the exit comes after it); the relay goes a second after its socket took the last frame, or
  // after a minute should the client stop reading.
  const leave = () => {
    client?.end(() => setTimeout(() => process.exit(0), 1_000).unref());
    setTimeout(() => process.exit(0), client ? 60_000 : 0).unref();
  };
  client?.once('close', () => process.exit(0));
  if (replay) afterReplay = leave;
  else leave();
}

agent.once('spawn', () => {
  fs.rmSync(config.socket, { force: true });
  // A socket that cannot listen (a path too long, a full disk) is said, not left to hang the window's start.
  server.once('error', (error) => {
    void killProcessTree(agent.pid!).catch(() => undefined);
    fail(`the relay could not listen on ${config.socket}: ${error.message}`);
  });
  server.listen(config.socket, () => {
    fs.chmodSync(config.socket, 0o600);
    writeFileAtomic('state', JSON.stringify({ v: RELAY_PROTOCOL, pid: process.pid, agentPid: agent.pid!, socket: config.socket, startedAt: Date.now() } satisfies RelayState));
    process.stdout.write(`${JSON.stringify({ ready: true, agentPid: agent.pid })}\n`);
    process.stdout.end();
  });
});
