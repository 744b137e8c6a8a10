// The host tells the relay a message arrived only once the running turn stored it: a window killed between
// receiving and storing loses nothing (the next window is given it again), and a window that goes cleanly
// stores, then acknowledges, then says bye, so the next window is given nothing twice.

import assert from 'node:assert/strict';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { StderrLog } from '../../../src/extension/core/acp/stderrLog';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { RelayedAgent } from '../../../src/extension/core/relay/relayClient';
import { fakeSpec, RawClient, startWorld, stopWorld, until, type World } from './relayWorld';

/** A window's end of the relay, speaking JSON-RPC through the host's client, as the ACP connection does. */
async function hostWindow(world: World) {
  const agent = await RelayedAgent.attach(world.place.dir, world.place.socket, world.relayPid, new StderrLog(fakeSpec(), silentLogger), silentLogger);
  const writer = agent.stream.writable.getWriter();
  const reader = agent.stream.readable.getReader();
  const received: Record<string, unknown>[] = [];
  const answer = async (id: number) => {
    for (;;) {
      const found = received.find((m) => m.id === id && m.method === undefined);
      if (found) return found;
      const { value } = await reader.read();
      received.push(value as Record<string, unknown>);
    }
  };
  const call = async (id: number, method: string, params: Record<string, unknown>) => {
    await writer.write({ jsonrpc: '2.0', id, method, params } as AnyMessage);
    return answer(id);
  };
  return { agent, call };
}

/** A turn streamed to its end through `stored`'s gate; returns the window and the agent's session id. */
async function streamedTurn(world: World, stored: () => Promise<void>) {
  const w = await hostWindow(world);
  await w.call(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  const sessionId = ((await w.call(2, 'session/new', { cwd: world.root, mcpServers: [] })).result as { sessionId: string }).sessionId;
  w.agent.ackAfter(stored);
  await w.call(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'stream' }] });
  return w;
}

/** What the next window is given again of the earlier turn's answer. */
async function replayedToNext(world: World): Promise<string> {
  const next = await RawClient.connect(world.place);
  await next.next((f) => f.t === 'welcome', 'welcome');
  // The fake agent answers a new request at once: everything replayed came before that answer.
  next.request(9, 'session/new', { cwd: world.root, mcpServers: [] });
  await next.answer(9);
  return next.chunks().join('');
}

describe('agent relay: acknowledged once stored', function () {
  this.timeout(30_000);
  let world: World;
  afterEach(async () => {
    if (world) await stopWorld(world);
  });

  it('a window killed before its turn stored what it received: the next window is given all of it again', async () => {
    world = await startWorld();
    const w = await streamedTurn(world, () => new Promise<void>(() => undefined));
    // As a SIGKILLed extension host: the socket just goes, no bye.
    (w.agent as unknown as { socket: { destroy(): void } }).socket.destroy();
    const again = await replayedToNext(world);
    for (let i = 0; i < 5; i += 1) assert.equal(again.split(`part ${i} `).length, 2, `part ${i} given again once: ${again}`);
  });

  it('a window that goes cleanly stores, acknowledges, then says bye: the next window is given nothing twice', async () => {
    world = await startWorld();
    let stores = 0;
    const w = await streamedTurn(world, async () => void (stores += 1));
    await w.agent.detach();
    assert.ok(stores > 0, 'the turn was asked to store before the bye');
    assert.equal(await replayedToNext(world), '', 'nothing the first window stored is given again');
  });

  it('a window that cannot store in time says bye unacknowledged: the next window is given it again', async () => {
    world = await startWorld();
    const w = await streamedTurn(world, () => new Promise<void>(() => undefined));
    await w.agent.detach();
    await until(() => (w.agent as unknown as { socket: { destroyed: boolean } }).socket.destroyed || undefined, 'the bye to close the socket');
    assert.match(await replayedToNext(world), /part 4 /);
  });
});
