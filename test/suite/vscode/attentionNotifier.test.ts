// Notifications in the real extension host with a fake window-state source: a finished turn while the window
// is not focused shows one notification whose "Open Session" opens that session; the setting turns it off.

import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { validateSettings } from '../../../src/extension/core/settings/settingsValidation';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import type { SupervisorEvent } from '../../../src/extension/core/supervisor/supervisorEvents';
import { AttentionNotifier, OPEN_SESSION } from '../../../src/extension/vscode/attentionNotifier';
import { Stubs } from './stubs';

describe('attention notifier (extension host)', () => {
  const stubs = new Stubs();
  let notifier: AttentionNotifier | undefined;
  let listeners: Array<(event: SupervisorEvent) => void> = [];
  let focused = false;
  const shown: Array<{ severity: string; text: string; actions: string[] }> = [];
  const executed: unknown[][] = [];

  const finished = (turnId: string): SupervisorEvent => ({ type: 'turnEnded', ended: { sessionId: 's1', turnId, source: 'user', reason: 'completed' } });
  const emit = (event: SupervisorEvent) => listeners.forEach((l) => l(event));
  let settled: () => void = () => undefined;
  const nextShown = () => new Promise<void>((resolve) => (settled = resolve));

  beforeEach(() => {
    shown.length = 0;
    executed.length = 0;
    listeners = [];
    focused = false;
    const answer = (severity: string) => ((text: string, ...actions: string[]) => {
      shown.push({ severity, text, actions });
      settled();
      return Promise.resolve(OPEN_SESSION);
    }) as never;
    stubs.add(vscode.window, 'showInformationMessage', answer('info'));
    stubs.add(vscode.window, 'showWarningMessage', answer('warning'));
    stubs.add(vscode.window, 'showErrorMessage', answer('error'));
    stubs.add(vscode.commands, 'executeCommand', ((...args: unknown[]) => {
      executed.push(args);
      return Promise.resolve(undefined);
    }) as never);
    notifier = new AttentionNotifier({
      subscribe: (listener) => {
        listeners.push(listener);
        return () => (listeners = listeners.filter((l) => l !== listener));
      },
      showing: () => true,
      approvalPrompterNotifies: () => false,
      title: async () => 'Fix the build',
      redact: (text) => text.replace('sk-secret', '***'),
      // Read as the app reads them: through the validator, from the real configuration.
      settings: () => validateSettings((key) => vscode.workspace.getConfiguration('vigil').get(key)).settings.notifications,
      logger: silentLogger,
      windowFocused: () => focused,
    });
  });

  afterEach(async () => {
    notifier?.dispose();
    stubs.restore();
    await vscode.workspace.getConfiguration('vigil.notifications').update('turnFinished', undefined, vscode.ConfigurationTarget.Global);
  });

  it('an unfocused window gets one notification, and Open Session opens that session', async () => {
    const seen = nextShown();
    emit(finished('t1'));
    emit(finished('t1'));
    await seen;
    await until(() => executed.length > 0);
    assert.deepStrictEqual(shown, [{ severity: 'info', text: 'Vigil: the agent finished its turn in “Fix the build”.', actions: [OPEN_SESSION] }]);
    assert.deepStrictEqual(executed, [['vigil.openSession', 's1']]);
  });

  it('a focused window showing the session gets none; a stall is a warning', async () => {
    focused = true;
    emit(finished('t2'));
    focused = false;
    const seen = nextShown();
    emit({ type: 'stallObserved', sessionId: 's1', turnId: 't3', seconds: 300, waitingOn: { kind: 'model' }, message: 'Stalled: no progress for 300 s', detail: 'the mechanism' });
    await seen;
    assert.deepStrictEqual(shown.map((s) => [s.severity, s.text]), [['warning', 'Vigil (“Fix the build”): Stalled: no progress for 300 s (waiting on: model). Vigil is stopping the turn.']]);
  });

  it('vigil.notifications.turnFinished = false turns finished turns off, and nothing else', async () => {
    await vscode.workspace.getConfiguration('vigil.notifications').update('turnFinished', false, vscode.ConfigurationTarget.Global);
    emit(finished('t4'));
    const seen = nextShown();
    emit({ type: 'turnStarted', sessionId: 's1', turnId: 't5', source: 'wakeup', startedAt: 0 });
    await seen;
    assert.deepStrictEqual(shown.map((s) => s.text), ['Vigil: a background task woke the agent in “Fix the build”.']);
  });
});

async function until(condition: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
