// The options and commands real agents advertise, through the real ACP client: Claude's adapter
// (configOptions for mode, model, effort and two booleans, plus legacy modes; commands before its
// session/new answer) and Codex (a model option whose change brings a reasoning option with it;
// commands after the answer). What each sends is what the session header and pickers show.

import * as assert from 'node:assert/strict';
import type { AgentStateView } from '../../../src/shared/agentState';
import { realAgentBounds, type RealAgentRun, startRealAgent } from './realAgentTurn';

describe('real agents: options and commands', function () {
  this.timeout(realAgentBounds.testMs);
  let run: RealAgentRun | undefined;

  afterEach(async () => {
    await run?.dispose();
    run = undefined;
  });

  const state = (): AgentStateView => run!.h.agents.agentStateOf('session-1')!;
  const categories = () => state().options.map((o) => o.category);

  it('claude: mode, model and effort options and its commands show; a mode change is answered with the new set', async () => {
    run = await startRealAgent('claude');
    await run.h.agents.prepareAgent('session-1');
    await run.h.waitFor(() => state().commands.length > 0, 'Claude’s commands', realAgentBounds.startMs);
    assert.ok(['mode', 'model', 'thought_level'].every((c) => categories().includes(c)), `categories: ${categories().join(', ')}`);
    assert.ok(state().options.some((o) => o.kind === 'boolean'), 'its boolean options (fast mode) are kept');
    assert.ok(!state().options.some((o) => o.legacyMode), 'configOptions win over the legacy modes it also sends');
    const mode = state().options.find((o) => o.category === 'mode')!;
    assert.ok(mode.kind === 'select' && mode.choices.some((c) => c.value === 'plan'), 'plan is offered');
    await run.h.agents.setAgentOption('session-1', mode.id, 'plan');
    assert.equal(state().options.find((o) => o.id === mode.id)?.current, 'plan');
  });

  it('codex: its model option and commands show; choosing a model brings the options that model has', async () => {
    run = await startRealAgent('codex');
    await run.h.agents.prepareAgent('session-1');
    await run.h.waitFor(() => state().commands.some((c) => c.name === 'review'), 'Codex’s commands', realAgentBounds.startMs);
    assert.ok(state().commands.find((c) => c.name === 'review')?.hint, 'a command’s input hint is kept');
    const model = state().options.find((o) => o.category === 'model');
    assert.ok(model?.kind === 'select', `options: ${JSON.stringify(state().options).slice(0, 400)}`);
    // The test model is not one Codex knows, so it has no reasoning option; gpt-5.4 has one.
    assert.ok(!state().options.some((o) => o.category === 'thought_level'), `options: ${JSON.stringify(state().options).slice(0, 400)}`);
    assert.ok(model.choices.some((c) => c.value === 'gpt-5.4'), 'Codex offers gpt-5.4');
    await run.h.agents.setAgentOption('session-1', model.id, 'gpt-5.4');
    assert.equal(state().options.find((o) => o.id === model.id)?.current, 'gpt-5.4');
    assert.ok(state().options.some((o) => o.id === 'reasoning_effort'), `the answer replaced the set: ${state().options.map((o) => o.id).join(', ')}`);
  });
});
