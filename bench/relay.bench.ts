// What the agent relay costs (the issue "A turn outlives its window", item 6): a message's path through the
// relay against the same agent program as the host's child, and the relay process's own memory. Bars: the
// relay adds at most 1 ms p99 to a message's path, and at most 10 MB PSS per live agent.
//
// Both ways run the same echo agent (support/echoAgent.ts) and are read as the host reads them: the direct
// child through the ACP SDK's ndJsonStream over its stdio (agentProcess.ts), the relayed one through the
// host's RelayedAgent, acknowledgements included; the relay is the shipped bundle, dist/agentRelay.js.
// Direct and relayed alternate round by round, so the machine's load falls on both alike.
// VIGIL_BENCH_MESSAGES (5000): pings per way; the 1 KB stream is twice that many chunks.
// VIGIL_BENCH_RELAY: the relay program to run instead of dist/agentRelay.js.

import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream, type AnyMessage, type Stream } from '@agentclientprotocol/sdk';
import type { LaunchSpec } from '../src/extension/core/acp/agentLaunch';
import { StderrLog } from '../src/extension/core/acp/stderrLog';
import { silentLogger } from '../src/extension/core/ports/logger';
import { RelayedAgent } from '../src/extension/core/relay/relayClient';
import { placeRelay, type RelayPlace } from '../src/extension/core/relay/relayPlace';
import { lineSplitter, RELAY_PROTOCOL, relayFileNames } from '../src/extension/core/relay/relayProtocol';
import { startRelay } from '../src/extension/core/relay/relayStart';
import { loadNote } from './support/cpuHogs';
import { percentile } from './support/cooperativeAgent';

const messages = Number(process.env.VIGIL_BENCH_MESSAGES ?? 5000);
const rounds = 5;
const chunkBytes = 1024;
const bigBytes = 1 << 20;
const bigPerRound = 2;
/** What the agent writes while no window is attached (under the relay's 16 MiB log cap). */
const detachedChunks = 10_000;
/** VIGIL_BENCH_RELAY: another build of the relay program (an earlier one, to compare on the same machine state). */
const relayProgramPath = process.env.VIGIL_BENCH_RELAY ?? path.resolve(__dirname, '..', '..', 'dist', 'agentRelay.js');
const echoAgent = path.join(__dirname, 'support', 'echoAgent.js');

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the echo agent's messages, read loosely

/** The host's side of one agent: requests by id, each answer and update with the time it was read. */
class Peer {
  private nextId = 1;
  private readonly pending = new Map<number, (m: Msg, at: number) => void>();
  private readonly writer: WritableStreamDefaultWriter<AnyMessage>;
  onUpdate: ((m: Msg, at: number) => void) | undefined;

  constructor(readonly label: string, stream: Stream, readonly close: () => Promise<void>) {
    this.writer = stream.writable.getWriter();
    void this.read(stream.readable.getReader());
  }

  private async read(reader: ReadableStreamDefaultReader<AnyMessage>): Promise<void> {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const at = nowMs();
      const m = value as Msg;
      if (m.method === undefined && typeof m.id === 'number') this.pending.get(m.id)?.(m, at);
      else this.onUpdate?.(m, at);
    }
  }

  /** Sends a request; resolves with its answer, when it was sent and when it was read. */
  async request(method: string, params: Msg = {}): Promise<{ m: Msg; sentAt: number; at: number }> {
    const id = this.nextId++;
    const answered = new Promise<{ m: Msg; at: number }>((resolve) => this.pending.set(id, (m, at) => resolve({ m, at })));
    const sentAt = nowMs();
    await this.writer.write({ jsonrpc: '2.0', id, method, params } as AnyMessage);
    const { m, at } = await answered;
    this.pending.delete(id);
    return { m, sentAt, at };
  }
}

function echoSpec(): LaunchSpec {
  return { label: 'echo agent', command: process.execPath, args: [echoAgent], env: { ...process.env }, secretEnv: [], builtin: false, setting: 'vigil.agent' };
}

function direct(): Peer {
  const child: ChildProcess = spawn(process.execPath, [echoAgent], { stdio: ['pipe', 'pipe', 'ignore'] });
  const stream = ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>);
  return new Peer('direct', stream, async () => void child.kill('SIGKILL'));
}

