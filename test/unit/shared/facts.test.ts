// Facts written once in src/shared: the copies the manifest (plain JSON, which cannot import) must keep are
// checked against the one definition, and the readers of agent input fall back the same way.

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { providerKinds } from '../../../src/shared/agentProtocol/providers';
import { agentConfigSchema } from '../../../src/shared/agentProtocol/agentConfig';
import { isToolKind, TOOL_KINDS, toolKindOf } from '../../../src/shared/toolKinds';
import { validateSettings } from '../../../src/extension/vscode/settingsValidation';

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

  it('a kind Vigil does not know is shown as other, never passed through', () => {
    for (const kind of TOOL_KINDS) assert.equal(toolKindOf(kind), kind);
    for (const odd of ['Execute', 'toString', '__proto__', '', 3, null, undefined, { kind: 'edit' }]) {
      assert.equal(isToolKind(odd), false, String(odd));
      assert.equal(toolKindOf(odd), 'other');
    }
  });
});
