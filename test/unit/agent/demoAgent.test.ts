// The demo provider over real stdio: its script mode dictates responses (including a hang that only
// cancel ends), the plain demo is labelled, and session/load replays the history the host hands over.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentUnderTest } from './agentHarness';

describe('built-in agent: demo provider and session/load', function () {
  this.timeout(30_000);
  let agent: AgentUnderTest | undefined;
  let scriptDir: string;

  beforeEach(async () => {
    scriptDir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-script-'));
  });
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
    await fs.rm(scriptDir, { recursive: true, force: true });
  });

  it('script mode plays each scripted response in order, and a scripted hang ends only by cancel', async () => {
    const script = path.join(scriptDir, 'script.json');
    await fs.writeFile(
      script,
      JSON.stringify({
        responses: [
          { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
          { chunks: ['The file ', 'says hi.'] },
          { chunks: ['stuck '], hangAfterChunks: 1 },
        ],
      }),
    );
    agent = await AgentUnderTest.start({ provider: 'demo', scriptPath: script }, { files: { 'a.txt': 'hi' } });
    assert.equal((await agent.prompt('read it')).stopReason, 'end_turn');
    assert.equal(agent.text(), 'The file says hi.');
    assert.deepEqual(agent.requests, ['read a.txt']);
    const pending = agent.prompt('hang now');
    await agent.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text === 'stuck ', 'the chunk before the hang');
    await agent.cancel();
    assert.equal((await pending).stopReason, 'cancelled');
  });

  it('a script that cannot be read is a clear error naming the setting', async () => {
    agent = await AgentUnderTest.start({ provider: 'demo', scriptPath: path.join(scriptDir, 'missing.json') });
    await assert.rejects(agent.prompt('x'), /demo script .*missing\.json cannot be used.*/);
  });

  it('the plain demo labels itself as a demo and starts the tour by listing the workspace', async () => {
    agent = await AgentUnderTest.start({ provider: 'demo', demoBuildSeconds: 0 }, { files: { 'README.md': '# hi\n' } });
    agent.permission = 'reject';
    await agent.prompt('hello');
    assert.match(agent.text(), /demo model \(offline, scripted/);
    assert.deepEqual(agent.requests.slice(0, 2), ['list .', 'read README.md']);
  });

  it('session/load replays the history handed over in _meta and continues from it', async () => {
    const script = path.join(scriptDir, 'script.json');
    await fs.writeFile(script, JSON.stringify({ responses: [{ text: 'continuing' }] }));
    agent = await AgentUnderTest.start(
      { provider: 'demo', scriptPath: script },
      { load: { sessionId: 'restored-1', history: [{ role: 'user', text: 'earlier question' }, { role: 'assistant', text: 'earlier answer' }] } },
    );
    assert.deepEqual(
      agent.updates.map((u) => [u.sessionUpdate, u.sessionUpdate === 'user_message_chunk' || u.sessionUpdate === 'agent_message_chunk' ? (u.content as { text: string }).text : '']),
      [
        ['user_message_chunk', 'earlier question'],
        ['agent_message_chunk', 'earlier answer'],
      ],
    );
    assert.equal((await agent.prompt('go on')).stopReason, 'end_turn');
  });
});
