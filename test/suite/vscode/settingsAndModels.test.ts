// Settings, approvals, secrets and the model commands in the extension host: real configuration writes, stubbed prompts.

import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { PermissionAnswer, PermissionQuestion } from '../../../src/extension/core/acp/hostPorts';
import type { Logger } from '../../../src/extension/core/ports/logger';
import { REDACTED, Redactor } from '../../../src/extension/core/common/redactor';
import { ApprovalPrompter, SettingsApprovalPolicy, type ApprovalSurface } from '../../../src/extension/vscode/acpHostPorts';
import { VigilConfiguration, type VigilSettingsChange } from '../../../src/extension/vscode/configuration';
import { layersFromSection } from '../../../src/extension/core/settings/sectionLayers';
import { SETTING_KEYS } from '../../../src/extension/core/settings/settingsValidation';
import { ModelCommands } from '../../../src/extension/vscode/modelCommands';
import { SecretStorageSource } from '../../../src/extension/vscode/secrets';
import { Stubs, waitFor } from './stubs';

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (m: string | Error) => lines.push(String(m));
  return { lines, trace: push, debug: push, info: push, warn: push, error: push };
}

class MemorySecrets implements vscode.SecretStorage {
  readonly values = new Map<string, string>();
  private readonly emitter = new vscode.EventEmitter<vscode.SecretStorageChangeEvent>();
  readonly onDidChange = this.emitter.event;
  async get(key: string) {
    return this.values.get(key);
  }
  async store(key: string, value: string) {
    this.values.set(key, value);
    this.emitter.fire({ key });
  }
  async delete(key: string) {
    this.values.delete(key);
    this.emitter.fire({ key });
  }
}

class MemoryState implements vscode.Memento {
  private readonly values = new Map<string, unknown>();
  keys() {
    return [...this.values.keys()];
  }
  get<T>(key: string, fallback?: T): T | undefined {
    return (this.values.has(key) ? this.values.get(key) : fallback) as T | undefined;
  }
  async update(key: string, value: unknown) {
    this.values.set(key, value);
  }
}

const global = vscode.ConfigurationTarget.Global;
const touched = ['wakeups.maxPerTurn', 'turnLiveness.timeoutSeconds', 'model.provider', 'model.baseUrl', 'model.name', 'agent', 'approvals.byKind'];

