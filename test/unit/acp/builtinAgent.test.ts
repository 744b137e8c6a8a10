// The built-in agent hosted by the ACP client under the supervisor with a real OpenAI-compatible server:
// history survives a restart of the process, a 401 pauses wakeups, and the key reaches only the agent.

import * as assert from 'node:assert/strict';
import type { AcpAgentHandle } from '../../../src/extension/core/acp/acpAgentHandle';
import { builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { ScriptedOpenAiServer } from '../../fixtures/models/scriptedOpenAiServer';
import { ensureAgentBundle } from '../agent/agentBundle';
import { AcpHarness } from './acpHarness';

describe('built-in agent under the supervisor with an OpenAI-compatible server', function () {
  this.timeout(40_000);
  let h: AcpHarness | undefined;
  let server: ScriptedOpenAiServer;

  beforeEach(async () => {
    server = await ScriptedOpenAiServer.start();
  });
  afterEach(async () => {
    await h?.dispose();
    await server.close();
  });

  const start = async () => {
    const bundle = await ensureAgentBundle();
    h = await AcpHarness.create({
      launch: () => builtinLaunch({ agentScript: bundle, execPath: process.execPath, model: { provider: 'openai-compatible', baseUrl: server.url, name: 'm' }, apiKey: 'sk-secret-123' }),
    });
    return h;
  };

  it('a killed agent is replaced by a fresh process that continues with the session history', async () => {
    const harness = await start();
    server.reply({ kind: 'text', chunks: ['The answer is 42.'] });
    assert.equal((await harness.turn('What is the answer?')).reason, 'completed');
    const handle = (await harness.agents.get('session-1')) as AcpAgentHandle;
    const firstPid = handle.pid;
    await handle.kill('test: simulate an abort escalation');
    server.reply({ kind: 'text', chunks: ['You asked about the answer.'] });
    assert.equal((await harness.turn('What did I ask?')).reason, 'completed');
    assert.notEqual(handle.pid, firstPid);
    const messages = server.requests[1].messages as Array<{ role: string; content: string }>;
    assert.deepEqual(
      messages.filter((m) => m.role !== 'system').map((m) => [m.role, m.content]),
      [
        ['user', 'What is the answer?'],
        ['assistant', 'The answer is 42.'],
        ['user', 'What did I ask?'],
      ],
    );
  });

  it('HTTP 401 fails the turn with a message naming the fix, pauses wakeups, and never logs the key', async () => {
    const harness = await start();
    server.reply({ kind: 'status', status: 401, body: { error: { message: 'invalid key sk-secret-123' } } });
    const ended = await harness.turn('hi');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /rejected the API key.*Set API Key/);
    assert.equal(await harness.sup.isPaused('session-1'), true);
    assert.ok(!harness.logs.some((l) => l.message.includes('sk-secret-123')), 'the key never reaches the log');
  });
});
