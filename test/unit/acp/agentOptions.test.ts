// A third-party agent's options, modes, commands, usage and title, through the real ACP client and a
// fake agent process: kept whether or not a prompt runs, changed through set_config_option/set_mode,
// the agent's answer taken as the new option set, refusals readable, hostile state bounded.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { AcpAgentHandle } from '../../../src/extension/core/acp/acpAgentHandle';
import type { AgentStateEvent } from '../../../src/extension/core/acp/acpHandleProvider';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import type { AgentOptionView, AgentStateView } from '../../../src/shared/agentState';
import { AcpHarness } from './acpHarness';

const optionsAgent = path.resolve(__dirname, '../../fixtures/agents/fakeOptionsAgent.js');

describe('agent options, commands, usage and title (fake third-party agent)', function () {
  this.timeout(40_000);
  let h: AcpHarness;
  let changes: AgentStateEvent[];

  async function start(args: string[] = []): Promise<void> {
    h = await AcpHarness.create({ launch: () => customLaunch({ command: process.execPath, args: [optionsAgent, ...args] }) });
    changes = [];
    h.agents.subscribeAgentState((e) => changes.push(e));
  }

  afterEach(async () => {
    await h?.dispose();
  });

  const state = (): AgentStateView => h.agents.agentStateOf('session-1')!;
  const option = (id: string): AgentOptionView => {
    const o = state().options.find((x) => x.id === id);
    assert.ok(o, `option ${id} is known`);
    return o;
  };
  const waitState = (test: (s: AgentStateView) => boolean, what: string) => h.waitFor(() => state() !== undefined && test(state()), what);
  const titles = () => changes.filter((c): c is AgentStateEvent & { kind: 'title' } => c.kind === 'title').map((c) => c.title);

  it('knows the options and commands as soon as the agent is started, before any prompt', async () => {
    await start();
    const s = await h.agents.prepareAgent('session-1');
    assert.deepEqual(s.options.map((o) => [o.id, o.kind, o.category, o.current]), [
      ['model', 'select', 'model', 'fast-1'],
      ['mode', 'select', 'mode', 'code'],
      ['thought', 'select', 'thought_level', 'medium'],
      ['web', 'boolean', undefined, false],
    ]);
    const model = option('model');
    assert.equal(model.kind, 'select');
    if (model.kind === 'select') {
      assert.deepEqual(model.choices.map((c) => `${c.group}/${c.value}`), ['Fast models/fast-1', 'Fast models/fast-2', 'Deep models/deep-1', 'Deep models/broken']);
    }
    // The command list and the usage follow session/new, outside any prompt (two updates, in that order).
    await waitState((x) => x.commands.length === 3 && x.usage !== undefined, 'the command list and the usage');
    assert.deepEqual(state().commands[1], { name: 'explain', description: 'Explain a file or symbol', hint: 'file or symbol to explain' });
    assert.deepEqual(state().usage, { used: 0, size: 200_000, cost: { amount: 0, currency: 'USD' } });
  });

  it('changes a mode through session/set_config_option; the answer replaces the whole option set', async () => {
    await start();
    await h.agents.prepareAgent('session-1');
    await h.agents.setAgentOption('session-1', 'mode', 'plan');
    assert.equal(option('mode').current, 'plan');
    assert.equal(option('thought').current, 'high', 'the option the agent changed along with it');
    assert.ok(changes.some((c) => c.kind === 'state' && c.state.pending === 'Mode → Plan'), 'the pending change was shown');
    assert.equal(state().pending, undefined);
    await h.agents.setAgentOption('session-1', 'web', true);
    assert.equal(option('web').current, true);
    assert.equal((await h.turn('hello')).reason, 'completed');
    assert.match(h.agentText(), /mode=plan model=fast-1 thought=high web=true text=hello/);
    // Usage during the turn is activity (the agent is alive) but state, not conversation: not for the transcript.
    const usage = h.agentEvents.find((e) => e.description === 'agent: usage_update');
    assert.ok(usage, 'usage_update is activity of the turn');
    assert.equal(usage.update, undefined);
  });

  it('a refused change is a readable error and changes nothing; an unknown value is refused before sending', async () => {
    await start();
    await h.agents.prepareAgent('session-1');
    await assert.rejects(h.agents.setAgentOption('session-1', 'model', 'broken'), (e: Error) => {
      assert.match(e.message, /did not change Model to Broken \(refused\): model "broken" is not available on this plan/);
      return true;
    });
    assert.equal(option('model').current, 'fast-1');
    assert.equal(state().pending, undefined);
    await assert.rejects(h.agents.setAgentOption('session-1', 'model', 'gpt-evil'), /Model has no value "gpt-evil"; the agent offers: Fast One, Fast Two, Deep One/);
    await assert.rejects(h.agents.setAgentOption('session-1', 'nope', 'x'), /offers no option "nope"/);
    await assert.rejects(h.agents.setAgentOption('session-1', 'web', 'yes'), /Web search is on or off/);
    // The agent is still fine.
    await h.agents.setAgentOption('session-1', 'model', 'deep-1');
    assert.equal(option('model').current, 'deep-1');
  });

  it('keeps title, commands, usage and option updates that arrive after the prompt answered', async () => {
    await start();
    assert.equal((await h.turn('later')).reason, 'completed');
    await waitState((s) => s.commands.some((c) => c.name === 'later') && s.usage?.used === 150_000 && s.options.find((o) => o.id === 'thought')?.current === 'high', 'the late updates');
    await h.waitFor(() => titles().includes('Renamed later'), 'the late title');
    assert.deepEqual(titles(), ['Named by the agent', 'Renamed later']);
    assert.deepEqual(state().usage, { used: 150_000, size: 200_000, cost: { amount: 1.5, currency: 'USD' } });
  });

  it('legacy modes: shown as one option, set with session/set_mode, moved by current_mode_update', async () => {
    await start(['--modes']);
    const s = await h.agents.prepareAgent('session-1');
    assert.deepEqual(s.options.map((o) => [o.id, o.legacyMode, o.current]), [['mode', true, 'code']]);
    await h.agents.setAgentOption('session-1', 'mode', 'plan');
    assert.equal(option('mode').current, 'plan');
    await assert.rejects(h.agents.setAgentOption('session-1', 'mode', 'yolo'), /Mode has no value "yolo"/);
    assert.equal((await h.turn('later')).reason, 'completed');
    assert.match(h.agentText(), /mode=plan/);
    await waitState((x) => x.options[0]?.current === 'ask', 'the current_mode_update');
  });

  it('a fresh agent process gets the person’s choices back', async () => {
    await start();
    await h.agents.prepareAgent('session-1');
    await h.agents.setAgentOption('session-1', 'mode', 'ask');
    await h.agents.setAgentOption('session-1', 'web', true);
    const handle = (await h.agents.get('session-1')) as AcpAgentHandle;
    const pid = handle.pid;
    await handle.kill('test restart');
    await h.agents.prepareAgent('session-1');
    assert.notEqual(handle.pid, pid);
    assert.equal(option('mode').current, 'ask');
    assert.equal(option('web').current, true);
    assert.equal((await h.turn('again')).reason, 'completed');
    assert.match(h.agentText(), /mode=ask .*web=true text=again/);
  });

  it('a released agent’s options are cleared from the view, not left stale', async () => {
    await start();
    await h.agents.prepareAgent('session-1');
    await h.agents.release('session-1');
    const last = changes.filter((c) => c.kind === 'state').at(-1);
    assert.deepEqual(last?.kind === 'state' ? last.state : undefined, { options: [], commands: [] });
    assert.equal(h.agents.agentStateOf('session-1'), undefined);
  });

  it('hostile state is bounded, cleaned, and malformed entries are skipped', async () => {
    await start();
    await h.agents.prepareAgent('session-1');
    await waitState((x) => x.commands.length === 3, 'the first command list');
    assert.equal((await h.turn('hostile')).reason, 'completed');
    await waitState((s) => s.options.length === 1 && s.options[0].id === 'm', 'the hostile options');
    const s = state();
    assert.equal(s.commands.length, 200, 'commands are capped');
    assert.ok(s.commands.every((c) => !/\s/.test(c.name) && c.description.length <= 500));
    assert.ok(!s.commands.some((c) => c.name.includes('\u202e') || c.name.includes('<img')));
    const m = s.options[0];
    assert.equal(m.name.length, 100);
    assert.deepEqual(m.kind === 'select' ? m.choices.map((c) => c.value) : [], ['a']);
    assert.deepEqual(s.usage, { used: 0, size: 200_000, cost: { amount: 0, currency: 'USD' } }, 'a malformed usage update is ignored');
    await h.waitFor(() => titles().length > 0, 'the hostile title');
    const title = titles()[0];
    assert.match(title, /^evil title y+…$/);
    assert.ok(title.length <= 200, `title bounded: ${title.length}`);
    assert.ok(!title.includes('\u0007') && !title.includes('\u202e'), 'control and bidi characters removed');
  });
});
