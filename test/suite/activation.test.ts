// The extension activates in a real extension host and registers everything it contributes.

import * as assert from 'node:assert';
import * as vscode from 'vscode';

const extensionId = 'vigil.vigil';

describe('activation (extension host)', () => {
  it('activates and reports its activation time', async () => {
    const extension = vscode.extensions.getExtension(extensionId);
    assert.ok(extension, 'extension vigil.vigil is installed');
    const api = (await extension.activate()) as { activationMs: number };
    assert.strictEqual(extension.isActive, true);
    assert.ok(typeof api.activationMs === 'number' && api.activationMs > 0, 'activationMs is measured');
    console.log(`activation time: ${api.activationMs.toFixed(1)} ms`);
  });

  it('registers every contributed command', async () => {
    const extension = vscode.extensions.getExtension(extensionId)!;
    const contributed = (extension.packageJSON.contributes.commands as Array<{ command: string }>).map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepStrictEqual(missing, []);
  });

  it('contributes every setting of the UI contract with its default', () => {
    const config = vscode.workspace.getConfiguration('vigil');
    assert.strictEqual(config.get('turnLiveness.timeoutSeconds'), 300);
    assert.strictEqual(config.get('turnLiveness.toolTimeoutSeconds'), 1800);
    assert.strictEqual(config.get('turnLiveness.graceSeconds'), 10);
    assert.strictEqual(config.get('wakeups.maxPerTurn'), 5);
    assert.strictEqual(config.get('agent'), 'built-in');
    assert.strictEqual(config.get('approvals.policy'), 'allowReadOnly');
  });
});
