// A second window following a session starts the session's agent (a picker, a verify, a sign-in): the relay
// another window is attached to (its agent, its turn) is left alone; one no window is attached to is replaced.

import assert from 'node:assert/strict';
import { isAlive } from '../../../src/extension/core/common/processTree';
import { StderrLog } from '../../../src/extension/core/acp/stderrLog';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { RelayAgents } from '../../../src/extension/core/relay/relayAgents';
import { fakeSpec, openSession, RawClient, startWorld, stopWorld, until, type World } from './relayWorld';

const timings = () => ({ graceMs: 60_000, livenessMs: 60_000, killGraceMs: 1_000 });

describe('a second window starts the agent of a session whose relay runs', function () {
  this.timeout(30_000);
  let world: World;
  const started: number[] = [];
  afterEach(async () => {
    for (const pid of started.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    if (world) await stopWorld(world);
  });

  async function startFromSecondWindow() {
    const spec = fakeSpec();
    return new RelayAgents(world.root, timings, silentLogger).start(world.place.sessionId, spec, world.root, new StderrLog(spec, silentLogger));
  }

  it('refuses, with what to do, and ends neither the relay another window is attached to nor the turn running there', async () => {
    world = await startWorld();
    const a = await RawClient.connect(world.place);
    await a.next((f) => f.t === 'welcome', 'welcome');
    const sessionId = await openSession(a, world.root);
    a.request(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'permission-then-stream 3' }] });
    const asked = await a.next((f) => f.t === 'm' && f.m?.method === 'session/request_permission', 'the permission request');

    const second = await startFromSecondWindow().then(
      async (channel) => {
        await channel.kill();
        return undefined;
      },
      (error: Error) => error,
    );
    assert.match(second?.message ?? 'it started, ending the relay of the other window', /runs in another Vigil window.*continue the session there/);
    assert.ok(isAlive(world.relayPid) && isAlive(world.agentPid), 'the relay and its agent still run');
    assert.equal(a.closed, false, 'the attached window keeps its connection');
    // The turn there goes on to its end.
    a.send({ t: 'm', m: { jsonrpc: '2.0', id: asked.m.id, result: { outcome: { outcome: 'selected', optionId: 'y' } } } });
    assert.equal(((await a.answer(3)).result as { stopReason: string }).stopReason, 'end_turn');
  });

  it('replaces a relay no window is attached to, as before', async () => {
    world = await startWorld();
    const channel = await startFromSecondWindow();
    if (channel.pid !== undefined) started.push(channel.pid);
    await until(() => (!isAlive(world.relayPid) && !isAlive(world.agentPid)) || undefined, 'the old relay and its agent to end');
    assert.notEqual(channel.pid, world.agentPid);
    await channel.kill();
  });
});
