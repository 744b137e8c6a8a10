// A third-party agent allowed in Restricted Mode starts in its read-only or plan mode: which mode counts as one
// (pure), and the start through the real ACP client and a fake agent process (configOptions and legacy modes).

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { customLaunch, type LaunchSpec } from '../../../src/extension/core/acp/agentLaunch';
import { readOnlyChoice } from '../../../src/extension/core/acp/readOnlyMode';
import type { AgentOptionView } from '../../../src/shared/agentState';
import { AcpHarness } from './acpHarness';

const optionsAgent = path.resolve(__dirname, '../../fixtures/agents/fakeOptionsAgent.js');

const select = (id: string, category: string | undefined, choices: [string, string][], current = choices[0][0]): AgentOptionView => ({
  id, name: id, kind: 'select', current, choices: choices.map(([value, name]) => ({ value, name })), ...(category ? { category } : {}),
});

describe('read-only or plan mode in Restricted Mode', function () {
  this.timeout(40_000);

  describe('readOnlyChoice', () => {
    it('prefers a read-only mode over a plan mode, by value or name (Codex "read-only", Claude "plan")', () => {
      const codex = select('mode', 'mode', [['auto', 'Default'], ['read-only', 'Read Only'], ['full-access', 'Full Access']], 'auto');
      const chosen = readOnlyChoice([select('model', 'model', [['m', 'M']]), codex]);
      assert.deepEqual({ id: chosen?.option.id, value: chosen?.value }, { id: 'mode', value: 'read-only' });
      const claude = select('mode', 'mode', [['default', 'Default'], ['acceptEdits', 'Accept Edits'], ['plan', 'Plan Mode'], ['bypassPermissions', 'Bypass Permissions']]);
      assert.equal(readOnlyChoice([claude])?.value, 'plan');
      const both = select('mode', 'mode', [['plan', 'Plan'], ['ro', 'Read-only']]);
      assert.equal(readOnlyChoice([both])?.value, 'ro', 'read-only wins over plan');
    });

    it('takes only a mode option, and no mode that merely sounds careful ("Ask", "Plan and edit")', () => {
      assert.equal(readOnlyChoice([select('model', 'model', [['plan', 'Plan']])]), undefined, 'a model called "plan" is not a mode');
      assert.equal(readOnlyChoice([select('x', undefined, [['plan', 'Plan']])]), undefined, 'an option without the mode category');
      assert.equal(readOnlyChoice([select('mode', 'mode', [['ask', 'Ask'], ['planedit', 'Plan and edit'], ['code', 'Code']])]), undefined);
      assert.equal(readOnlyChoice([{ id: 'mode', name: 'Mode', kind: 'boolean', current: false, category: 'mode' }]), undefined);
      assert.equal(readOnlyChoice([]), undefined);
    });
  });

  describe('the agent process', () => {
    let h: AcpHarness | undefined;
    afterEach(async () => {
      await h?.dispose();
      h = undefined;
    });

    async function startWith(readOnlyMode: boolean, args: string[] = []): Promise<AcpHarness> {
      const launch = (): LaunchSpec => ({ ...customLaunch({ command: process.execPath, args: [optionsAgent, ...args] }), ...(readOnlyMode ? { readOnlyMode } : {}) });
      h = await AcpHarness.create({ launch });
      h.trusted = false;
      return h;
    }

    it('configOptions: started in its plan mode, and its first answer is in that mode', async () => {
      const harness = await startWith(true);
      const state = await harness.agents.prepareAgent('session-1');
      assert.equal(state.options.find((o) => o.id === 'mode')?.current, 'plan');
      assert.equal((await harness.turn('hello')).reason, 'completed');
      assert.match(harness.agentText(), /mode=plan /);
    });

    it('legacy modes: set with session/set_mode', async () => {
      const harness = await startWith(true, ['--modes']);
      const state = await harness.agents.prepareAgent('session-1');
      assert.equal(state.options.find((o) => o.category === 'mode')?.current, 'plan');
      assert.equal((await harness.turn('hello')).reason, 'completed');
      assert.match(harness.agentText(), /mode=plan /);
    });

    it('without Restricted Mode’s consent flag the agent keeps its own default mode', async () => {
      const harness = await startWith(false);
      const state = await harness.agents.prepareAgent('session-1');
      assert.equal(state.options.find((o) => o.id === 'mode')?.current, 'code');
    });
  });
});
