// Select Agent / Select Model / Set API Key helpers: command lines, remembered agents, model names, which key a model needs.

import * as assert from 'node:assert';
import { apiKeyProviderFor, apiKeySecretName } from '../../../src/extension/core/settings/apiKeys';
import { agentLabel, MAX_REMEMBERED_AGENTS, parseCommandLine, readRemembered, rememberAgent, validateModelName } from '../../../src/extension/presentation/modelChoices';

describe('model and agent choices', () => {
  it('splits a typed agent command line, with quotes and no shell', () => {
    assert.deepStrictEqual(parseCommandLine('  gemini   --acp '), { command: 'gemini', args: ['--acp'] });
    assert.deepStrictEqual(parseCommandLine(`npx "@scope/my agent" --flag='a b' ''`), { command: 'npx', args: ['@scope/my agent', '--flag=a b', ''] });
    assert.deepStrictEqual(parseCommandLine('echo $HOME'), { command: 'echo', args: ['$HOME'] });
    assert.match((parseCommandLine('   ') as { error: string }).error, /Type the command/);
    assert.match((parseCommandLine('a "b') as { error: string }).error, /not closed/);
  });

  it('labels an agent so that it can be typed back', () => {
    assert.strictEqual(agentLabel({ command: 'gemini', args: ['--acp'] }), 'gemini --acp');
    const label = agentLabel({ command: 'npx', args: ['my agent'] });
    assert.strictEqual(label, 'npx "my agent"');
    assert.deepStrictEqual(parseCommandLine(label), { command: 'npx', args: ['my agent'] });
  });

  it('remembers agents most recent first, without duplicates, bounded, ignoring junk', () => {
    let list = rememberAgent(undefined, { command: 'a' });
    list = rememberAgent(list, { command: 'b', args: ['--acp'] });
    list = rememberAgent(list, { command: 'a', args: [] });
    assert.deepStrictEqual(list.map((a) => a.command), ['a', 'b']);
    for (let i = 0; i < 10; i += 1) list = rememberAgent(list, { command: `c${i}` });
    assert.strictEqual(list.length, MAX_REMEMBERED_AGENTS);
    assert.deepStrictEqual(readRemembered([{ command: '' }, { command: 1 }, 'x', { command: 'ok', args: [1] }, { command: 'ok2', env: { A: 'b' } }]), [{ command: 'ok2', env: { A: 'b' } }]);
    assert.deepStrictEqual(readRemembered({ not: 'a list' }), []);
  });

  it('model names may be empty (the default) but have no spaces and at most 200 characters', () => {
    assert.strictEqual(validateModelName(''), undefined);
    assert.strictEqual(validateModelName('gpt-4.1'), undefined);
    assert.match(validateModelName('gpt 4') ?? '', /no spaces/);
    assert.match(validateModelName('x'.repeat(201)) ?? '', /at most 200/);
  });

  it('finds the key a model configuration needs, following the agent’s auto order', () => {
    assert.strictEqual(apiKeySecretName('anthropic'), 'vigil.apiKey.anthropic');
    assert.strictEqual(apiKeyProviderFor({ provider: 'openai-compatible' }), 'openai-compatible');
    assert.strictEqual(apiKeyProviderFor({ provider: 'anthropic' }), 'anthropic');
    assert.strictEqual(apiKeyProviderFor({ provider: 'demo' }), undefined);
    assert.strictEqual(apiKeyProviderFor({ provider: 'vscode-lm' }), undefined);
    assert.strictEqual(apiKeyProviderFor({ provider: 'auto', baseUrl: 'http://x/v1', name: 'claude-x' }), 'openai-compatible');
    assert.strictEqual(apiKeyProviderFor({ provider: 'auto', name: 'claude-sonnet-4-5' }), 'anthropic');
    assert.strictEqual(apiKeyProviderFor({ provider: 'auto' }), undefined);
  });
});
