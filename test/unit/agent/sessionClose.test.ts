// The built-in agent's session/close over real stdio: advertised, ends a running turn as cancelled,
// forgets the session (a later prompt on it is refused) and is idempotent for an unknown id.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentUnderTest } from './agentHarness';

describe('built-in agent: session/close', function () {
  this.timeout(30_000);
  let agent: AgentUnderTest | undefined;
  let scriptDir: string;

  beforeEach(async () => {
    scriptDir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-close-'));
  });
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
    await fs.rm(scriptDir, { recursive: true, force: true });
  });

  it('closing a session stops its turn and forgets it; an unknown id is no error', async () => {
    const script = path.join(scriptDir, 'script.json');
    await fs.writeFile(script, JSON.stringify({ responses: [{ chunks: ['stuck '], hangAfterChunks: 1 }] }));
    agent = await AgentUnderTest.start({ provider: 'demo', scriptPath: script });
    assert.ok(agent.initializeResponse?.agentCapabilities?.sessionCapabilities?.close, 'close is advertised');
    assert.ok(!agent.initializeResponse?.agentCapabilities?.sessionCapabilities?.resume, 'resume is not: the host owns the history');
    const pending = agent.prompt('hang now');
    await agent.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk', 'the chunk before the hang');
    assert.deepEqual(await agent.request('session/close', { sessionId: agent.sessionId }), {});
    assert.equal((await pending).stopReason, 'cancelled');
    await assert.rejects(agent.prompt('again'), /unknown session/);
    assert.deepEqual(await agent.request('session/close', { sessionId: 'never-was' }), {});
  });
});
