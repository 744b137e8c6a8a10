// An agent's stderr goes to the log through the window's one redactor: launch secrets and known keys are cut out.

import * as assert from 'node:assert/strict';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { AgentProcess } from '../../../src/extension/core/acp/agentProcess';
import { Redactor } from '../../../src/extension/core/common/redactor';
import type { Logger } from '../../../src/extension/core/ports/logger';

describe('agent stderr redaction', function () {
  this.timeout(20_000);

  it('redacts secret vigil.agent env values and keys the redactor already knew, in the log and in the crash tail', async () => {
    const lines: string[] = [];
    const logger: Logger = { trace() {}, debug() {}, info: (m) => lines.push(String(m)), warn: (m) => lines.push(String(m)), error: (m) => lines.push(String(m)) };
    const redactor = new Redactor();
    redactor.add(['stored-key-0123456789']);
    const script = 'const e = process.env; process.stderr.write(`token=${e.AGENT_TOKEN} short=${e.SHORT} pat=${e.MY_PAT}\\nmodel=${e.AGENT_MODEL} dir=${e.AGENT_CONFIG_DIR}\\nstored=${"stored-key-" + "0123456789"}\\n`, () => process.exit(3))';
    const env = { AGENT_TOKEN: 'tok_abcdefgh12345678', SHORT: 'dbg', MY_PAT: 'pat-0123456789', AGENT_MODEL: 'vigil-test-model', AGENT_CONFIG_DIR: '/tmp/agent-config-dir' };
    const spec = {
      ...customLaunch({ command: process.execPath, args: ['-e', script], env, secretEnv: ['MY_PAT'] }),
      redactor,
    };
    const agent = await AgentProcess.start(spec, logger, process.cwd());
    await agent.exited;
    // The exit can be seen before the last stderr bytes were read: wait for that state.
    while (!agent.recentStderr.includes('stored=')) await new Promise((resolve) => setImmediate(resolve));
    const all = `${lines.join('\n')}\n${agent.recentStderr}`;
    assert.ok(!all.includes('tok_abcdefgh12345678') && !all.includes('stored-key-0123456789'), all);
    assert.match(all, /token=«redacted» short=dbg pat=«redacted»/, 'a value too short to be a secret is left alone; a listed one is a secret');
    assert.match(all, /model=vigil-test-model dir=\/tmp\/agent-config-dir/, 'a model name and a path are not secrets');
    assert.match(all, /stored=«redacted»/);
    assert.ok(redactor.redact('tok_abcdefgh12345678') === '«redacted»', 'the launch secret is now known window-wide');
  });
});
