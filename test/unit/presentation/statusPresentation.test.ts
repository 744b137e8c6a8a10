// The status bar's text, colours and tooltip for every state of the table in docs/ui.md.

import * as assert from 'node:assert';
import { formatElapsed, presentStatus } from '../../../src/extension/presentation/statusPresentation';

describe('status bar presentation', () => {
  it('idle shows the robot and the running task count only when there is one', () => {
    assert.strictEqual(presentStatus({ phase: 'idle', runningTasks: 0 }).text, '$(hubot) Vigil');
    assert.strictEqual(presentStatus({ phase: 'idle', runningTasks: 1 }).text, '$(hubot) Vigil · 1 bg');
    assert.strictEqual(presentStatus({ phase: 'idle', runningTasks: 0 }).background, undefined);
  });

  it('running counts the turn time and background tasks', () => {
    assert.strictEqual(presentStatus({ phase: 'running', elapsedMs: 42_400, runningTasks: 2 }).text, '$(sync~spin) Vigil 0:42 · 2 bg');
  });

  it('quiet is a warning colour with the silence in seconds', () => {
    const view = presentStatus({ phase: 'quiet', silenceMs: 170_900, runningTasks: 0 });
    assert.strictEqual(view.text, '$(watch) Vigil silent 170s');
    assert.strictEqual(view.color, 'warning');
  });

  it('stalled has a warning background and says it is recovering, not that it aborted', () => {
    const view = presentStatus({ phase: 'stalled', silenceMs: 300_000, runningTasks: 0, waitingOn: 'model' });
    assert.strictEqual(view.text, '$(warning) Vigil stalled 300s — recovering');
    assert.strictEqual(view.background, 'warning');
    assert.doesNotMatch(view.text, /abort/i);
  });

  it('aborted and interrupted have an error background and offer Resume', () => {
    for (const phase of ['aborted', 'interrupted'] as const) {
      const view = presentStatus({ phase, runningTasks: 0 });
      assert.strictEqual(view.background, 'error');
      assert.match(view.text, /^\$\(error\) Vigil turn .* — Resume$/);
    }
  });

  it('approval is prominent', () => {
    const view = presentStatus({ phase: 'awaitingApproval', runningTasks: 0 });
    assert.strictEqual(view.text, '$(question) Vigil needs approval');
    assert.strictEqual(view.color, 'prominent');
  });

  it('the tooltip names the session, phase, what it waits on, silence and tasks', () => {
    const { tooltip } = presentStatus({ phase: 'running', sessionTitle: 'Fix tests', waitingOn: 'tool run_command', silenceMs: 4_000, elapsedMs: 9_000, runningTasks: 1 });
    for (const part of ['Fix tests', 'running', 'tool run_command', '4 s', 'Background tasks running: 1']) assert.ok(tooltip.includes(part), part);
  });

  it('formats long turns with hours', () => {
    assert.strictEqual(formatElapsed(3_725_000), '1:02:05');
    assert.strictEqual(formatElapsed(-5), '0:00');
  });
});
