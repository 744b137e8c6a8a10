// Settings validation: defaults, every bad shape reported with the setting's name and a fix, per-kind approvals, once-per-key reporting.

import * as assert from 'node:assert';
import { IssueLedger, SETTING_DEFAULTS, approvalModeFor, validateBaseUrl, validateSettings, type SettingReader } from '../../../src/extension/core/settings/settingsValidation';

const reader = (values: Record<string, unknown>): SettingReader => (key) => values[key];

describe('settings validation', () => {
  it('nothing set gives the contributed defaults and no issue', () => {
    const { settings, issues } = validateSettings(reader({}));
    assert.deepStrictEqual(settings, SETTING_DEFAULTS);
    assert.deepStrictEqual(issues, []);
  });

  it('reads valid values of every setting', () => {
    const { settings, issues } = validateSettings(reader({
      agent: { command: 'gemini', args: ['--acp'], env: { A: '1' } },
      'model.provider': 'openai-compatible',
      'model.baseUrl': ' http://127.0.0.1:11434/v1 ',
      'model.name': 'llama3',
      'model.maxOutputTokens': 16_384,
      'wakeups.maxPerTurn': 1,
      'tasks.outputByteLimit': 2048,
      'tasks.offerToAgents': false,
      'tasks.maxRunningPerSession': 4,
      'tasks.maxRunningPerWindow': 1024,
      'approvals.policy': 'ask',
      'approvals.byKind': { execute: 'ask', read: 'allowAll' },
      'approvals.timeoutSeconds': 30,
    }));
    assert.deepStrictEqual(issues, []);
    assert.deepStrictEqual(settings.agent, { kind: 'custom', command: 'gemini', args: ['--acp'], env: { A: '1' }, secretEnv: [] });
    assert.deepStrictEqual(settings.model, { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1', name: 'llama3', maxOutputTokens: 16_384 });
    assert.strictEqual(settings.wakeups.maxPerTurn, 1);
    assert.strictEqual(settings.tasks.outputByteLimit, 2048);
    assert.strictEqual(settings.tasks.offerToAgents, false);
    assert.strictEqual(settings.tasks.maxRunningPerSession, 4);
    assert.strictEqual(settings.tasks.maxRunningPerWindow, 1024);
    assert.deepStrictEqual(settings.approvals, { policy: 'ask', byKind: { execute: 'ask', read: 'allowAll' }, timeoutSeconds: 30 });
  });

  it('a bad vigil.agent falls back to the built-in agent and says what to write', () => {
    for (const bad of ['gemini', 42, ['gemini'], { command: '' }, { command: 'x', args: 'a b' }, { command: 'x', env: { A: 1 } }, { command: 'x', cmd: 'y' }]) {
      const { settings, issues } = validateSettings(reader({ agent: bad }));
      assert.deepStrictEqual(settings.agent, { kind: 'built-in' }, JSON.stringify(bad));
      assert.strictEqual(issues.length, 1);
      assert.strictEqual(issues[0].key, 'vigil.agent');
      assert.match(issues[0].message, /^vigil\.agent .*"command": "gemini".*Using the built-in agent/);
    }
    const missing = validateSettings(reader({ agent: { args: [] } })).issues[0].message;
    assert.match(missing, /"command" must be a non-empty string/);
  });

  it('vigil.agent.secretEnv lists variable names; anything else falls back to the built-in agent, saying what to write', () => {
    const good = validateSettings(reader({ agent: { command: 'x', env: { MY_PAT: 'p' }, secretEnv: ['MY_PAT', 'INHERITED_ONE'] } }));
    assert.deepStrictEqual(good.issues, []);
    assert.deepStrictEqual(good.settings.agent, { kind: 'custom', command: 'x', args: [], env: { MY_PAT: 'p' }, secretEnv: ['MY_PAT', 'INHERITED_ONE'] });
    for (const secretEnv of ['MY_PAT', [''], [42], ['A=B'], ['x'.repeat(257)], Array.from({ length: 65 }, (_, i) => `V${i}`)]) {
      const { settings, issues } = validateSettings(reader({ agent: { command: 'x', secretEnv } }));
      assert.deepStrictEqual(settings.agent, { kind: 'built-in' }, JSON.stringify(secretEnv));
      assert.match(issues[0].message, /"secretEnv" must be a list of environment variable names, e\.g\. \["MY_SERVICE_PAT"\].*Using the built-in agent/);
    }
  });

  it('out-of-range and wrongly typed values fall back to defaults, naming the setting and the range', () => {
    const { settings, issues } = validateSettings(reader({
      'model.provider': 'gpt',
      'wakeups.maxPerTurn': 0,
      'tasks.outputByteLimit': 12.5,
      'tasks.offerToAgents': 'no',
      'tasks.maxRunningPerSession': 0,
      'tasks.maxRunningPerWindow': '64',
      'approvals.policy': 'yes',
      'model.name': 'x'.repeat(201),
      'approvals.timeoutSeconds': 5,
      'model.maxOutputTokens': 100,
    }));
    assert.deepStrictEqual(settings, SETTING_DEFAULTS);
    const byKey = Object.fromEntries(issues.map((i) => [i.key, i.message]));
    assert.match(byKey['vigil.model.provider'], /must be one of "auto", "vscode-lm", "openai-compatible", "anthropic", "demo". Using "demo"/);
    assert.match(byKey['vigil.wakeups.maxPerTurn'], /whole number from 1 to 100. Using 5/);
    assert.match(byKey['vigil.tasks.outputByteLimit'], /from 1024 to 67108864/);
    assert.match(byKey['vigil.tasks.offerToAgents'], /must be true or false. Using true/);
    assert.match(byKey['vigil.tasks.maxRunningPerSession'], /is number 0; it must be a whole number from 1 to 256. Using 16 meanwhile/);
    assert.match(byKey['vigil.tasks.maxRunningPerWindow'], /from 1 to 1024. Using 64 meanwhile/);
    assert.match(byKey['vigil.approvals.timeoutSeconds'], /from 10 to 86400. Using 600/);
    assert.match(byKey['vigil.approvals.policy'], /Using "allowReadOnly"/);
    assert.match(byKey['vigil.model.name'], /201 characters long; at most 200/);
    assert.match(byKey['vigil.model.maxOutputTokens'], /is number 100; it must be a whole number from 256 to 1000000. Using 4096 meanwhile/);
  });

  it('model.maxOutputTokens: a fraction, a string or a huge value falls back to 4096, naming the range', () => {
    for (const bad of [4096.5, '8192', 2_000_000, true]) {
      const { settings, issues } = validateSettings(reader({ 'model.maxOutputTokens': bad }));
      assert.strictEqual(settings.model.maxOutputTokens, 4096);
      assert.strictEqual(issues[0]?.key, 'vigil.model.maxOutputTokens');
      assert.match(issues[0].message, /from 256 to 1000000/);
    }
  });

  it('base URL: empty or http(s) only', () => {
    assert.strictEqual(validateBaseUrl(''), undefined);
    assert.strictEqual(validateBaseUrl('https://api.openai.com/v1'), undefined);
    assert.match(validateBaseUrl('localhost:11434') ?? '', /http:\/\/ or https:\/\//);
    assert.match(validateBaseUrl('not a url') ?? '', /is not a URL/);
    const { settings, issues } = validateSettings(reader({ 'model.baseUrl': 'ftp://x' }));
    assert.strictEqual(settings.model.baseUrl, '');
    assert.strictEqual(issues[0].key, 'vigil.model.baseUrl');
  });

  it('approvals.byKind keeps the good entries, reports the bad ones, and overrides the policy per kind', () => {
    const { settings, issues } = validateSettings(reader({ 'approvals.policy': 'allowAll', 'approvals.byKind': { execute: 'ask', bogus: 'ask', edit: 'never' } }));
    assert.deepStrictEqual(settings.approvals.byKind, { execute: 'ask' });
    assert.strictEqual(issues.length, 1);
    assert.match(issues[0].message, /"bogus" is not a tool kind.*"edit" must be one of/);
    assert.strictEqual(approvalModeFor(settings.approvals, 'execute'), 'ask');
    assert.strictEqual(approvalModeFor(settings.approvals, 'edit'), 'allowAll');
    assert.strictEqual(approvalModeFor(settings.approvals, undefined), 'allowAll');
    assert.strictEqual(approvalModeFor(settings.approvals, 'toString'), 'allowAll');
  });

  it('reports each bad key once, and again only after it was fixed and broken anew', () => {
    const ledger = new IssueLedger();
    const bad = { key: 'vigil.agent', message: 'bad' };
    assert.deepStrictEqual(ledger.fresh([bad]), [bad]);
    assert.deepStrictEqual(ledger.fresh([bad]), []);
    assert.deepStrictEqual(ledger.fresh([]), []);
    assert.deepStrictEqual(ledger.fresh([bad]), [bad]);
  });
});
