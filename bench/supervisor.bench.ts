// Supervisor benchmarks: stall detection delay, abort → settled, wedged tree kill, touch() cost, transcript appends.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentHandleProvider } from '../src/extension/core/ports/agentHandle';
import { CooperativeAgent, percentile, print } from './support/cooperativeAgent';
import { withCpuHogs } from './support/cpuHogs';
import { systemClock } from '../src/extension/core/ports/clock';
import { silentLogger } from '../src/extension/core/ports/logger';
import { TurnLeaseStore } from '../src/extension/core/lease/turnLease';
import { SessionStore } from '../src/extension/core/store/sessionStore';
import { ActivityClock } from '../src/extension/core/supervisor/activityClock';
import { TurnSupervisor } from '../src/extension/core/supervisor/turnSupervisor';
import type { LivenessSettings } from '../src/extension/core/supervisor/livenessSettings';
import { isDead, ProcessAgent } from '../test/unit/supervisor/processAgent';

async function supervisor(settings: LivenessSettings, agents: AgentHandleProvider) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-'));
  const sup = new TurnSupervisor({ storageRoot: root, clock: systemClock, logger: silentLogger, agents, settings: () => settings, windowId: 'bench', leaseTtlMs: 30_000 });
  await sup.sessions.init();
  await sup.sessions.create('bench', 's1');
  return { sup, root };
}

async function stallDetection(label = ''): Promise<void> {
  const bound = 100;
  const { sup } = await supervisor({ enabled: true, timeoutMs: bound, toolTimeoutMs: 10_000, graceMs: 1_000 }, new CooperativeAgent());
  const delays: number[] = [];
  sup.subscribe((e) => {
    if (e.type === 'stallObserved') delays.push(sup.getSnapshot('s1')!.silenceMs - bound);
  });
  for (let i = 0; i < 60; i += 1) {
    const r = await sup.startTurn('s1', 'stall', { source: 'user' });
    if (r.kind !== 'started') throw new Error(`turn ${i} did not start: ${JSON.stringify(r)}`);
    await r.ended;
  }
  print(`stall detection delay past the bound${label} p50 (${delays.length} stalls, ${bound} ms bound)`, percentile(delays, 50), 'ms');
  print(`stall detection delay past the bound${label} p99`, percentile(delays, 99), 'ms');
}

async function userAbort(): Promise<void> {
  const { sup } = await supervisor({ enabled: true, timeoutMs: 60_000, toolTimeoutMs: 60_000, graceMs: 1_000 }, new CooperativeAgent());
  const times: number[] = [];
  for (let i = 0; i < 60; i += 1) {
    const r = await sup.startTurn('s1', 'abort me', { source: 'user' });
    if (r.kind !== 'started') throw new Error('turn did not start');
    await new Promise((resolve) => setImmediate(resolve));
    const settled = new Promise<number>((resolve) => {
      const off = sup.subscribe((e) => {
        if (e.type === 'turnEnded') {
          off();
          resolve(performance.now());
        }
      });
    });
    const t0 = performance.now();
    await sup.abort('s1', 'bench');
    times.push((await settled) - t0);
    await r.ended;
  }
  print('user abort → turn settled p50 (lease released, UI notified)', percentile(times, 50), 'ms');
  print('user abort → turn settled p99', percentile(times, 99), 'ms');
}

async function wedgedKill(): Promise<void> {
  const grace = 1_000;
  const worst: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const agent = new ProcessAgent('spin');
    try {
      const { sup } = await supervisor({ enabled: true, timeoutMs: 300, toolTimeoutMs: 10_000, graceMs: grace }, agent);
      let dead: Promise<number> | undefined;
      sup.subscribe((e) => {
        if (e.type !== 'abortCommitted') return;
        const committed = performance.now();
        const [proc] = agent.spawned;
        dead = (async () => {
          while (!isDead(proc.child.pid!) || !isDead(proc.grandchildPid)) await new Promise((res) => setTimeout(res, 2));
          return performance.now() - committed;
        })();
      });
      await agent.get();
      const r = await sup.startTurn('s1', 'spin', { source: 'user' });
      if (r.kind !== 'started') throw new Error('turn did not start');
      await r.ended;
      worst.push(await dead!);
    } finally {
      await agent.dispose();
    }
  }
  print(`committed abort → wedged process tree dead, worst of 3 (grace ${grace} ms)`, Math.max(...worst), 'ms');
}

function touchCost(): void {
  const clock = new ActivityClock(systemClock);
  const n = 5_000_000;
  for (let i = 0; i < 100_000; i += 1) clock.touch('warm up');
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i += 1) clock.touch('model: streaming');
  const ns = Number(process.hrtime.bigint() - t0) / n;
  print('touch() cost', ns, 'ns/call');
}

async function transcriptAppends(): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-'));
  const store = new SessionStore(root, silentLogger);
  await store.init();
  await store.create('t', 's1');
  const lease = new TurnLeaseStore(root, systemClock, silentLogger, { ttlMs: 30_000 });
  const got = await lease.acquire('s1', lease.holderFor('bench', 'turn'));
  if (got.kind !== 'acquired') throw new Error('no lease');
  const writer = store.transcriptWriter('s1', lease.guard(got.token));
  const update = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a streamed chunk of model output, about eighty bytes long' } };
  const total = 100_000;
  const t0 = performance.now();
  const pending: Array<Promise<void>> = [];
  // Streamed updates arrive a few at a time; each append is durable (fenced, fsynced) once awaited.
  for (let i = 0; i < total; i += 1) {
    pending.push(writer.append({ type: 'agentUpdate', turnId: 'turn', update }));
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(pending);
  const seconds = (performance.now() - t0) / 1000;
  print('durable transcript append (fenced, fsync per batch)', total / seconds, 'records/s');

  // One more record onto a 10,000-record transcript, durable, while the turn holds its lease.
  const root2 = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-'));
  const store2 = new SessionStore(root2, silentLogger);
  await store2.init();
  await store2.create('t', 's1');
  const lease2 = new TurnLeaseStore(root2, systemClock, silentLogger, { ttlMs: 30_000 });
  const got2 = await lease2.acquire('s1', lease2.holderFor('bench', 'turn'));
  if (got2.kind !== 'acquired') throw new Error('no lease');
  const w2 = store2.transcriptWriter('s1', lease2.guard(got2.token));
  await w2.append(Array.from({ length: 10_000 }, () => ({ type: 'agentUpdate' as const, turnId: 'turn', update })));
  const singles: number[] = [];
  for (let i = 0; i < 30; i += 1) {
    const t = performance.now();
    await w2.append({ type: 'notice', level: 'info', text: `one more ${i}` });
    singles.push(performance.now() - t);
  }
  print('append one record to a 10,000-record transcript p50 (durable)', percentile(singles, 50), 'ms');
  const t1 = performance.now();
  await store2.readTail('s1', 200);
  print('read the last 200 records of a 10,000-record transcript', performance.now() - t1, 'ms');
}

async function main(): Promise<void> {
  // The supervisor's timers are unref'd (they must never keep an extension host alive); this one keeps the bench alive.
  const keepAlive = setInterval(() => undefined, 1_000);
  console.log(`# load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
  touchCost();
  await transcriptAppends();
  await userAbort();
  await stallDetection();
  // The same run with a busy loop on every core for its whole length.
  await withCpuHogs(() => stallDetection(', every core busy'));
  await wedgedKill();
  clearInterval(keepAlive);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