async function relayed(root: string): Promise<{ peer: Peer; client: RelayedAgent; place: RelayPlace; relayPid: number; agentPid: number }> {
  const place = await placeRelay(root, 'bench');
  const timings = { graceMs: 600_000, livenessMs: 600_000, killGraceMs: 1_000 };
  const started = await startRelay(echoSpec(), root, place, timings, process.execPath, relayProgramPath);
  const client = await RelayedAgent.attach(place.dir, place.socket, started.pid, new StderrLog(echoSpec(), silentLogger), silentLogger);
  return { peer: new Peer('relayed', client.stream, async () => void (await client.kill())), client, place, relayPid: started.pid, agentPid: started.agentPid };
}

interface Samples {
  pingOneWay: number[];
  pingRoundTrip: number[];
  chunkOneWay: number[];
  streamMs: number[];
  bigOneWay: number[];
  bigRoundTrip: number[];
}
const noSamples = (): Samples => ({ pingOneWay: [], pingRoundTrip: [], chunkOneWay: [], streamMs: [], bigOneWay: [], bigRoundTrip: [] });

/** One round on one way: pings one after the other, a stream of 1 KB chunks, a few 1 MB frames. */
async function round(peer: Peer, into: Samples, pings: number, chunks: number): Promise<void> {
  for (let i = 0; i < pings; i += 1) {
    const { m, sentAt, at } = await peer.request('ping');
    into.pingOneWay.push(at - (m.result.at as number));
    into.pingRoundTrip.push(at - sentAt);
  }
  peer.onUpdate = (m, at) => void into.chunkOneWay.push(at - (m.params.update.at as number));
  const stream = await peer.request('stream', { n: chunks, bytes: chunkBytes });
  peer.onUpdate = undefined;
  into.streamMs.push(stream.at - stream.sentAt);
  for (let i = 0; i < bigPerRound; i += 1) {
    const { m, sentAt, at } = await peer.request('big', { bytes: bigBytes });
    into.bigOneWay.push(at - (m.result.at as number));
    into.bigRoundTrip.push(at - sentAt);
  }
}

const ms = (v: number) => `${v.toFixed(v < 10 ? 3 : 1)} ms`;

function compare(name: string, d: number[], r: number[]): void {
  const [d50, d99, r50, r99] = [percentile(d, 50), percentile(d, 99), percentile(r, 50), percentile(r, 99)];
  const line = `direct p50 ${ms(d50)} p99 ${ms(d99)} max ${ms(Math.max(...d))}; relayed p50 ${ms(r50)} p99 ${ms(r99)} max ${ms(Math.max(...r))}`;
  console.log(`${name} (${d.length} each): ${line}; the relay adds p50 ${ms(r50 - d50)}, p99 ${ms(r99 - d99)} (${loadNote()})`);
}

function report(d: Samples, r: Samples): void {
  compare('agent → host, a small message', d.pingOneWay, r.pingOneWay);
  compare('host → agent → host round trip, a small message', d.pingRoundTrip, r.pingRoundTrip);
  compare('agent → host, a 1 KB chunk of a streamed answer (queued behind the chunks before it)', d.chunkOneWay, r.chunkOneWay);
  const mbps = (xs: number[], chunks: number) => ((chunks * chunkBytes) / 1e6 / (percentile(xs, 50) / 1000)).toFixed(0);
  const perStream = (2 * messages) / rounds;
  console.log(`a streamed answer of ${perStream} × 1 KB, request → last chunk and answer read, median of ${d.streamMs.length}: direct ${ms(percentile(d.streamMs, 50))} (${mbps(d.streamMs, perStream)} MB/s), relayed ${ms(percentile(r.streamMs, 50))} (${mbps(r.streamMs, perStream)} MB/s) (${loadNote()})`);
  compare('agent → host, a 1 MB frame', d.bigOneWay, r.bigOneWay);
  compare('host → agent → host round trip, a 1 MB answer', d.bigRoundTrip, r.bigRoundTrip);
}

/** PSS, RSS and anonymous pages of one process, in MB, from /proc/<pid>/smaps_rollup (Linux). */
function memory(pid: number): { pss: number; rss: number; anon: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { pss: kb('Pss') / 1024, rss: kb('Rss') / 1024, anon: kb('Anonymous') / 1024 };
}

function printMemory(what: string, pid: number): void {
  const m = memory(pid);
  console.log(`relay process ${what}: PSS ${m.pss.toFixed(1)} MB, RSS ${m.rss.toFixed(1)} MB, of it anonymous ${m.anon.toFixed(1)} MB (${loadNote()})`);
}

