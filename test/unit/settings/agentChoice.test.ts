import * as assert from 'node:assert/strict';
import { choicesInSettingsText, disagreeingChoices } from '../../../src/extension/core/settings/agentChoiceAgreement';
import { AgentChoiceGate, type AgentChoiceGateDeps } from '../../../src/extension/core/settings/agentChoiceGate';
import { isVigilError } from '../../../src/extension/core/common/errors';

const agent = { command: '/opt/agents/claude-agent-acp', args: ['--verbose'] };

describe('agent choice: the settings file against what the editor reports', () => {
  it('reads dotted and nested keys, comments and trailing commas as VS Code does', () => {
    const dotted = choicesInSettingsText(`{
      // the person's agent
      "vigil.agent": { "command": "/opt/agents/claude-agent-acp", "args": ["--verbose"], },
      "vigil.model.name": "m",
    }`);
    assert.deepEqual(dotted?.get('vigil.agent'), agent);
    assert.equal(dotted?.get('vigil.model.name'), 'm');
    const nested = choicesInSettingsText('{ "vigil": { "model": { "provider": "anthropic" } } }');
    assert.equal(nested?.get('vigil.model.provider'), 'anthropic');
    assert.equal(nested?.get('vigil.agent'), undefined);
  });

  it('ignores language overrides, and keys inside a value are not split', () => {
    const choices = choicesInSettingsText('{ "[python]": { "vigil.agent": "x" }, "vigil": { "model.name": "kept whole" } }');
    assert.equal(choices?.get('vigil.agent'), undefined);
    assert.equal(choices?.get('vigil.model.name'), undefined);
  });

  it('gives no evidence for a file VS Code could not read either', () => {
    assert.equal(choicesInSettingsText('{ "vigil.agent": '), undefined);
    assert.equal(choicesInSettingsText('[1, 2]'), undefined);
    assert.deepEqual(disagreeingChoices(undefined, () => 'anything'), []);
  });

  it('names the keys whose values differ, whatever the order of an object\'s keys', () => {
    const file = choicesInSettingsText(JSON.stringify({ 'vigil.agent': { args: ['--verbose'], command: '/opt/agents/claude-agent-acp' } }));
    assert.deepEqual(disagreeingChoices(file, (key) => (key === 'vigil.agent' ? agent : undefined)), []);
    assert.deepEqual(disagreeingChoices(file, () => undefined), ['vigil.agent']);
    const none = choicesInSettingsText('{ "editor.fontSize": 14 }');
    assert.deepEqual(disagreeingChoices(none, () => undefined), []);
    assert.deepEqual(disagreeingChoices(none, (key) => (key === 'vigil.agent' ? agent : undefined)), ['vigil.agent']);
  });
});

describe('agent choice gate: a prompt waits for the agent the person chose', () => {
  /** A window whose editor reports `reported` while the file holds `file`; `deliver()` is the late settings event. */
  function windowWith(file: string | undefined, reported: unknown, options: Partial<AgentChoiceGateDeps> = {}) {
    const state = { reported, listeners: new Set<() => void>(), warnings: [] as string[] };
    const deps: AgentChoiceGateDeps = {
      readSettingsFile: async () => (file === undefined ? undefined : { path: '/home/p/.config/Code/User/settings.json', text: file }),
      userValueOf: (key) => (key === 'vigil.agent' ? state.reported : undefined),
      onSettingsChanged: (listener) => {
        state.listeners.add(listener);
        return () => state.listeners.delete(listener);
      },
      log: { info() {}, warn: (m: string) => state.warnings.push(m) },
      // Long enough that only the change event can end the wait in the tests that deliver one.
      recheckMs: 60_000,
      boundMs: 120_000,
      ...options,
    };
    return {
      gate: new AgentChoiceGate(deps),
      state,
      deliver(value: unknown) {
        state.reported = value;
        for (const listener of [...state.listeners]) listener();
      },
    };
  }
  const fileNaming = JSON.stringify({ 'vigil.agent': agent });

  it('passes at once when the editor reports what the file holds, or when there is no file', async () => {
    assert.equal(await windowWith(fileNaming, agent).gate.settled(), false);
    assert.equal(await windowWith(undefined, undefined).gate.settled(), false);
    assert.equal(await windowWith('{}', undefined).gate.settled(), false);
  });

  it('holds while the editor has not delivered the agent the file names, and goes on when it does', async () => {
    const w = windowWith(fileNaming, undefined);
    let waiting = false;
    let settled = false;
    const run = w.gate.settled({ waiting: () => (waiting = true) }).then((held) => {
      settled = true;
      return held;
    });
    await until(() => w.state.listeners.size > 0);
    assert.equal(waiting, true, 'the view is told it waits');
    assert.equal(settled, false, 'nothing goes on before the settings arrive');
    assert.match(w.state.warnings.join('\n'), /vigil\.agent differently/);
    w.deliver({ ...agent });
    assert.equal(await run, true);
  });

  it('explains, past the bound, why nothing was sent', async () => {
    const w = windowWith(fileNaming, undefined, { boundMs: 30, recheckMs: 10 });
    await assert.rejects(w.gate.settled(), (error: unknown) => {
      assert.ok(isVigilError(error, 'AGENT_FAILED'));
      assert.match(error.message, /settings\.json\) sets vigil\.agent/);
      assert.match(error.message, /Reload the window/);
      assert.doesNotMatch(error.message, /claude-agent-acp/, 'the value (which may carry a token) is not repeated');
      return true;
    });
  });

  it('stops holding when the person stops', async () => {
    const w = windowWith(fileNaming, undefined);
    const stop = new AbortController();
    const run = w.gate.settled({ signal: stop.signal });
    await until(() => w.state.listeners.size > 0);
    stop.abort();
    await assert.rejects(run, (error: unknown) => isVigilError(error, 'CANCELLED'));
    assert.equal(w.state.listeners.size, 0, 'no listener is left behind');
  });

  it('says at a window\'s start whether the editor passed the agent settings on', async () => {
    const lines: string[] = [];
    const log = { info: (m: string) => lines.push(`info ${m}`), warn: (m: string) => lines.push(`warn ${m}`) };
    await windowWith(fileNaming, agent, { log }).gate.noteAtStart();
    await windowWith(fileNaming, undefined, { log }).gate.noteAtStart();
    assert.match(lines[0], /^info .*match your settings file/);
    assert.match(lines[1], /^warn .*started without your agent settings: .*settings\.json sets vigil\.agent/);
    assert.doesNotMatch(lines.join('\n'), /claude-agent-acp/, 'values are never logged');
  });

  it('a change that still disagrees keeps holding', async () => {
    const w = windowWith(fileNaming, undefined);
    let settled = false;
    const run = w.gate.settled().then(() => (settled = true));
    await until(() => w.state.listeners.size > 0);
    w.deliver({ command: 'something-else' });
    await until(() => w.state.listeners.size > 0);
    assert.equal(settled, false);
    w.deliver(agent);
    await run;
  });
});

/** Waits for a condition the code under test reaches through its own promises (no timer decides the outcome). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(condition(), 'condition not reached');
}
