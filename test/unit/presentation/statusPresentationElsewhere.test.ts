// The status bar when a turn runs in another window, and when an approval waits where no window shows it.

import * as assert from 'node:assert/strict';
import { presentStatus } from '../../../src/extension/presentation/statusPresentation';
import { presentSession } from '../../../src/extension/presentation/sessionPresentation';

describe('status presentation across windows', () => {
  it('a turn of another window reads "in another window", never idle', () => {
    assert.equal(presentStatus({ phase: 'running', elapsedMs: 42_000, runningTasks: 0, elsewhere: true }).text, '$(sync~spin) Vigil 0:42 · in another window');
    assert.equal(presentStatus({ phase: 'awaitingApproval', runningTasks: 0, elsewhere: true }).text, '$(question) Vigil needs your approval · in another window');
    assert.equal(presentStatus({ phase: 'awaitingApproval', runningTasks: 0, elsewhere: true }).label, 'Vigil: Needs your approval, in another window');
  });

  it('an approval nobody can see is named in every window, with its session', () => {
    const view = presentStatus({ phase: 'idle', runningTasks: 0, unseenApproval: { sessionTitle: 'Fix the build', question: 'run_command npm test', count: 2 } });
    assert.equal(view.text, '$(question) Vigil: “Fix the build” needs your approval');
    assert.equal(view.color, 'prominent');
    assert.match(view.tooltip, /run_command npm test \(\+1 more\) — no window shows it/);
    // This window's own running turn keeps its line; the tooltip still tells.
    const own = presentStatus({ phase: 'running', elapsedMs: 1_000, runningTasks: 0, unseenApproval: { sessionTitle: 'Other', question: 'q', count: 1 } });
    assert.match(own.text, /^\$\(sync~spin\) Vigil 0:01$/);
    assert.match(own.tooltip, /Approval waiting in “Other”/);
  });

  it('the session list says where a turn runs', () => {
    const meta = { id: 's', title: 'Fix the build', createdAt: 0, updatedAt: 0, state: 'idle' as const };
    const row = presentSession(meta as never, 'running', 0, 0, true);
    assert.match(row.description, /^running in another window · /);
    assert.equal(row.turnRunning, true);
  });
});
