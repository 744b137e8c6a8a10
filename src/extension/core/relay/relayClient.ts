// The host's end of a relay: authenticates on its socket, takes the welcome (what a new window adopts), and
// serves the agent's messages as an ACP stream. To the ACP connection it looks like a spawned agent
// (AgentChannel); Kill ends the relay's whole tree, the agent's included.

import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { VigilError } from '../common/errors';
import { isAlive, killProcessTree } from '../common/processTree';
import type { Logger } from '../ports/logger';
import { RELAY_LOST, type AgentExit } from '../acp/agentProcess';
import type { RelayedChannel } from '../acp/acpHandleDeps';
import type { StderrLog } from '../acp/stderrLog';
import { timeoutSignal, untilAborted } from '../../../shared/untilAborted';
import { lineSplitter, RELAY_PROTOCOL, relayFileNames, type RelayFrame, type Welcome } from './relayProtocol';

/** An answer to a request of an earlier window (its `session/prompt`, typically). */
export interface Orphan {
  method: string;
  sessionId?: string;
  message: Record<string, unknown>;
}

const welcomeMs = 10_000;
/** How long a going window waits for its turn's transcript before it says bye. */
const detachStoreMs = 2_000;

/** The protocol version of a relay that refused this window, or answered it, in another version; undefined for any other failure. */
/** Whether `error` is a relay's refusal because another window is attached to it (its agent is that window's). */
export function attachedElsewhere(error: unknown): boolean {
  const refused = (error as { cause?: { refused?: unknown } } | undefined)?.cause?.refused;
  return typeof refused === 'string' && refused.startsWith('another window is attached');
}

export function otherVersionOf(error: unknown): number | undefined {
  const cause = (error as { cause?: { relayProtocol?: unknown } } | undefined)?.cause;
  if (typeof cause?.relayProtocol === 'number') return cause.relayProtocol;
  const said = /this relay speaks version (\d+)/.exec(error instanceof Error ? error.message : '');
  return said ? Number(said[1]) : undefined;
}

export class RelayedAgent implements RelayedChannel {
  readonly stream: Stream;
  readonly exited: Promise<AgentExit>;
  private exitInfo: AgentExit | undefined;
  private resolveExit!: (exit: AgentExit) => void;
  private enqueue!: (m: AnyMessage) => void;
  /** Frames held until the first prompt (or adoption) is ready for them, so a replay never lands nowhere. */
  private held: RelayFrame[] | undefined;
  private acked = 0;
  private ackQueued = false;
  /** The turn's "stored" barrier (see ackAfter); acknowledgements wait for it. */
  private stored: (() => Promise<void>) | undefined;
  private detached = false;
  private readonly orphans: Orphan[] = [];
  private orphanListener: ((orphan: Orphan) => void) | undefined;
  /** Why the relay ended the agent, when it says so with the exit. */
  endReason: string | undefined;
  private replayDone!: () => void;
  /** Settles once the relay's replay of what no window stored has arrived (held, if held), or the relay is gone. */
  readonly replayed = new Promise<void>((resolve) => (this.replayDone = resolve));

  private constructor(
    private readonly socket: net.Socket,
    readonly relayPid: number,
    readonly welcome: Welcome,
    private readonly stderr: StderrLog,
    private readonly log: Logger,
    hold: boolean,
  ) {
    this.held = hold ? [] : undefined;
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    const readable = new ReadableStream<AnyMessage>({ start: (controller) => void (this.enqueue = (m) => controller.enqueue(m)) });
    const writable = new WritableStream<AnyMessage>({
      write: (m) => {
        if (!this.socket.destroyed) this.socket.write(`${JSON.stringify({ t: 'm', m })}\n`);
      },
    });
    this.stream = { readable, writable };
    // A window that detached on purpose is going away: its turn must not end here (the next window takes it).
    socket.on('close', () => {
      if (!this.detached) this.gone({ code: null, signal: RELAY_LOST });
    });
  }

  /**
   * Connects to the relay in `dir` (its socket and secret there) and authenticates. `hold`: keep the agent's
   * messages until {@link flow} (a re-attach, whose replay must wait for the adopted turn).
   */
  static async attach(dir: string, socketPath: string, relayPid: number, stderr: StderrLog, log: Logger, hold = false, epoch?: number): Promise<RelayedAgent> {
    const secret = (await fs.readFile(path.join(dir, relayFileNames.secret), 'utf8')).trim();
    const socket = net.connect(socketPath);
    socket.on('error', (error) => log.debug(`relay ${relayPid}: ${error.message}`));
    const frames: RelayFrame[] = [];
    const box: { agent?: RelayedAgent } = {};
    let onWelcome!: (w: Welcome | Error) => void;
    const welcomed = new Promise<Welcome | Error>((resolve) => (onWelcome = resolve));
    socket.on(
      'data',
      lineSplitter(
        (line) => {
          let frame: RelayFrame;
          try {
            frame = JSON.parse(line) as RelayFrame;
          } catch {
            return void socket.destroy();
          }
          if (box.agent) return box.agent.onFrame(frame);
          if (frame.t === 'welcome') onWelcome(frame);
          else if (frame.t === 'refused') onWelcome(new VigilError('AGENT_FAILED', `The agent's relay refused this window: ${frame.reason}.`, { cause: { refused: frame.reason } }));
          else frames.push(frame);
        },
        () => socket.destroy(),
      ),
    );
    socket.once('close', () => onWelcome(new VigilError('AGENT_FAILED', 'The agent relay closed the connection before it was ready.')));
    socket.once('connect', () => socket.write(`${JSON.stringify({ t: 'hello', v: RELAY_PROTOCOL, secret, ...(epoch !== undefined ? { epoch } : {}) })}\n`));
    const welcome = await untilAborted(welcomed, timeoutSignal(welcomeMs), () => new VigilError('AGENT_TIMEOUT', `The agent relay (pid ${relayPid}) did not answer within ${welcomeMs / 1000} s.`));
    if (welcome instanceof Error) {
      socket.destroy();
      throw welcome;
    }
    if (welcome.v !== RELAY_PROTOCOL) {
      socket.destroy();
      throw new VigilError('AGENT_FAILED', `The agent's relay is from another version of Vigil (protocol ${welcome.v}, this one speaks ${RELAY_PROTOCOL}).`, { cause: { relayProtocol: welcome.v } });
    }
    const agent = (box.agent = new RelayedAgent(socket, relayPid, welcome, stderr, log, hold));
    for (const frame of frames) agent.onFrame(frame);
    return agent;
  }

