// A window frozen (suspended) while its turn ran, whose session another window took over meanwhile (the lease,
// and the agent behind the relay with it), wakes with a Stop still due: its kill and its stop of the agent's
// leftovers must not hit the agent and the processes of the other window's new turn (docs/turn-supervisor.md,
// The detached state). Fenced by the lease epoch; the host's own child agent is still stopped as before.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LeftoverReport } from '../../../src/extension/core/ports/agentHandle';
import { systemClock, type Clock } from '../../../src/extension/core/ports/clock';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import type { LivenessSettings } from '../../../src/extension/core/supervisor/livenessSettings';
import { TurnSupervisor } from '../../../src/extension/core/supervisor/turnSupervisor';
import { FakeAgent } from './fakeAgent';

/** The agent as a relayed handle shows it: it outlives the window; its leftover stops are recorded. */
class RelayedFakeAgent extends FakeAgent {
  readonly leftoverStops: string[] = [];
  constructor(private readonly relayed: boolean) {
    super();
  }
  outlivesWindow(): boolean {
    return this.relayed;
  }
  async stopLeftovers(turnId: string): Promise<LeftoverReport | undefined> {
    this.leftoverStops.push(turnId);
    return undefined;
  }
}

const LEASE_TTL_MS = 30_000;
const settings = (): LivenessSettings => ({ enabled: true, timeoutMs: 600_000, toolTimeoutMs: 600_000, graceMs: 50 });
const ahead = (ms: number): Clock => ({ now: () => systemClock.now() + ms, wallNow: () => systemClock.wallNow() + ms, setTimer: systemClock.setTimer });

describe('a frozen window wakes after another took its session over', function () {
  this.timeout(30_000);
  const sid = 'sess-frozen';
  let root: string;
  const sups: TurnSupervisor[] = [];

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-frozen-'));
  });
  afterEach(async () => {
    for (const s of sups.splice(0)) s.dispose();
    await fs.rm(root, { recursive: true, force: true });
  });

  async function window(windowId: string, agent: FakeAgent, clock: Clock = systemClock): Promise<TurnSupervisor> {
    const sup = new TurnSupervisor({ storageRoot: root, clock, logger: silentLogger, agents: agent, settings, windowId, leaseTtlMs: LEASE_TTL_MS });
    await sup.sessions.init();
    sups.push(sup);
    return sup;
  }

  async function inFlight(agent: FakeAgent): Promise<void> {
    while (!agent.current) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Window A's turn is running; B (its clock past A's lease) takes the session with a new turn of its own. */
  async function takenOver(relayed: boolean, takeOver: boolean) {
    const agentA = new RelayedFakeAgent(relayed);
    const a = await window('window-a', agentA);
    await a.sessions.create('frozen window', sid);
    const first = await a.startTurn(sid, 'the turn A began', { source: 'user' });
    assert.equal(first.kind, 'started');
    await inFlight(agentA);
    const agentB = new RelayedFakeAgent(relayed);
    let bEnded: Promise<unknown> = Promise.resolve();
    if (takeOver) {
      // A froze here: its lease lapsed, B reclaimed it and runs a new turn on the agent.
      const b = await window('window-b', agentB, ahead(LEASE_TTL_MS + 1_000));
      const second = await b.startTurn(sid, 'a new turn in B', { source: 'user' });
      assert.equal(second.kind, 'started');
      bEnded = (second as { ended: Promise<unknown> }).ended;
      await inFlight(agentB);
    }
    return { a, agentA, agentB, bEnded, ended: (first as { ended: Promise<{ reason: string }> }).ended };
  }

  for (const cooperates of [true, false]) {
    const how = cooperates ? 'its Stop' : 'its kill after an ignored cancel';
    it(`woken, ${how} neither kills the agent nor stops what it runs for the new turn; its own turn still ends`, async () => {
      const { a, agentA, agentB, bEnded, ended } = await takenOver(true, true);
      if (!cooperates) agentA.onCancel = 'ignore';
      assert.equal(await a.abort(sid), true);
      const end = await ended;
      assert.ok(['aborted', 'interrupted'].includes(end.reason), end.reason);
      assert.ok(!agentA.calls.includes('kill'), `the woken window killed the agent: ${agentA.calls.join(', ')}`);
      assert.deepEqual(agentA.leftoverStops, [], "the woken window stopped the agent's processes");
      assert.ok(agentB.current, "B's turn runs on");
      agentB.finish();
      await bEnded;
    });
  }

  it('without a takeover (or with the agent its own child), Stop still kills and stops the leftovers', async () => {
    for (const relayed of [true, false]) {
      const { a, agentA, agentB, bEnded, ended } = await takenOver(relayed, !relayed);
      agentA.onCancel = 'ignore';
      assert.equal(await a.abort(sid), true);
      await ended;
      assert.ok(agentA.calls.includes('kill'), `relayed ${relayed}: ${agentA.calls.join(', ')}`);
      assert.equal(agentA.leftoverStops.length, 1, `relayed ${relayed}: the leftovers were not stopped`);
      if (agentB.current) agentB.finish();
      await bEnded;
      for (const s of sups.splice(0)) s.dispose();
      await fs.rm(root, { recursive: true, force: true });
      await fs.mkdir(root);
    }
  });
});