/** A bare client of the relay's socket: hello, then `frames` written at once; every frame it reads is kept. */
async function rawClient(place: RelayPlace, frames: Msg[]): Promise<{ got: Msg[]; closed: Promise<void>; socket: net.Socket }> {
  const secret = (await fs.readFile(path.join(place.dir, relayFileNames.secret), 'utf8')).trim();
  const socket = net.connect(place.socket);
  const got: Msg[] = [];
  let welcomed!: () => void;
  const welcome = new Promise<void>((resolve) => (welcomed = resolve));
  socket.on('data', lineSplitter((line) => void (got.push(JSON.parse(line) as Msg), got.length === 1 && welcomed()), () => socket.destroy()));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(`${JSON.stringify({ t: 'hello', v: RELAY_PROTOCOL, secret })}\n`);
  await welcome;
  socket.write(frames.map((f) => `${JSON.stringify(f)}\n`).join(''));
  return { got, closed, socket };
}

/** The relay with no window while the agent streams ~11 MB into its durable log, then the replay to the next window. */
async function detachedFill(place: RelayPlace, relayPid: number): Promise<void> {
  const request = { jsonrpc: '2.0', id: 1, method: 'stream', params: { n: detachedChunks, bytes: chunkBytes } };
  const leaving = await rawClient(place, [{ t: 'm', m: request }, { t: 'bye' }]);
  await leaving.closed;
  const log = path.join(place.dir, relayFileNames.log);
  let peak = memory(relayPid);
  // The log is full once the prompt's answer (an earlier window's answer: `"t":"o"`) is its last line.
  for (;;) {
    const m = memory(relayPid);
    if (m.pss > peak.pss) peak = m;
    const size = await fs.stat(log).then((s) => s.size, () => 0);
    if (size > detachedChunks * chunkBytes) {
      const tail = Buffer.alloc(256);
      const fd = await fs.open(log, 'r');
      await fd.read(tail, 0, 256, size - 256);
      await fd.close();
      if (tail.toString('utf8').includes('"t":"o"')) break;
    }
    await pause(20);
  }
  const logMb = (await fs.stat(log)).size / 1e6;
  console.log(`relay process, no window attached, while ${logMb.toFixed(1)} MB went to its durable log: peak PSS ${peak.pss.toFixed(1)} MB, RSS ${peak.rss.toFixed(1)} MB, anonymous ${peak.anon.toFixed(1)} MB (sampled every 20 ms) (${loadNote()})`);
  printMemory(`once ${logMb.toFixed(1)} MB were logged with no window`, relayPid);
  const next = await rawClient(place, []);
  const replayed = () => next.got.filter((f) => f.t === 'm' && f.m?.method === 'session/update').length;
  while (replayed() < detachedChunks || !next.got.some((f) => f.t === 'o')) await pause(20);
  printMemory(`right after replaying the ${logMb.toFixed(1)} MB log to the next window (not yet acknowledged)`, relayPid);
  next.socket.write(`${JSON.stringify({ t: 'ack', s: Math.max(...next.got.map((f) => (typeof f.s === 'number' ? f.s : 0))) })}\n`);
  // The relay collects its garbage once quiet for 1.5 s (relayIdleGc.ts).
  await pause(2_500);
  printMemory('2.5 s after the replay was acknowledged', relayPid);
  next.socket.end(`${JSON.stringify({ t: 'bye' })}\n`);
  await next.closed;
}

async function main(): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-relay-'));
  const d = direct();
  const r = await relayed(root);
  try {
    for (const peer of [d, r.peer]) for (let i = 0; i < 200; i += 1) await peer.request('ping');
    await pause(500);
    printMemory('idle, attached, after 200 small messages', r.relayPid);
    const ds = noSamples();
    const rs = noSamples();
    for (let i = 0; i < rounds; i += 1) {
      // Which way goes first alternates, so neither always follows the other's garbage collection.
      const ways: [Peer, Samples][] = i % 2 === 0 ? [[d, ds], [r.peer, rs]] : [[r.peer, rs], [d, ds]];
      for (const [peer, into] of ways) await round(peer, into, messages / rounds, (2 * messages) / rounds);
    }
    report(ds, rs);
    const streamedMb = ((2 * messages * chunkBytes) + rounds * bigPerRound * bigBytes) / 1e6;
    printMemory(`right after ${streamedMb.toFixed(0)} MB streamed through it (1 KB chunks and 1 MB frames)`, r.relayPid);
    await pause(2_500);
    printMemory('2.5 s later, idle', r.relayPid);
    await r.client.detach();
    await detachedFill(r.place, r.relayPid);
  } finally {
    await d.close();
    await r.peer.close();
    await fs.rm(root, { recursive: true, force: true, maxRetries: 5 });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
