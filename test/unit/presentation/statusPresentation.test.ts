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
    assert.strictEqual(view.text, '$(watch) Vigil quiet 170s');
    assert.strictEqual(view.color, 'warning');
  });

  it('stalled has a warning background and says the turn is being stopped, not that it was', () => {
    const view = presentStatus({ phase: 'stalled', silenceMs: 300_000, runningTasks: 0, waitingOn: 'model' });
    assert.strictEqual(view.text, '$(warning) Vigil stalled 300s — stopping');
    assert.strictEqual(view.background, 'warning');
    assert.doesNotMatch(view.text, /abort|stopped/i);
  });

  it('aborted and interrupted are one state, stopped, with an error background, Resume, and why in the tooltip', () => {
    for (const phase of ['aborted', 'interrupted'] as const) {
      const view = presentStatus({ phase, runningTasks: 0, why: 'Stopped: no progress for 6 s' });
      assert.strictEqual(view.background, 'error');
      assert.strictEqual(view.text, '$(debug-stop) Vigil turn stopped — Resume');
      assert.match(view.tooltip, /^Status: Stopped$/m);
      assert.match(view.tooltip, /^Why: Stopped: no progress for 6 s$/m);
    }
  });

  it('approval is prominent', () => {
    const view = presentStatus({ phase: 'awaitingApproval', runningTasks: 0 });
    assert.strictEqual(view.text, '$(question) Vigil needs your approval');
    assert.strictEqual(view.color, 'prominent');
  });

  it('the tooltip names the session, state, what it waits on, for how long and tasks', () => {
    const { tooltip } = presentStatus({ phase: 'running', sessionTitle: 'Fix tests', waitingOn: 'tool run_command', silenceMs: 4_000, elapsedMs: 9_000, runningTasks: 1 });
    for (const part of ['Fix tests', 'Status: Running', 'tool run_command', 'No progress for: 4 s', 'Background tasks running: 1']) assert.ok(tooltip.includes(part), part);
  });

  it('a screen reader hears the state’s term first, and no icon names', () => {
    assert.strictEqual(presentStatus({ phase: 'idle', runningTasks: 0 }).label, 'Vigil: Idle');
    assert.strictEqual(presentStatus({ phase: 'running', elapsedMs: 42_000, runningTasks: 2 }).label, 'Vigil: Running, 0:42, 2 background tasks running');
    assert.strictEqual(presentStatus({ phase: 'quiet', silenceMs: 170_000, runningTasks: 0 }).label, 'Vigil: Quiet, no progress for 170 s');
    assert.strictEqual(presentStatus({ phase: 'stalled', silenceMs: 300_000, runningTasks: 0 }).label, 'Vigil: Stalled, no progress for 300 s, stopping the turn');
    assert.strictEqual(presentStatus({ phase: 'interrupted', runningTasks: 0, why: 'Stopped by you' }).label, 'Vigil: Stopped by you, Resume to continue');
    assert.strictEqual(presentStatus({ phase: 'aborted', runningTasks: 0, why: 'The window closed. Resume to continue.' }).label, 'Vigil: Stopped, Resume to continue');
  });

  it('formats long turns with hours', () => {
    assert.strictEqual(formatElapsed(3_725_000), '1:02:05');
    assert.strictEqual(formatElapsed(-5), '0:00');
  });
});
