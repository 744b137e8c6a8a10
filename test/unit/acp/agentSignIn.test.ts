// A third-party agent that dies at start or needs signing in, under the real supervisor: the turn
// ends with what happened and what to do (remedies), and each sign-in method leads to a turn that runs.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AcpAgentHandle } from '../../../src/extension/core/acp/acpAgentHandle';
import { customLaunch, type LaunchSpec } from '../../../src/extension/core/acp/agentLaunch';
import { AgentProcess } from '../../../src/extension/core/acp/agentProcess';
import { Redactor } from '../../../src/extension/core/common/redactor';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { AcpHarness } from './acpHarness';

const authAgent = path.resolve(__dirname, '../../fixtures/agents/fakeAuthAgent.js');

describe('third-party agent: start failures and sign-in', function () {
  this.timeout(40_000);
  let h: AcpHarness | undefined;
  let dir = '';
  let env: Record<string, string> = {};
  let flags: string[] = [];
  let authMethodId: string | undefined;
  const redactor = new Redactor();

  const launch = (): LaunchSpec => ({
    ...customLaunch({ command: process.execPath, args: [authAgent, ...flags], env: { FAKE_AUTH_STATE: path.join(dir, 'signed-in'), ...env } }),
    secretEnv: Object.keys(env),
    redactor,
    ...(authMethodId ? { authMethodId } : {}),
  });

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-auth-'));
    env = {};
    flags = [];
    authMethodId = undefined;
  });

  afterEach(async () => {
    await h?.dispose();
    h = undefined;
    await fs.rm(dir, { recursive: true, force: true });
  });

  const handle = async () => (await h!.agents.get('session-1')) as AcpAgentHandle;

  for (const [flag, phase] of [['--exit-at-start', 'initialize'], ['--exit-at-new', 'session/new']] as const) {
    it(`an agent that exits during ${phase} ends the turn with its exit code, stderr and Open Log`, async () => {
      flags = [flag];
      h = await AcpHarness.create({ launch });
      const ended = await h.turn('hello');
      assert.equal(ended.reason, 'failed');
      assert.match(ended.message ?? '', /^The agent exited \(code 3\) while starting\./);
      assert.match(ended.message ?? '', /CODEX_HOME points to "\/nowhere\/codex-home", but that path does not exist/);
      assert.ok(!/ACP connection closed/i.test(ended.message ?? ''));
      assert.deepEqual(ended.remedies, ['openLog']);
    });
  }

  it('an agent that exits at the first prompt says so, and the next message starts it again', async () => {
    flags = ['--exit-at-prompt'];
    h = await AcpHarness.create({ launch });
    await fs.writeFile(path.join(dir, 'signed-in'), 'fake-login');
    const ended = await h.turn('hello');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /^The agent exited \(code 3\) during the turn\.\nIts last output:\n[^]*CODEX_HOME points to/);
    assert.deepEqual(ended.remedies, ['openLog']);
  });

  it('a launcher that cannot find its binary, a missing command and a non-executable one name vigil.agent and offer Open Settings', async () => {
    flags = ['--launcher-missing'];
    h = await AcpHarness.create({ launch });
    let ended = await h.turn('hello');
    assert.match(ended.message ?? '', /exited \(code 127\)[^]*fake-agent-binary: not found[^]*vigil\.agent/);
    assert.deepEqual(ended.remedies, ['openSettings', 'openLog']);
    await h.dispose();
    h = await AcpHarness.create({ launch: () => customLaunch({ command: path.join(dir, 'no-such-agent') }) });
    ended = await h.turn('hello');
    assert.match(ended.message ?? '', /was not found\. Install it, or fix the command in the vigil\.agent setting/);
    assert.deepEqual(ended.remedies, ['openSettings', 'openLog']);
    await h.dispose();
    const plain = path.join(dir, 'not-executable');
    await fs.writeFile(plain, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    h = await AcpHarness.create({ launch: () => customLaunch({ command: plain }) });
    ended = await h.turn('hello');
    assert.match(ended.message ?? '', /cannot be run \(not executable, or permission denied\)/);
    assert.deepEqual(ended.remedies, ['openSettings', 'openLog']);
  });

  it('auth required at session/new: the turn offers Sign in…; the agent method signs in and the next turn runs', async () => {
    h = await AcpHarness.create({ launch });
    const ended = await h.turn('hello');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /needs you to sign in \("Authentication required"\)\. It offers: Log in with Fake; Use FAKE_API_KEY; Log in in a terminal\./);
    assert.deepEqual(ended.remedies, ['signIn', 'openLog']);
    const agent = await handle();
    const info = agent.authInfo!;
    assert.deepEqual(info.methods.map((m) => `${m.kind}:${m.id}`), ['agent:fake-login', 'envVar:fake-key', 'terminal:fake-terminal']);
    assert.equal(info.logout, true);
    assert.equal(info.builtin, false);
    await agent.signIn('fake-login');
    const again = await h.turn('hello again');
    assert.equal(again.reason, 'completed', again.message);
    assert.match(h.agentText(), /signed in with fake-login: hello again/);
  });

  it('env_var: the value reaches the agent at its next start, it authenticates with the method, and the value is never logged', async () => {
    h = await AcpHarness.create({ launch });
    assert.equal((await h.turn('hello')).reason, 'failed');
    env = { FAKE_API_KEY: 'sk-fake-secret-123456' };
    authMethodId = 'fake-key';
    await (await handle()).signIn('fake-key');
    const ended = await h.turn('with key');
    assert.equal(ended.reason, 'completed', ended.message);
    assert.match(h.agentText(), /signed in with fake-key: with key/);
    await h.waitFor(() => h!.logged('using key'), 'the agent’s stderr line');
    assert.ok(!h.logs.some((l) => l.message.includes('sk-fake-secret-123456')), 'the key is redacted from the log');
    // Stored method only (as after a window reload): it is authenticated with before session/new, no sign-in needed.
    await fs.rm(path.join(dir, 'signed-in'));
    await (await handle()).restart('test');
    assert.equal((await h.turn('after restart')).reason, 'completed');
  });

  it('a refused sign-in says why and leaves the agent stopped', async () => {
    h = await AcpHarness.create({ launch });
    env = { FAKE_API_KEY: 'wrong-key-000' };
    await assert.rejects((await handle()).signIn('fake-key'), /refused by the provider/);
    assert.equal((await handle()).pid, undefined);
    await assert.rejects((await handle()).signIn('no-such-method'), /no longer offers that sign-in method/);
  });

  it('auth error in the prompt (Gemini’s words) is a PROVIDER_AUTH failure with Sign in…', async () => {
    flags = ['--auth-in-prompt'];
    h = await AcpHarness.create({ launch });
    const ended = await h.turn('hello');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /needs you to sign in \("Gemini API key is missing"\)/);
    assert.deepEqual(ended.remedies, ['signIn', 'openLog']);
  });

  it('sign-out calls logout, and the next turn needs signing in again', async () => {
    h = await AcpHarness.create({ launch });
    const agent = await handle();
    await agent.signIn('fake-login');
    assert.equal((await h.turn('one')).reason, 'completed');
    await agent.logout();
    const ended = await h.turn('two');
    assert.equal(ended.reason, 'failed');
    assert.deepEqual(ended.remedies, ['signIn', 'openLog']);
    // Sign-out with no agent running starts one just for logout.
    await agent.signIn('fake-login');
    await agent.restart('test');
    await agent.logout();
    await assert.rejects(fs.access(path.join(dir, 'signed-in')));
  });

  it('inspectAuth starts the agent only for initialize when it never ran', async () => {
    h = await AcpHarness.create({ launch });
    const info = await (await handle()).inspectAuth();
    assert.equal(info.methods.length, 3);
    assert.equal((await handle()).pid, undefined, 'the process started for initialize is stopped');
  });

  it('stderr without newlines is logged in bounded pieces, not buffered without end', async () => {
    const lines: string[] = [];
    const logger = { ...silentLogger, info: (m: string | Error) => void lines.push(String(m)) };
    const script = 'process.stderr.write("y".repeat(300000), () => process.exit(0))';
    const agent = await AgentProcess.start(customLaunch({ command: process.execPath, args: ['-e', script] }), logger, process.cwd());
    await agent.exited;
    const tail = await agent.finalStderr();
    assert.ok(lines.length >= 4, `pieces: ${lines.length}`);
    assert.ok(lines.every((l) => l.length < 2_200), 'every logged piece is cut');
    assert.ok(tail.length < 25 * 2_010);
  });
});
