// Facts written once in src/shared: the copies the manifest (plain JSON, which cannot import) must keep are
// checked against the one definition, and the readers of agent input fall back the same way.

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { defaultAnthropicModel, providerKinds } from '../../../src/shared/agentProtocol/providers';
import { agentConfigSchema } from '../../../src/shared/agentProtocol/agentConfig';
import { isToolKind, TOOL_KINDS, toolKindOf } from '../../../src/shared/toolKinds';
import { validateSettings } from '../../../src/extension/core/settings/settingsValidation';
import { apiKeyProviderFor } from '../../../src/extension/core/settings/apiKeys';
import { createProvider } from '../../../src/agent/providers/createProvider';
import type { AgentConfig } from '../../../src/agent/config';
import type { HostChannel } from '../../../src/agent/hostChannel';

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');

type Property = { enum?: string[]; propertyNames?: { enum?: string[] } };

function properties(): Record<string, Property> {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, Property> } } };
  return manifest.contributes.configuration.properties;
}

describe('facts written once', () => {
  it('vigil.approvals.byKind names exactly the tool kinds, and the validator takes each of them', () => {
    assert.deepEqual(properties()['vigil.approvals.byKind']?.propertyNames?.enum, [...TOOL_KINDS]);
    const byKind = Object.fromEntries(TOOL_KINDS.map((kind) => [kind, 'ask']));
    const { settings, issues } = validateSettings((key) => (key === 'approvals.byKind' ? byKind : undefined));
    assert.deepEqual(issues, []);
    assert.deepEqual(settings.approvals.byKind, byKind);
  });

  it('vigil.model.provider offers exactly the providers the agent accepts', () => {
    assert.deepEqual(properties()['vigil.model.provider']?.enum, [...providerKinds]);
    for (const provider of providerKinds) assert.equal(agentConfigSchema.parse({ provider }).provider, provider);
    assert.equal(agentConfigSchema.safeParse({ provider: 'openai' }).success, false);
  });

  it('the description of vigil.model.name names the default Anthropic model the agent uses', () => {
    const nls = JSON.parse(readFileSync(path.join(repoRoot, 'package.nls.json'), 'utf8')) as Record<string, string>;
    assert.match(nls['config.vigil.model.name.description'], new RegExp(`\\b${defaultAnthropicModel}\\b`));
  });

  it('a kind Vigil does not know is shown as other, never passed through', () => {
    for (const kind of TOOL_KINDS) assert.equal(toolKindOf(kind), kind);
    for (const odd of ['Execute', 'toString', '__proto__', '', 3, null, undefined, { kind: 'edit' }]) {
      assert.equal(isToolKind(odd), false, String(odd));
      assert.equal(toolKindOf(odd), 'other');
    }
  });
});

describe('the auto provider rule, one for the agent and the host', () => {
  const noLm = { serves: () => false } as unknown as HostChannel;
  const config = (o: Partial<AgentConfig>): AgentConfig => ({ ...agentConfigSchema.parse({ provider: 'auto' }), ...o });
  const cases: Array<{ baseUrl?: string; model?: string; apiKey?: string }> = [
    { baseUrl: 'http://127.0.0.1:9/v1', model: 'claude-x', apiKey: 'k' },
    { model: 'claude-sonnet-4-5', apiKey: 'k' },
    { model: 'claude-sonnet-4-5' },
    { model: 'gpt-4.1', apiKey: 'k' },
    {},
  ];

  it('the agent uses the provider whose key the host hands over, and no keyed provider without one', async () => {
    for (const c of cases) {
      const provider = await createProvider(config(c), noLm);
      const keyed = apiKeyProviderFor({ provider: 'auto', baseUrl: c.baseUrl, name: c.model });
      const chosen = provider.label.split(' ')[0];
      if (keyed && (keyed === 'openai-compatible' || c.apiKey)) assert.equal(chosen, keyed, JSON.stringify(c));
      else assert.equal(chosen, 'demo', JSON.stringify(c));
    }
  });
});
