// The session list over a real store in the extension host: rows, open command, debounced refresh, rename and delete.

import * as assert from 'node:assert';
import { mkdtempSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { SessionStore } from '../../../src/extension/core/store/sessionStore';
import { SessionNode, SessionTreeProvider } from '../../../src/extension/vscode/sessionTree';
import type { TurnPhase } from '../../../src/shared/sessionView';
import { Stubs } from './stubs';

describe('session tree (extension host)', () => {
  const stubs = new Stubs();
  let store: SessionStore;
  let provider: SessionTreeProvider;
  const phases = new Map<string, TurnPhase>();
  const tasks = [{ sessionId: 'a', status: 'running' }, { sessionId: 'a', status: 'exited' }, { sessionId: 'b', status: 'running' }];

  beforeEach(async () => {
    store = new SessionStore(mkdtempSync(path.join(os.tmpdir(), 'vigil-tree-')), silentLogger);
    await store.init();
    await store.create('First', 'a');
    await store.create('Second', 'b');
    await store.update('b', { state: 'aborted', stateReason: 'no progress for 300 s' });
    phases.clear();
    provider = new SessionTreeProvider({ store: async () => store, statusOf: (id) => phases.get(id), tasks: () => ({ list: (f) => tasks.filter((t) => !f?.sessionId || t.sessionId === f.sessionId) }), logger: silentLogger, createView: false, debounceMs: 20 });
  });

  afterEach(() => {
    stubs.restore();
    provider.dispose();
  });

  it('lists sessions newest first with status, tasks, context value and the open command', async () => {
    phases.set('a', 'stalled');
    const nodes = await provider.getChildren();
    assert.deepStrictEqual(nodes.map((n) => n.meta.id), ['b', 'a']);
    const [second, first] = nodes.map((n) => provider.getTreeItem(n));
    assert.strictEqual(second.contextValue, 'session.aborted.resumable');
    assert.match(String(second.description), /^stopped · just now · 1 bg$/);
    assert.match(String(second.tooltip), /no progress for 300 s/);
    assert.strictEqual(first.contextValue, 'session.running');
    assert.strictEqual((first.iconPath as vscode.ThemeIcon).id, 'warning');
    assert.deepStrictEqual(first.command, { command: 'vigil.openSession', title: 'Open Session', arguments: ['a'] });
    assert.strictEqual(first.id, 'a');
  });

  it('draws a row whose state changed again at once, from the live state and, once its turn ended, the stored one', async () => {
    const nodes = await provider.getChildren();
    for (const node of nodes) provider.getTreeItem(node);
    const fired: Array<SessionNode | undefined> = [];
    provider.onDidChangeTreeData((node) => fired.push(node ?? undefined));
    provider.redrawChanged();
    await new Promise((resolve) => setImmediate(resolve));
    assert.strictEqual(fired.length, 0, 'rows that did not change are left alone');

    // A stall and the stop it leads to come in one tick: one change to draw, at the end of the tick, with no
    // debounce and no listing of the store (the view and the status bar change on the same events).
    phases.set('a', 'stalled');
    provider.redrawChanged();
    phases.set('a', 'awaitingApproval');
    provider.redrawChanged();
    assert.strictEqual(fired.length, 0, 'not before the events of this tick are in');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepStrictEqual(fired.map((n) => n?.meta.id), ['a']);
    assert.match(String(provider.getTreeItem(fired[0]!).description), /^needs your approval · /);

    // The turn ends as stopped: the row reads the session's stored state again before it is drawn.
    phases.delete('a');
    await store.update('a', { state: 'interrupted', stateReason: 'Stopped: no progress for 6 s' });
    provider.redrawChanged();
    await new Promise<void>((resolve) => {
      const sub = provider.onDidChangeTreeData(() => (sub.dispose(), resolve()));
    });
    const item = provider.getTreeItem(fired[1]!);
    assert.match(String(item.description), /^stopped · /);
    assert.strictEqual(item.accessibilityInformation?.label.startsWith('First, stopped · '), true, String(item.accessibilityInformation?.label));
  });

  it('coalesces a burst of refreshes into one change event', async () => {
    let fired = 0;
    provider.onDidChangeTreeData(() => (fired += 1));
    for (let i = 0; i < 50; i += 1) provider.refresh();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.strictEqual(fired, 1);
  });

  it('renames through a validated input box', async () => {
    let validation: unknown;
    stubs.add(vscode.window, 'showInputBox', (async (options?: vscode.InputBoxOptions) => {
      validation = options?.validateInput?.('');
      return '  Renamed  ';
    }) as typeof vscode.window.showInputBox);
    await provider.rename(new SessionNode((await store.get('a'))!));
    assert.match(String(validation), /cannot be empty/);
    assert.strictEqual((await store.get('a'))?.title, 'Renamed');
  });

  it('without an argument, asks which session in a quick pick', async () => {
    stubs.add(vscode.window, 'showQuickPick', (async (items: readonly (vscode.QuickPickItem & { meta: { id: string } })[]) => items.find((i) => i.meta.id === 'b')) as unknown as typeof vscode.window.showQuickPick);
    stubs.add(vscode.window, 'showInputBox', (async () => 'Picked') as typeof vscode.window.showInputBox);
    await provider.rename();
    assert.strictEqual((await store.get('b'))?.title, 'Picked');
  });

  it('refuses to delete a session whose turn runs, saying why, and asks nothing', async () => {
    phases.set('a', 'running');
    const messages: string[] = [];
    stubs.add(vscode.window, 'showWarningMessage', (async (message: string) => {
      messages.push(message);
      return undefined;
    }) as typeof vscode.window.showWarningMessage);
    await provider.delete('a');
    assert.strictEqual(messages.length, 1);
    assert.match(messages[0], /“First” has a turn running\. Stop it first/);
    assert.ok(await store.get('a'));
  });

  it('deletes after a modal confirmation naming the session, and tells the lead', async () => {
    const asked: Array<{ message: string; modal?: boolean }> = [];
    stubs.add(vscode.window, 'showWarningMessage', (async (message: string, options: vscode.MessageOptions) => {
      asked.push({ message, modal: options.modal });
      return 'Delete';
    }) as unknown as typeof vscode.window.showWarningMessage);
    const deleted: string[] = [];
    provider.onDidDeleteSession((id) => deleted.push(id));
    await provider.delete('b');
    assert.deepStrictEqual(asked, [{ message: 'Delete the session “Second”?', modal: true }]);
    assert.strictEqual(await store.get('b'), undefined);
    assert.deepStrictEqual(deleted, ['b']);
  });

  it('keeps the session when the confirmation is dismissed', async () => {
    stubs.add(vscode.window, 'showWarningMessage', (async () => undefined) as typeof vscode.window.showWarningMessage);
    await provider.delete('b');
    assert.ok(await store.get('b'));
  });
});
