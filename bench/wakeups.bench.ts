// Wakeup latency figures inside the host: task exit → wakeup admitted (idle session), turn teardown → deferred
// wakeup admitted. What the agent sees (the prompt arriving) is measured by wakeupAtAgent.bench.ts.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EventHub } from '../src/extension/core/common/events';
import type { AdmissionHook, StartTurnResult, TurnEnded, TurnPort } from '../src/extension/core/ports/turns';
import { TaskRegistry } from '../src/extension/core/tasks/taskRegistry';
import { WakeupCoordinator } from '../src/extension/core/wakeups/wakeupCoordinator';
import { WakeupOutbox } from '../src/extension/core/wakeups/wakeupOutbox';
import { loadNote } from './support/cpuHogs';
import { benchWrapper } from './support/wrapperChoice';

/** A supervisor stand-in that admits at once and notes the wall time (ms, sub-ms precision) of each admission. */
class TimingTurns implements TurnPort {
  readonly admitted = new Map<string, number>();
  private readonly active = new Set<string>();
  private readonly teardown = new EventHub<TurnEnded>();
  private hook: AdmissionHook | undefined;
  private waiters = new Map<string, () => void>();
  private n = 0;

  async startTurn(sessionId: string, _prompt: string, options: { source: 'user' | 'wakeup' | 'resume' }): Promise<StartTurnResult> {
    if (this.active.has(sessionId)) return { kind: 'busy' };
    this.active.add(sessionId);
    const turnId = `turn-${++this.n}`;
    const contribution = await this.hook?.({ sessionId, turnId, source: options.source });
    contribution?.onPersisted();
    this.admitted.set(sessionId, wallMs());
    this.waiters.get(sessionId)?.();
    return { kind: 'started', turnId, ended: new Promise(() => undefined) };
  }

  begin(sessionId: string): void {
    this.active.add(sessionId);
  }

  end(sessionId: string): void {
    this.active.delete(sessionId);
    this.teardown.emit({ sessionId, turnId: 'x', source: 'user', reason: 'completed' });
  }

  whenAdmitted(sessionId: string): Promise<number> {
    const at = this.admitted.get(sessionId);
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => this.waiters.set(sessionId, () => resolve(this.admitted.get(sessionId) as number)));
  }

  hasActiveTurn(sessionId: string): boolean {
    return this.active.has(sessionId);
  }

  onTurnTeardown(listener: (ended: TurnEnded) => void) {
    return this.teardown.subscribe(listener);
  }

  setAdmissionHook(hook: AdmissionHook | undefined): void {
    this.hook = hook;
  }

  isPaused(): boolean {
    return false;
  }
}

function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-wakeups-'));
  const workspace = path.join(root, 'workspace');
  await fs.mkdir(workspace);
  const turns = new TimingTurns();
  const outbox = await WakeupOutbox.open({ storageRoot: root, windowId: 'bench' });
  const coordinator = new WakeupCoordinator({ turns, outbox, sweepIntervalMs: 3_600_000 });
  coordinator.start();
  const registry = await TaskRegistry.open({ storageRoot: root, workspaceFolder: () => workspace, shell: '/bin/sh', wrapper: benchWrapper(), onCompletion: coordinator.onCompletion });
  try {
    // Task exit → wakeup admitted: the command prints its own exit time (ns) as its last act.
    const exitLatencies: number[] = [];
    for (let i = 0; i < 40; i += 1) {
      const sessionId = `idle-${i}`;
      const { terminalId } = await registry.create({ sessionId, command: 'date +%s%N', background: true });
      const admittedAt = await turns.whenAdmitted(sessionId);
      const exitedAt = Number((await registry.output(terminalId)).output.trim()) / 1e6;
      exitLatencies.push(admittedAt - exitedAt);
    }
    console.log(`task exit to wakeup admitted p50: ${percentile(exitLatencies, 50).toFixed(1)} ms (${loadNote()})`);
    console.log(`task exit to wakeup admitted p99: ${percentile(exitLatencies, 99).toFixed(1)} ms (${loadNote()})`);

    // Turn teardown → deferred wakeup admitted.
    const teardownLatencies: number[] = [];
    for (let i = 0; i < 200; i += 1) {
      const sessionId = `deferred-${i}`;
      turns.begin(sessionId);
      await coordinator.onCompletion({
        key: `t-${i}:exit`,
        taskId: `t-${i}`,
        sessionId,
        kind: 'exit',
        command: 'npm test',
        status: 'exited',
        exitCode: 0,
        signal: null,
        output: 'ok\n'.repeat(500),
        outputTruncated: false,
        at: Date.now(),
      });
      const start = wallMs();
      turns.end(sessionId);
      teardownLatencies.push((await turns.whenAdmitted(sessionId)) - start);
    }
    console.log(`turn teardown to deferred wakeup admitted p50: ${percentile(teardownLatencies, 50).toFixed(1)} ms (${loadNote()})`);
    console.log(`turn teardown to deferred wakeup admitted p99: ${percentile(teardownLatencies, 99).toFixed(1)} ms (${loadNote()})`);
  } finally {
    coordinator.dispose();
    await registry.close();
    // The last deliveries are marked after admission, asynchronously: let their outbox writes finish.
    for (let i = 0; i < 200; i += 1) {
      if ((await outbox.entries(`deferred-199`)).every((e) => e.state === 'delivered')) break;
      await new Promise<void>((resolve) => setTimeout(resolve, 10));
    }
    await fs.rm(root, { recursive: true, force: true, maxRetries: 5 });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
