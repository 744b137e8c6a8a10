// A session tab restored after a window reload, in a real extension host: VS Code hands the serializer a panel and
// the state its webview saved. The panel gets its session back when the state names one of this window's
// sessions; a panel naming no session, a session that is gone, or a session that already has a tab is closed.

import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { VigilApi } from '../../../src/extension/vscode/activation';
import { SessionPanels } from '../../../src/extension/vscode/webview/sessionPanels';

type Restorable = { restore(panel: vscode.WebviewPanel, state: unknown): Promise<void> };

describe('session tabs restored after a reload (extension host)', () => {
  let api: VigilApi;
  const panels: vscode.WebviewPanel[] = [];

  before(async () => {
    api = (await vscode.extensions.getExtension('vigil.vigil')!.activate()) as VigilApi;
  });

  after(() => {
    for (const panel of panels) panel.dispose();
  });

  /** A panel as VS Code restores one: of Vigil's view type, not yet given to anyone. */
  function restoredPanel(): { panel: vscode.WebviewPanel; disposed: () => boolean } {
    const panel = vscode.window.createWebviewPanel(SessionPanels.viewType, 'Vigil', vscode.ViewColumn.Active, { enableScripts: true });
    panels.push(panel);
    let gone = false;
    panel.onDidDispose(() => (gone = true));
    return { panel, disposed: () => gone };
  }

  it('gives a restored panel the session its state names, and closes one naming none, a session gone, or one with a tab', async () => {
    const services = await api.app.services();
    const meta = await services.supervisor.sessions.create('Restored tab');
    const tabs = api.app.panels as unknown as Restorable;

    const kept = restoredPanel();
    await tabs.restore(kept.panel, { sessionId: meta.id, draft: '' });
    assert.strictEqual(kept.disposed(), false, 'the panel naming a session of this window stays');
    assert.ok(api.app.panels.get(meta.id), 'it is that session’s tab');

    const second = restoredPanel();
    await tabs.restore(second.panel, { sessionId: meta.id });
    assert.strictEqual(second.disposed(), true, 'a second tab of one session is closed');

    for (const state of [undefined, null, {}, { sessionId: 42 }, { sessionId: '' }, { sessionId: '../../etc' }, { sessionId: 'no-such-session' }, { sessionId: 'x'.repeat(100_000) }]) {
      const stray = restoredPanel();
      await tabs.restore(stray.panel, state);
      assert.strictEqual(stray.disposed(), true, `closed: ${JSON.stringify(state)}`);
    }
    assert.strictEqual(api.app.panels.get('no-such-session'), undefined);
    api.app.panels.close(meta.id);
  });
});
