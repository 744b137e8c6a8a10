// Sign-in logic without VS Code: auth methods as agents really send them (and hostile ones), auth
// errors in the agents' own words, the credential key scheme, and start-failure wording.

import * as assert from 'node:assert/strict';
import { RequestError } from '@agentclientprotocol/sdk';
import { agentIdentity, authIndexKey, authInfoOf, envSecretKey, isAuthError, parseAuthMethods, SignInRetry, storedAgentEnv, terminalCommand } from '../../../src/extension/core/acp/agentAuth';
import { boundedTail, exitFailure, stderrTailChars } from '../../../src/extension/core/acp/agentStartFailure';
import type { AgentFailure } from '../../../src/extension/core/ports/agentHandle';

/** What codex-acp 0.16 answers to `initialize` (copied from a run, descriptions shortened). */
const codexInitialize = {
  agentCapabilities: { loadSession: true, auth: { logout: {} } },
  authMethods: [
    { id: 'chatgpt', name: 'Login with ChatGPT', description: 'Use your ChatGPT login with Codex CLI' },
    { type: 'env_var', id: 'codex-api-key', name: 'Use CODEX_API_KEY', description: 'Requires setting the `CODEX_API_KEY` environment variable.', vars: [{ name: 'CODEX_API_KEY' }] },
    { type: 'env_var', id: 'openai-api-key', name: 'Use OPENAI_API_KEY', vars: [{ name: 'OPENAI_API_KEY' }] },
  ],
};

describe('agent auth: methods', () => {
  it('reads codex-acp’s methods: one agent login and two env-var methods; logout is advertised', () => {
    const info = authInfoOf('/x/node_modules/.bin/codex-acp', [], { ...codexInitialize, agentInfo: { name: 'codex-acp', title: 'Codex', version: '0.16.0' } });
    assert.deepEqual(info.methods.map((m) => [m.kind, m.id]), [['agent', 'chatgpt'], ['envVar', 'codex-api-key'], ['envVar', 'openai-api-key']]);
    const key = info.methods[1];
    assert.ok(key.kind === 'envVar');
    assert.deepEqual(key.vars, [{ name: 'CODEX_API_KEY', label: undefined, optional: false }]);
    assert.equal(info.logout, true);
    assert.equal(info.label, 'Codex', 'the agent’s own title');
    assert.equal(authInfoOf('/usr/local/bin/gemini', ['--acp'], {}).label, 'gemini --acp', 'else the command without its folder');
    assert.equal(authInfoOf('x', [], { agentCapabilities: { auth: {} } }).logout, false, 'no logout capability, no sign-out');
  });

  it('reads terminal methods and Copilot/OpenCode’s _meta["terminal-auth"]', () => {
    const methods = parseAuthMethods([
      { type: 'terminal', id: 'tui', name: 'Log in', args: ['--login'], env: { LOGIN_MODE: 'tui', PATH: '/evil' } },
      { id: 'copilot-login', name: 'Log in with GitHub', _meta: { 'terminal-auth': { command: 'copilot', args: ['login'], label: 'Copilot Login' } } },
    ]);
    assert.deepEqual(methods[0], { kind: 'terminal', id: 'tui', name: 'Log in', description: undefined, terminal: { args: ['--login'], env: { LOGIN_MODE: 'tui' } } });
    assert.ok(methods[1].kind === 'agent' && methods[1].terminal?.command === 'copilot');
    const run = terminalCommand({ command: '/bin/agent', args: ['--acp'], env: { HOME: '/h', KEY: 'v' } }, (methods[0] as Extract<(typeof methods)[number], { kind: 'terminal' }>).terminal);
    assert.deepEqual(run, { command: '/bin/agent', args: ['--acp', '--login'], env: { HOME: '/h', KEY: 'v', LOGIN_MODE: 'tui' } });
  });

  it('drops what is malformed or hostile, and bounds what it keeps', () => {
    const methods = parseAuthMethods([
      null,
      'nope',
      { id: '', name: 'empty id' },
      { id: 'x'.repeat(500), name: 'long id' },
      { type: 'mystery', id: 'unknown', name: 'unknown type' },
      { type: 'env_var', id: 'bad-vars', name: 'bad', vars: [{ name: 'PATH' }, { name: 'LD_PRELOAD' }, { name: 'A B' }, { name: '1X' }] },
      { id: 'dup', name: 'first' },
      { id: 'dup', name: 'second' },
      { id: 'ctl', name: `evil\u001b[31mname\u202e${'n'.repeat(1_000)}` },
      { type: 'terminal', id: 'bad-args', name: 'bad', args: ['ok', 7] },
      { id: 'meta', name: 'meta', _meta: { 'terminal-auth': { command: 'a\0b', args: [] } } },
    ]);
    assert.deepEqual(methods.map((m) => m.id), ['dup', 'ctl', 'meta']);
    assert.equal(methods[0].name, 'first');
    // eslint-disable-next-line no-control-regex
    assert.ok(!/[\u0000-\u001f\u202e]/.test(methods[1].name) && methods[1].name.length <= 300);
    assert.ok(methods[2].kind === 'agent' && methods[2].terminal === undefined, 'a command with a NUL is not a command');
    assert.equal(parseAuthMethods({ length: 3 }).length, 0);
    assert.equal(parseAuthMethods(Array.from({ length: 100 }, (_, i) => ({ id: `m${i}`, name: 'm' }))).length, 20);
  });
});

