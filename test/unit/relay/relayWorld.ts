// A relay with the fake ACP agent behind it, and a raw client of its socket that records every frame.

import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAlive } from '../../../src/extension/core/common/processTree';
import type { LaunchSpec } from '../../../src/extension/core/acp/agentLaunch';
import { placeRelay, type RelayPlace } from '../../../src/extension/core/relay/relayPlace';
import { startRelay, type RelayTimings } from '../../../src/extension/core/relay/relayStart';
import { lineSplitter, RELAY_PROTOCOL, relayFileNames } from '../../../src/extension/core/relay/relayProtocol';
import { fakeAgentScript } from '../acp/acpHarness';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- frames of the wire, read loosely by the tests
type Frame = Record<string, any>;

export function fakeSpec(args: string[] = []): LaunchSpec {
  return { label: 'fake agent', command: process.execPath, args: [fakeAgentScript, ...args], env: { ...process.env }, secretEnv: [], builtin: false, setting: 'vigil.agent' };
}

/** Resolves once `check` holds, looking again whenever `poke` fires or every 20 ms (a file another process writes). */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, what: string, limitMs = 15_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - start > limitMs) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export class RawClient {
  readonly frames: Frame[] = [];
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(readonly socket: net.Socket) {
    socket.on(
      'data',
      lineSplitter(
        (line) => {
          this.frames.push(JSON.parse(line) as Frame);
          for (const w of this.waiters.splice(0)) w();
        },
        () => undefined,
      ),
    );
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async connect(place: RelayPlace, hello?: Frame): Promise<RawClient> {
    const secret = (await fs.readFile(path.join(place.dir, relayFileNames.secret), 'utf8')).trim();
    const socket = net.connect(place.socket);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const client = new RawClient(socket);
    socket.write(`${JSON.stringify(hello ?? { t: 'hello', v: RELAY_PROTOCOL, secret })}\n`);
    return client;
  }

  /** The first frame (from `from` on) that `match` accepts. */
  async next(match: (f: Frame) => boolean, what: string, from = 0): Promise<Frame> {
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      if (this.closed) throw new Error(`connection closed before ${what}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  send(frame: Frame): void {
    this.socket.write(`${JSON.stringify(frame)}\n`);
  }

  request(id: number, method: string, params: Frame): void {
    this.send({ t: 'm', m: { jsonrpc: '2.0', id, method, params } });
  }

  /** The answer to this client's request `id`. */
  answer(id: number): Promise<Frame> {
    return this.next((f) => f.t === 'm' && f.m?.id === id && f.m?.method === undefined, `the answer to ${id}`).then((f) => f.m as Frame);
  }

  /** Text of every agent_message_chunk received. */
  chunks(): string[] {
    return this.frames.filter((f) => f.t === 'm' && f.m?.params?.update?.sessionUpdate === 'agent_message_chunk').map((f) => f.m.params.update.content.text as string);
  }

  ackAll(): void {
    const last = Math.max(0, ...this.frames.map((f) => (typeof f.s === 'number' ? f.s : 0)));
    this.send({ t: 'ack', s: last });
  }
}

export interface World {
  root: string;
  place: RelayPlace;
  relayPid: number;
  agentPid: number;
}

export async function startWorld(timings: Partial<RelayTimings> = {}, args: string[] = [], spec = fakeSpec(args)): Promise<World> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-relay-'));
  const place = await placeRelay(root, 's1');
  const started = await startRelay(spec, root, place, { graceMs: 60_000, livenessMs: 60_000, killGraceMs: 1_000, ...timings });
  return { root, place, relayPid: started.pid, agentPid: started.agentPid };
}

/** An initialized client with one open session; returns the agent's session id. */
export async function openSession(client: RawClient, root: string): Promise<string> {
  client.request(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  await client.answer(1);
  client.request(2, 'session/new', { cwd: root, mcpServers: [] });
  return ((await client.answer(2)).result as Frame).sessionId as string;
}

export async function stopWorld(world: World): Promise<void> {
  for (const pid of [world.relayPid, world.agentPid]) {
    try {
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await fs.rm(world.root, { recursive: true, force: true });
}
