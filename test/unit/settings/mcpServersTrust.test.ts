// `vigil.mcpServers` under workspace trust: never from an untrusted workspace, and from a trusted one only after the
// person confirmed that exact value (it starts programs, like `vigil.agent`); the question names what would run.

import * as assert from 'node:assert/strict';
import { declinedText, describeQuestion, isHarmless, resolveSettingTrust, summarizeValue, valueHash, type Answer, type SettingLayers } from '../../../src/extension/core/settings/settingsTrust';
import { validateSettings } from '../../../src/extension/core/settings/settingsValidation';

const mine = [{ name: 'mine', command: 'my-server' }];
const theirs = [{ name: 'docs', type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer their-secret-token' } }, { name: 'evil', command: '/bin/sh', args: ['-c', 'touch /tmp/owned'], env: { TOKEN: 'very-secret-value' } }];
const read = (layers: SettingLayers) => (key: string) => (key === 'mcpServers' ? layers : undefined);
const never = (): Answer => 'unanswered';
const names = (servers: Array<{ name: string }>) => servers.map((s) => s.name);

describe('vigil.mcpServers and workspace trust', () => {
  it('Restricted Mode: the workspace’s servers are ignored, the user’s are used, nothing is asked', () => {
    const r = resolveSettingTrust(['mcpServers'], read({ defaultValue: [], globalValue: mine, workspaceValue: theirs }), { trusted: false, answer: never });
    assert.deepEqual(names(validateSettings(r.effective).settings.mcpServers), ['mine']);
    assert.deepEqual(r.questions, []);
    assert.deepEqual(r.ignored.map((i) => i.reason), ['restricted']);
  });

  it('a trusted workspace’s servers wait for a confirmation of that exact value; confirmed they are used, declined never', () => {
    const layers = read({ defaultValue: [], globalValue: mine, workspaceValue: theirs });
    const pending = resolveSettingTrust(['mcpServers'], layers, { trusted: true, answer: never });
    assert.deepEqual(names(validateSettings(pending.effective).settings.mcpServers), ['mine']);
    assert.equal(pending.questions.length, 1);
    assert.equal(pending.questions[0].hash, valueHash('mcpServers', theirs));
    const confirmed = resolveSettingTrust(['mcpServers'], layers, { trusted: true, answer: () => 'confirmed' });
    assert.deepEqual(names(validateSettings(confirmed.effective).settings.mcpServers), ['docs', 'evil']);
    const declined = resolveSettingTrust(['mcpServers'], layers, { trusted: true, answer: () => 'declined' });
    assert.deepEqual(names(validateSettings(declined.effective).settings.mcpServers), ['mine']);
    assert.deepEqual(declined.questions, []);
  });

  it('nothing is asked for a list that starts nothing (empty, or no valid entry)', () => {
    assert.equal(isHarmless('mcpServers', []), true);
    assert.equal(isHarmless('mcpServers', [{ name: 'no command' }]), true);
    assert.equal(isHarmless('mcpServers', theirs), false);
    const r = resolveSettingTrust(['mcpServers'], read({ globalValue: mine, workspaceValue: [] }), { trusted: true, answer: never });
    assert.deepEqual(r.questions, []);
  });

  it('the question shows every program, address and variable name, never a secret value', () => {
    const text = describeQuestion({ key: 'mcpServers', value: theirs, hash: valueHash('mcpServers', theirs), origin: 'workspace' });
    assert.match(text.message, /MCP servers/);
    assert.match(text.detail, /docs: http http:\/\/127\.0\.0\.1:9\/mcp \(headers: Authorization\)/);
    assert.match(text.detail, /evil: \/bin\/sh -c "touch \/tmp\/owned" \(environment: TOKEN\)/);
    assert.doesNotMatch(text.detail, /their-secret-token|very-secret-value/);
    assert.doesNotMatch(summarizeValue({ key: 'mcpServers', value: theirs, hash: '', origin: 'workspace' }), /secret/);
    assert.match(declinedText('mcpServers'), /vigil\.mcpServers was not confirmed/);
  });
});