describe('agent auth: errors and keys', () => {
  it('recognises ACP auth_required and the words agents really use', () => {
    assert.ok(isAuthError(new RequestError(-32000, 'whatever')));
    for (const text of ['Authentication required', 'Gemini API key is missing', 'Not logged in. Please run /login', 'Invalid API key', '401 Unauthorized']) {
      assert.ok(isAuthError(new Error(text)), text);
    }
    for (const text of ['file not found', 'Internal error', 'the author is required', 'rate limit exceeded']) assert.ok(!isAuthError(new Error(text)), text);
  });

  it('keys credentials by the agent’s command and arguments, and by variable name', async () => {
    const codex = agentIdentity('codex-acp', []);
    assert.notEqual(codex, agentIdentity('codex-acp', ['--profile', 'other']));
    assert.notEqual(agentIdentity('a b', []), agentIdentity('a', ['b']), 'the split between command and arguments counts');
    assert.equal(envSecretKey(codex, 'CODEX_API_KEY'), `vigil.agentAuth.${codex}.env.CODEX_API_KEY`);
    assert.throws(() => envSecretKey(codex, '../x'), /not an environment variable name/);
    const store = new Map([[authIndexKey(codex), JSON.stringify({ vars: ['CODEX_API_KEY', 'bad name', 'UNSET'], methodId: 'codex-api-key' })], [envSecretKey(codex, 'CODEX_API_KEY'), 'sk-test']]);
    assert.deepEqual(await storedAgentEnv({ get: async (k) => store.get(k) }, codex), { env: { CODEX_API_KEY: 'sk-test' }, methodId: 'codex-api-key' });
    store.set(authIndexKey(codex), '{not json');
    assert.deepEqual(await storedAgentEnv({ get: async (k) => store.get(k) }, codex), { env: {}, methodId: undefined });
  });

  it('keeps the message a sign-in interrupted until it is taken, once', () => {
    const retry = new SignInRetry(2);
    retry.remember('s1', 'hello');
    assert.equal(retry.take('s1'), 'hello');
    assert.equal(retry.take('s1'), undefined);
    retry.remember('a', '1');
    retry.remember('b', '2');
    retry.remember('c', '3');
    assert.ok(!retry.has('a') && retry.has('b') && retry.has('c'), 'bounded: the oldest goes');
  });
});

describe('agent start failures', () => {
  it('says how the agent exited, with the end of its stderr, bounded', () => {
    const stderr = [...Array.from({ length: 30 }, (_, i) => `noise ${i}`), 'Error: error loading config: CODEX_HOME points to "/x", but that path does not exist'].join('\n');
    const error = exitFailure({ label: 'codex-acp', exit: { code: 1, signal: null }, stderr, phase: 'start', setting: 'vigil.agent', builtin: false });
    const cause = error.cause as AgentFailure;
    assert.match(error.message, /^The agent exited \(code 1\) while starting\.\nIts last output:\n/);
    assert.match(error.message, /CODEX_HOME points to/);
    assert.ok(!error.message.includes('noise 0'), 'only the last lines');
    assert.deepEqual(cause.remedies, ['openLog']);
    const rust = boundedTail('Error: error loading config: CODEX_HOME points to "/x"\n\nStack backtrace:\n   0: anyhow::error::from\n   1: codex_arg0::run\n   8: start_thread\n             at ./nptl/pthread_create.c:442:8');
    assert.equal(rust, 'Error: error loading config: CODEX_HOME points to "/x"', 'a backtrace does not bury the error');
    assert.equal(boundedTail('   0: only frames'), '   0: only frames', 'only frames: shown as they are');
    const flood = boundedTail('x'.repeat(100_000));
    assert.ok(flood.length <= stderrTailChars + 1);
  });

  it('a launcher that cannot find its binary names the setting and offers Open Settings', () => {
    const error = exitFailure({ label: 'npx codex', exit: { code: 127, signal: null }, stderr: 'sh: 1: codex: not found', phase: 'start', setting: 'vigil.agent', builtin: false });
    assert.match(error.message, /vigil\.agent/);
    assert.deepEqual((error.cause as AgentFailure).remedies, ['openSettings', 'openLog']);
    const killed = exitFailure({ label: 'a', exit: { code: null, signal: 'SIGKILL' }, stderr: '', phase: 'turn', setting: 'vigil.agent', builtin: false });
    assert.match(killed.message, /exited \(signal SIGKILL\) during the turn\.\nIt wrote nothing to stderr\./);
    assert.equal((killed.cause as AgentFailure).code, 'AGENT_CRASHED');
  });
});
