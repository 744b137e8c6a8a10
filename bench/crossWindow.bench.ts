// Many-windows benchmarks: a Stop pressed in another window → the holder's turn settled and the
// requester told (through the store: abort request, fs.watch, the holder's user-abort path, ack).

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CooperativeAgent, percentile, print } from './support/cooperativeAgent';
import { systemClock } from '../src/extension/core/ports/clock';
import { silentLogger } from '../src/extension/core/ports/logger';
import { CrossWindow } from '../src/extension/core/crosswindow/crossWindow';
import { TurnSupervisor } from '../src/extension/core/supervisor/turnSupervisor';

async function window(root: string, id: string): Promise<{ sup: TurnSupervisor; cw: CrossWindow }> {
  const sup = new TurnSupervisor({
    storageRoot: root, clock: systemClock, logger: silentLogger, agents: new CooperativeAgent(), windowId: id, leaseTtlMs: 30_000,
    settings: () => ({ enabled: true, timeoutMs: 60_000, toolTimeoutMs: 60_000, graceMs: 1_000 }),
  });
  await sup.sessions.init();
  // The production fallback poll: the figure is what fs.watch delivers, with the poll as the backstop.
  const cw = new CrossWindow({ storageRoot: root, windowId: id, clock: systemClock, logger: silentLogger, supervisor: sup, agentPid: () => undefined, approvalTimeoutMs: () => 600_000, showing: () => undefined });
  await cw.start();
  return { sup, cw };
}

async function remoteAbort(): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-cw-'));
  const a = await window(root, 'window-a');
  const b = await window(root, 'window-b');
  await a.sup.sessions.create('bench', 's1');
  const settledAt: number[] = [];
  const acked: number[] = [];
  for (let i = 0; i < 60; i += 1) {
    const r = await a.sup.startTurn('s1', 'abort me from elsewhere', { source: 'user' });
    if (r.kind !== 'started') throw new Error('turn did not start');
    await new Promise((resolve) => setImmediate(resolve));
    const t0 = performance.now();
    const result = b.cw.control.abort('s1');
    const ended = await r.ended;
    settledAt.push(performance.now() - t0);
    const got = await result;
    acked.push(performance.now() - t0);
    if (got.kind !== 'acknowledged' || ended.reason !== 'aborted') throw new Error(`unexpected: ${JSON.stringify(got)} / ${ended.reason}`);
  }
  print(`remote abort (another window) → holder's turn settled p50 (${settledAt.length} aborts)`, percentile(settledAt, 50), 'ms');
  print("remote abort → holder's turn settled p99", percentile(settledAt, 99), 'ms');
  print('remote abort → requester has the acknowledgement p50', percentile(acked, 50), 'ms');
  print('remote abort → requester has the acknowledgement p99', percentile(acked, 99), 'ms');
  for (const w of [a, b]) {
    w.cw.dispose();
    w.sup.dispose();
  }
  await fs.rm(root, { recursive: true, force: true });
}

void remoteAbort().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