describe('settings, approvals and model commands (extension host)', () => {
  const stubs = new Stubs();
  let config: VigilConfiguration;
  let logger: ReturnType<typeof recordingLogger>;
  let warnings: string[];

  beforeEach(() => {
    logger = recordingLogger();
    warnings = [];
    stubs.add(vscode.window, 'showWarningMessage', (async (m: string) => {
      warnings.push(m);
      return undefined;
    }) as typeof vscode.window.showWarningMessage);
    config = new VigilConfiguration(logger);
  });

  afterEach(async () => {
    stubs.restore();
    config.dispose();
    const vigil = vscode.workspace.getConfiguration('vigil');
    for (const key of touched) await vigil.update(key, undefined, global);
  });

  const changed = () => waitFor<VigilSettingsChange>((l) => config.onDidChange(l), () => true);

  it('reads the contributed defaults and the workspace trust', () => {
    assert.strictEqual(config.settings.wakeups.maxPerTurn, 5);
    assert.strictEqual(config.settings.liveness.timeoutMs, 300_000);
    assert.deepStrictEqual(config.settings.agent, { kind: 'built-in' });
    assert.strictEqual(config.isTrusted(), vscode.workspace.isTrusted);
    assert.deepStrictEqual(warnings, []);
  });

  it('one inspect of the vigil section gives each setting the layers its own inspect gives', async () => {
    const vigil = vscode.workspace.getConfiguration('vigil');
    const workspace = vscode.ConfigurationTarget.Workspace;
    try {
      await vigil.update('model.provider', 'openai-compatible', global);
      await vigil.update('approvals.byKind', { execute: 'ask' }, global);
      await vigil.update('agent', { command: 'gemini', args: ['--acp'] }, workspace);
      await vigil.update('model.baseUrl', 'http://127.0.0.1:9/v1', workspace);
      await vigil.update('notifications.stalled', false, workspace);
      const fresh = vscode.workspace.getConfiguration('vigil');
      const fromSection = layersFromSection(vscode.workspace.getConfiguration().inspect('vigil'));
      for (const key of SETTING_KEYS) {
        const own = fresh.inspect(key);
        const expected = Object.fromEntries((['defaultValue', 'globalValue', 'workspaceValue', 'workspaceFolderValue'] as const).filter((l) => own?.[l] !== undefined).map((l) => [l, own?.[l]]));
        assert.deepStrictEqual(fromSection(key), expected, `vigil.${key}`);
      }
      assert.deepStrictEqual(fromSection('agent').workspaceValue, { command: 'gemini', args: ['--acp'] }, 'the workspace layer was read');
    } finally {
      for (const key of ['agent', 'model.baseUrl', 'notifications.stalled']) await vigil.update(key, undefined, workspace);
    }
  });

  it('an invalid value falls back, fires the change, and is reported once per key', async () => {
    let event = changed();
    await vscode.workspace.getConfiguration('vigil').update('wakeups.maxPerTurn', 0, global);
    const change = await event;
    assert.strictEqual(change.settings.wakeups.maxPerTurn, 5);
    assert.ok(change.affects('vigil.wakeups'));
    // The running extension's own configuration reports too (same API object): count what is new, not what is total.
    const first = warnings.length;
    assert.ok(first >= 1);
    for (const warning of warnings) assert.match(warning, /vigil\.wakeups\.maxPerTurn is number 0; it must be a whole number from 1 to 100/);
    event = changed();
    await vscode.workspace.getConfiguration('vigil').update('wakeups.maxPerTurn', 1000, global);
    await event;
    assert.strictEqual(warnings.length, first, 'the same key is not reported twice');
    assert.ok(logger.lines.some((l) => l.includes('vigil.wakeups.maxPerTurn')));
  });

  it('turnLiveness goes through the supervisor’s resolver, and its warning reaches the person', async () => {
    const event = changed();
    await vscode.workspace.getConfiguration('vigil').update('turnLiveness.timeoutSeconds', 'soon', global);
    const change = await event;
    assert.strictEqual(change.settings.liveness.timeoutMs, 300_000);
    assert.ok(warnings.length >= 1);
    for (const warning of warnings) assert.match(warning, /vigil\.turnLiveness\.timeoutSeconds has an invalid value/);
  });

  it('a custom agent reaches the launcher shape; approvals apply per kind', async () => {
    const event = changed();
    await vscode.workspace.getConfiguration('vigil').update('agent', { command: 'gemini', args: ['--acp'] }, global);
    await vscode.workspace.getConfiguration('vigil').update('approvals.byKind', { execute: 'ask' }, global);
    await event;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepStrictEqual(config.customAgent(), { command: 'gemini', args: ['--acp'], env: {}, secretEnv: [] });
    const policy = new SettingsApprovalPolicy(config);
    assert.strictEqual(policy.mode('execute'), 'ask');
    assert.strictEqual(policy.mode('read'), 'allowReadOnly');
    assert.strictEqual(policy.isTrusted(), vscode.workspace.isTrusted);
  });

  it('Select Model writes an OpenAI-compatible endpoint globally and offers to set the key', async () => {
    const inputs = ['http://127.0.0.1:11434/v1', 'llama3.1'];
    const validations: unknown[] = [];
    stubs.add(vscode.window, 'showQuickPick', (async (items: readonly (vscode.QuickPickItem & { value?: string })[]) => items.find((i) => i.value === 'openai-compatible')) as unknown as typeof vscode.window.showQuickPick);
    stubs.add(vscode.window, 'showInputBox', (async (options?: vscode.InputBoxOptions) => {
      validations.push(options?.validateInput?.('localhost:1234'));
      return inputs.shift();
    }) as typeof vscode.window.showInputBox);
    const infos: string[] = [];
    stubs.add(vscode.window, 'showInformationMessage', (async (m: string) => {
      infos.push(m);
      return undefined;
    }) as typeof vscode.window.showInformationMessage);
    const secrets = new SecretStorageSource(new MemorySecrets(), logger);
    await new ModelCommands({ globalState: new MemoryState(), secrets, config, logger }).selectModel();
    const vigil = vscode.workspace.getConfiguration('vigil');
    assert.strictEqual(vigil.inspect('model.provider')?.globalValue, 'openai-compatible');
    assert.strictEqual(vigil.inspect('model.baseUrl')?.globalValue, 'http://127.0.0.1:11434/v1');
    assert.strictEqual(vigil.inspect('model.name')?.globalValue, 'llama3.1');
    assert.match(String(validations[0]), /http:\/\/ or https:\/\//);
    assert.ok(infos.some((m) => /local servers often need none/.test(m)));
    secrets.dispose();
  });

  it('Select Model with vscode-lm and no model says so clearly and writes nothing', async () => {
    stubs.add(vscode.window, 'showQuickPick', (async (items: readonly (vscode.QuickPickItem & { value?: string })[]) => items.find((i) => i.value === 'vscode-lm')) as unknown as typeof vscode.window.showQuickPick);
    const secrets = new SecretStorageSource(new MemorySecrets(), logger);
    await new ModelCommands({ globalState: new MemoryState(), secrets, config, logger, chatModels: async () => [] }).selectModel();
    assert.match(warnings.join('\n'), /offers no language model/);
    assert.strictEqual(vscode.workspace.getConfiguration('vigil').inspect('model.provider')?.globalValue, undefined);
    secrets.dispose();
  });

  it('Select Agent: typing a command sets vigil.agent; switching back to built-in remembers it', async () => {
    const state = new MemoryState();
    const secrets = new SecretStorageSource(new MemorySecrets(), logger);
    const commands = new ModelCommands({ globalState: state, secrets, config, logger });
    stubs.add(vscode.window, 'showInformationMessage', (async () => undefined) as typeof vscode.window.showInformationMessage);
    let pick = 'Enter an ACP agent command';
    let offered: string[] = [];
    stubs.add(vscode.window, 'showQuickPick', (async (items: readonly vscode.QuickPickItem[]) => {
      offered = items.map((i) => i.label);
      return items.find((i) => i.label.includes(pick));
    }) as unknown as typeof vscode.window.showQuickPick);
    stubs.add(vscode.window, 'showInputBox', (async () => 'gemini --acp') as typeof vscode.window.showInputBox);
    let event = changed();
    await commands.selectAgent();
    await event;
    assert.deepStrictEqual(vscode.workspace.getConfiguration('vigil').inspect('agent')?.globalValue, { command: 'gemini', args: ['--acp'], env: {} });
    pick = 'Built-in agent';
    event = changed();
    await commands.selectAgent();
    await event;
    assert.strictEqual(vscode.workspace.getConfiguration('vigil').inspect('agent')?.globalValue, undefined);
    pick = '\u0000';
    await commands.selectAgent();
    assert.ok(offered.some((l) => l.includes('gemini --acp')), 'the third-party agent stays one pick away');
    secrets.dispose();
  });

  it('Set API Key stores in SecretStorage, an empty input deletes, and the key never reaches the log', async () => {
    const storage = new MemorySecrets();
    const secrets = new SecretStorageSource(storage, logger);
    const commands = new ModelCommands({ globalState: new MemoryState(), secrets, config, logger });
    stubs.add(vscode.window, 'showInformationMessage', (async () => undefined) as typeof vscode.window.showInformationMessage);
    let passwordBox = false;
    let input = 'sk-secret-123';
    stubs.add(vscode.window, 'showInputBox', (async (options?: vscode.InputBoxOptions) => {
      passwordBox = options?.password === true;
      return input;
    }) as typeof vscode.window.showInputBox);
    await commands.setApiKey('anthropic');
    assert.ok(passwordBox);
    assert.strictEqual(storage.values.get('vigil.apiKey.anthropic'), 'sk-secret-123');
    assert.strictEqual(await secrets.apiKeyFor({ provider: 'auto', name: 'claude-sonnet-4-5' }), 'sk-secret-123');
    assert.strictEqual(await secrets.apiKey('openai-compatible'), undefined);
    input = '';
    await commands.setApiKey('anthropic');
    assert.strictEqual(storage.values.has('vigil.apiKey.anthropic'), false);
    assert.ok(!logger.lines.some((l) => l.includes('sk-secret')), 'no key in the log');
    secrets.dispose();
  });

  it('keys already stored, set with Set API Key, or set by another window are secrets at once', async () => {
    const storage = new MemorySecrets();
    storage.values.set('vigil.apiKey.anthropic', 'sk-ant-stored-0123456789');
    const redactor = new Redactor();
    const secrets = new SecretStorageSource(storage, logger, redactor);
    await secrets.learned;
    assert.strictEqual(redactor.redact('x sk-ant-stored-0123456789'), `x ${REDACTED}`, 'a stored key is known before the services start');
    const commands = new ModelCommands({ globalState: new MemoryState(), secrets, config, logger });
    stubs.add(vscode.window, 'showInformationMessage', (async () => undefined) as typeof vscode.window.showInformationMessage);
    stubs.add(vscode.window, 'showInputBox', (async () => 'sk-new-key-abcdef012345') as typeof vscode.window.showInputBox);
    await commands.setApiKey('openai-compatible');
    assert.strictEqual(redactor.redact('sk-new-key-abcdef012345'), REDACTED, 'the next write already redacts it');
    const changed = new Promise<void>((resolve) => secrets.onDidChange((provider) => provider === 'anthropic' && resolve()));
    // Another window stores a key: this window learns it before announcing the change.
    await storage.store('vigil.apiKey.anthropic', 'sk-from-other-window-987654');
    await changed;
    assert.strictEqual(redactor.redact('sk-from-other-window-987654'), REDACTED);
    secrets.dispose();
  });
});

describe('approval prompter (extension host)', () => {
  const stubs = new Stubs();
  const question: PermissionQuestion = { sessionId: 's1', title: 'run_command npm test', kind: 'execute' };
  afterEach(() => stubs.restore());

  function surface(showing: boolean, answer?: PermissionAnswer): ApprovalSurface & { signals: AbortSignal[] } {
    const signals: AbortSignal[] = [];
    return {
      signals,
      isShowing: () => showing,
      ask: (_q, signal) => {
        signals.push(signal);
        return answer ? Promise.resolve(answer) : new Promise(() => undefined);
      },
    };
  }

  it('without a session view, asks in a notification with the three answers', async () => {
    let buttons: string[] = [];
    stubs.add(vscode.window, 'showInformationMessage', (async (_m: string, _o: vscode.MessageOptions, ...items: string[]) => {
      buttons = items;
      return 'Allow always';
    }) as unknown as typeof vscode.window.showInformationMessage);
    const prompter = new ApprovalPrompter({ logger: recordingLogger() });
    assert.strictEqual(await prompter.ask(question, new AbortController().signal), 'allowAlways');
    assert.deepStrictEqual(buttons, ['Allow once', 'Allow always', 'Reject']);
  });

  it('a session view that shows the session answers alone, and the question is withdrawn after', async () => {
    let notified = false;
    stubs.add(vscode.window, 'showInformationMessage', (async () => {
      notified = true;
      return undefined;
    }) as typeof vscode.window.showInformationMessage);
    const view = surface(true, 'reject');
    assert.strictEqual(await new ApprovalPrompter({ logger: recordingLogger(), surface: () => view }).ask(question, new AbortController().signal), 'reject');
    assert.strictEqual(notified, false);
    assert.strictEqual(view.signals[0].aborted, true);
  });

  it('an abort answers cancelled at once and withdraws the question from the view', async () => {
    stubs.add(vscode.window, 'showInformationMessage', (() => new Promise(() => undefined)) as typeof vscode.window.showInformationMessage);
    const view = surface(false);
    const turn = new AbortController();
    const pending = new ApprovalPrompter({ logger: recordingLogger(), surface: () => view }).ask(question, turn.signal);
    turn.abort();
    assert.strictEqual(await pending, 'cancelled');
    assert.strictEqual(view.signals[0].aborted, true);
  });
});