  get pid(): number | undefined {
    return this.welcome.agentPid;
  }

  get exit(): AgentExit | undefined {
    return this.exitInfo;
  }

  get recentStderr(): string {
    return this.stderr.tail;
  }

  finalStderr(): Promise<string> {
    return Promise.resolve(this.stderr.tail);
  }

  heldPromptAnswer(acpSessionId: string): boolean {
    return (this.held ?? []).some((f) => f.t === 'o' && f.method === 'session/prompt' && (f.sessionId === undefined || f.sessionId === acpSessionId));
  }

  /** Lets the held messages (a re-attach's replay) and every later one through. */
  flow(): void {
    const held = this.held;
    this.held = undefined;
    for (const frame of held ?? []) this.onFrame(frame);
  }

  /** Answers to requests of an earlier window, as they come (those already here first). */
  onOrphan(listener: (orphan: Orphan) => void): void {
    this.orphanListener = listener;
    for (const orphan of this.orphans.splice(0)) listener(orphan);
  }

  ackAfter(stored: (() => Promise<void>) | undefined): void {
    this.stored = stored;
  }

  /**
   * The window goes (reload, close) while a turn runs: the relay keeps the agent and starts its deadline.
   * What was handed on is stored and acknowledged first, so the relay does not replay it to the next window.
   */
  async detach(): Promise<void> {
    if (this.detached || this.socket.destroyed) return;
    this.detached = true;
    await new Promise((resolve) => setImmediate(resolve));
    const upTo = this.acked;
    // Bounded: a window that cannot store in time leaves the rest unacknowledged, and the next one gets it again.
    const stored = this.stored ? this.stored().then(() => true, () => false) : Promise.resolve(true);
    const inTime = await untilAborted(stored, timeoutSignal(detachStoreMs), () => false);
    if (this.socket.destroyed) return;
    if (inTime && upTo > 0) this.socket.write(`${JSON.stringify({ t: 'ack', s: upTo })}\n`);
    this.socket.end(`${JSON.stringify({ t: 'bye' })}\n`);
  }

  async kill(): Promise<AgentExit> {
    if (this.exitInfo === undefined) {
      try {
        await killProcessTree(this.relayPid);
        if (this.welcome.agentPid && isAlive(this.welcome.agentPid)) await killProcessTree(this.welcome.agentPid);
      } catch (error) {
        this.log.error(`killing the agent's relay ${this.relayPid} failed: ${(error as Error).message}`);
      }
    }
    return this.exited;
  }

  private onFrame(frame: RelayFrame): void {
    if (frame.t === 'replayed') return this.replayDone();
    if (this.held && frame.t !== 'err') {
      this.held.push(frame);
      return;
    }
    switch (frame.t) {
      case 'm':
        if (typeof frame.m === 'object' && frame.m !== null) this.enqueue(frame.m as AnyMessage);
        else this.log.warn(`the agent wrote a line that is not a JSON-RPC message; ignored`);
        this.ack(frame.s);
        return;
      case 'o': {
        const orphan: Orphan = { method: frame.method, ...(frame.sessionId ? { sessionId: frame.sessionId } : {}), message: frame.m as Record<string, unknown> };
        if (this.orphanListener) this.orphanListener(orphan);
        else this.orphans.push(orphan);
        this.ack(frame.s);
        return;
      }
      case 'err':
        this.stderr.line(frame.line);
        return;
      case 'exit':
        this.endReason = frame.reason;
        this.gone({ code: frame.code, signal: frame.signal });
        return;
      default:
        return;
    }
  }

  /**
   * Acknowledged once per turn of the event loop, and during a turn only once the turn stored what it was
   * handed: the relay forgets a message only when a killed window could no longer lose it.
   */
  private ack(seq: number): void {
    this.acked = Math.max(this.acked, seq);
    if (this.ackQueued) return;
    this.ackQueued = true;
    setImmediate(() => {
      const upTo = this.acked;
      const send = () => {
        this.ackQueued = false;
        if (!this.socket.destroyed && !this.detached) this.socket.write(`${JSON.stringify({ t: 'ack', s: upTo })}\n`);
        if (this.acked > upTo) this.ack(this.acked);
      };
      const stored = this.stored;
      // Not stored (the turn's writes were refused: another window owns it now): the relay keeps it for that one.
      if (stored) void stored().then(send, () => (this.ackQueued = false));
      else send();
    });
  }

  private gone(exit: AgentExit): void {
    this.replayDone();
    if (this.exitInfo) return;
    this.exitInfo = exit;
    this.socket.destroy();
    this.resolveExit(exit);
  }
}
