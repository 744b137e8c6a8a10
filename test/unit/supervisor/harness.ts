// Builds a supervisor over a temp storage root, a FakeClock and a FakeAgent, and records what it says.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../../src/extension/core/ports/logger';
import type { LivenessSettings } from '../../../src/extension/core/supervisor/livenessSettings';
import { TurnSupervisor, type TurnSupervisorOptions } from '../../../src/extension/core/supervisor/turnSupervisor';
import type { SupervisorEvent, SupervisorHooks } from '../../../src/extension/core/supervisor/supervisorEvents';
import type { StartTurnResult, TurnEnded } from '../../../src/extension/core/ports/turns';
import { FakeClock, flushMicrotasks } from '../../fakes/fakeClock';
import { FakeAgent } from './fakeAgent';

export interface LogRecord {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

export function recordingLogger(records: LogRecord[]): Logger {
  const at = (level: LogRecord['level']) => (m: string | Error) => void records.push({ level, message: m instanceof Error ? m.message : m });
  return { trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export async function tempRoot(prefix = 'vigil-test-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

/** Waits for a condition that real I/O will make true; polls once per event-loop turn, never sleeps. */
export async function waitFor(predicate: () => boolean, what = 'condition', realMs = 10_000): Promise<void> {
  const deadline = Date.now() + realMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export const SETTINGS: LivenessSettings = { enabled: true, timeoutMs: 10_000, toolTimeoutMs: 60_000, graceMs: 5_000 };
export const TTL_MS = 3_000;

export class Harness {
  readonly clock = new FakeClock();
  readonly agent = new FakeAgent();
  readonly logs: LogRecord[] = [];
  readonly events: SupervisorEvent[] = [];
  readonly hooks: SupervisorHooks = {};
  refreshes: Array<{ at: number; result: string }> = [];
  refreshStarts: number[] = [];
  sup!: TurnSupervisor;
  sessionId = 'stalled-session';

  static async create(settings: Partial<LivenessSettings> = {}, extra: Partial<TurnSupervisorOptions> = {}): Promise<Harness> {
    const h = new Harness();
    const root = await tempRoot();
    h.hooks.onLeaseRefresh = (info) => h.refreshes.push({ at: h.clock.now(), result: info.result });
    h.sup = new TurnSupervisor({
      storageRoot: root,
      clock: h.clock,
      logger: recordingLogger(h.logs),
      agents: h.agent,
      settings: () => ({ ...SETTINGS, ...settings }),
      windowId: 'window-a',
      leaseTtlMs: TTL_MS,
      hooks: h.hooks,
      activityThrottleMs: 0,
      ...extra,
    });
    const lease = h.sup.lease;
    const refresh = lease.refresh.bind(lease);
    lease.refresh = (token) => {
      h.refreshStarts.push(h.clock.now());
      return refresh(token);
    };
    h.sup.subscribe((e) => h.events.push(e));
    await h.sup.sessions.init();
    await h.sup.sessions.create('test session', h.sessionId);
    return h;
  }

  /** Starts a user turn and waits until the agent has the prompt. */
  async start(source: 'user' | 'wakeup' | 'resume' = 'user'): Promise<{ turnId: string; ended: Promise<TurnEnded> }> {
    const result: StartTurnResult = await this.sup.startTurn(this.sessionId, 'new message', { source });
    if (result.kind !== 'started') throw new Error(`turn did not start: ${JSON.stringify(result)}`);
    await waitFor(() => this.agent.current !== undefined, 'the agent to receive the prompt');
    return { turnId: result.turnId, ended: result.ended };
  }

  of<T extends SupervisorEvent['type']>(type: T): Array<Extract<SupervisorEvent, { type: T }>> {
    return this.events.filter((e): e is Extract<SupervisorEvent, { type: T }> => e.type === type);
  }

  logged(level: LogRecord['level'], ...parts: string[]): boolean {
    return this.logs.some((r) => r.level === level && parts.every((p) => r.message.includes(p)));
  }

  /** Advances fake time in steps, letting real lease I/O started by each step finish. */
  async run(ms: number, step = 500): Promise<void> {
    for (let t = 0; t < ms; t += step) {
      await this.clock.advance(Math.min(step, ms - t));
      await waitFor(() => this.refreshes.length >= this.refreshStarts.length, 'lease refresh I/O');
      await flushMicrotasks();
    }
  }

  async leaseHolder(): Promise<string | null | undefined> {
    const record = await this.sup.lease.read(this.sessionId);
    return record === undefined ? undefined : (record.holder?.turnId ?? null);
  }
}
