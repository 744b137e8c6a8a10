// The layers of each `vigil.*` setting read out of one inspect() of the section, as inspect() of the
// setting itself reports them.

import * as assert from 'node:assert/strict';
import { layersFromSection } from '../../../src/extension/core/settings/sectionLayers';
import { resolveSettingTrust } from '../../../src/extension/core/settings/settingsTrust';

describe('settings layers from one inspect of the section', () => {
  const section = {
    defaultValue: { agent: 'built-in', model: { provider: 'demo', baseUrl: '', name: '' }, approvals: { policy: 'allowReadOnly', byKind: {} }, mcpServers: [] },
    globalValue: { model: { provider: 'openai-compatible' }, approvals: { byKind: { execute: 'ask' } } },
    workspaceValue: { agent: { command: '/bin/sh' }, model: { baseUrl: 'http://127.0.0.1:9' } },
  };
  const layersOf = layersFromSection(section);

  it('reads each layer at the setting’s dotted path, leaving out the layers that do not set it', () => {
    assert.deepEqual(layersOf('model.provider'), { defaultValue: 'demo', globalValue: 'openai-compatible' });
    assert.deepEqual(layersOf('model.baseUrl'), { defaultValue: '', workspaceValue: 'http://127.0.0.1:9' });
    assert.deepEqual(layersOf('agent'), { defaultValue: 'built-in', workspaceValue: { command: '/bin/sh' } });
    assert.deepEqual(layersOf('approvals.byKind'), { defaultValue: {}, globalValue: { execute: 'ask' } });
    assert.deepEqual(layersOf('mcpServers'), { defaultValue: [] });
  });

  it('finds nothing below a value that is not an object, nor in inherited properties, nor without a section', () => {
    const odd = layersFromSection({ workspaceValue: { model: 'openai', approvals: [] } });
    assert.deepEqual(odd('model.provider'), {});
    assert.deepEqual(odd('model.constructor'), {});
    assert.deepEqual(odd('toString'), {});
    assert.deepEqual(layersFromSection(undefined)('agent'), {});
  });

  it('decides trust as per-setting layers do: a workspace agent in Restricted Mode is ignored', () => {
    const resolution = resolveSettingTrust(['agent', 'model.provider', 'model.baseUrl'], layersOf, { trusted: false, answer: () => 'unanswered' });
    assert.equal(resolution.effective('agent'), 'built-in');
    assert.equal(resolution.effective('model.provider'), 'openai-compatible');
    assert.equal(resolution.effective('model.baseUrl'), '');
    assert.deepEqual(resolution.ignored.map((i) => [i.key, i.reason]), [['agent', 'restricted'], ['model.baseUrl', 'restricted']]);
  });
});
