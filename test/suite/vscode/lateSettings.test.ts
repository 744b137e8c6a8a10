// A window whose user settings reach the extension host late: the agent is chosen from the settings only
// once Vigil knows them (issue: a prompt went to the built-in agent while settings.json named another).
// The editor's side is stubbed: a real write of settings.json behind the workbench's back would reach this shared
// workbench at a time of its own choosing and leak into the tests after it; settingsArrival.e2e.ts does that
// in a workbench of its own.

import * as assert from 'node:assert';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../../src/extension/core/ports/logger';
import { isVigilError } from '../../../src/extension/core/common/errors';
import { VigilConfiguration } from '../../../src/extension/vscode/configuration';
import { userSettingsFileReader } from '../../../src/extension/vscode/userSettingsFile';

const lines: string[] = [];
const logger: Logger = { trace() {}, debug() {}, info: (m) => lines.push(String(m)), warn: (m) => lines.push(String(m)), error: (m) => lines.push(String(m)) };
const lateAgent = { command: '/opt/agents/late-agent', args: ['--acp'] };

/** The harness gives the workbench HOME = <run>/home and --user-data-dir <run>/user-data. */
const userDir = path.join(process.env.HOME ?? '', '..', 'user-data', 'User');
/** What the extension's global storage would be: the reader finds settings.json two folders above it. */
const storageUri = vscode.Uri.file(path.join(userDir, 'globalStorage', 'vigil.test'));

describe('settings that reach the window late (extension host)', () => {
  let config: VigilConfiguration | undefined;
  afterEach(() => config?.dispose());

  it('finds the user settings file beside the extension storage', async () => {
    const file = await userSettingsFileReader(storageUri, logger)();
    assert.ok(file, `no settings file at ${path.join(userDir, 'settings.json')}`);
    assert.match(file.text, /vigil\.model\.provider/);
  });

  it('with a stubbed source: holds, says so once, and goes on with the delivered agent', async () => {
    const editor: { delivered?: unknown } = {};
    let waited = 0;
    config = new VigilConfiguration(logger, {
      notify: false,
      source: () => ({
        get: (key: string) => (key === 'agent' ? editor.delivered : undefined),
        inspect: (key: string) => ({ key: `vigil.${key}`, globalValue: key === 'agent' ? editor.delivered : undefined, globalLocalValue: key === 'agent' ? editor.delivered : undefined }),
      }) as unknown as vscode.WorkspaceConfiguration,
      settingsFile: async () => ({ path: '/u/settings.json', text: JSON.stringify({ 'vigil.agent': lateAgent }) }),
      agentChoiceWait: { recheckMs: 10, boundMs: 60_000 },
    });
    assert.strictEqual(config.customAgent(), undefined, 'before delivery the editor reports no agent');
    let seen: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (seen = resolve));
    const settled = config.agentChoiceSettled({ waiting: () => (waited++, seen()) });
    await waiting;
    editor.delivered = lateAgent;
    await settled;
    assert.strictEqual(waited, 1);
    assert.strictEqual(config.customAgent()?.command, lateAgent.command, 'the settings are read again once they agree');
  });

  it('with a stubbed source that never delivers: explains after the bound and launches nothing', async () => {
    config = new VigilConfiguration(logger, {
      notify: false,
      source: () => ({ get: () => undefined, inspect: (key: string) => ({ key: `vigil.${key}`, globalLocalValue: undefined }) }) as unknown as vscode.WorkspaceConfiguration,
      settingsFile: async () => ({ path: '/u/settings.json', text: JSON.stringify({ 'vigil.agent': lateAgent }) }),
      agentChoiceWait: { recheckMs: 10, boundMs: 100 },
    });
    await assert.rejects(config.launchSettings(), (error: unknown) => isVigilError(error, 'AGENT_FAILED') && /cannot tell which agent you chose/.test(error.message));
  });
});
