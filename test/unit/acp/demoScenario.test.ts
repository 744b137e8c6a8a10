// The demo end to end on plain Node: the built-in agent (demo model) under the real supervisor, with
// the real task registry: prompt → background build → end turn → completion → wakeup turn → report.

import * as assert from 'node:assert/strict';
import { builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import type { TaskCompletion } from '../../../src/extension/core/tasks/taskTypes';
import { TaskRegistry } from '../../../src/extension/core/tasks/taskRegistry';
import { formatWakeupPrompt } from '../../../src/extension/core/wakeups/wakeupPrompt';
import { ensureAgentBundle } from '../agent/agentBundle';
import { AcpHarness } from './acpHarness';

describe('demo scenario end to end (built-in agent, demo model, real task registry)', function () {
  this.timeout(60_000);
  let h: AcpHarness | undefined;
  let registry: TaskRegistry | undefined;

  afterEach(async () => {
    await h?.dispose();
    registry?.dispose();
  });

  it('answers, reads a file, starts a background build, ends its turn, and reports the result when woken', async () => {
    const bundle = await ensureAgentBundle();
    const completions: TaskCompletion[] = [];
    let completed: (() => void) | undefined;
    h = await AcpHarness.create({
      launch: () => builtinLaunch({ agentScript: bundle, execPath: process.execPath, model: { provider: 'demo', demoBuildSeconds: 0.3 } }),
      terminalHost: async (storageRoot) => {
        registry = await TaskRegistry.open({
          storageRoot,
          workspaceFolder: () => h!.workspace,
          onCompletion: async (c) => {
            completions.push(c);
            completed?.();
          },
        });
        return registry;
      },
    });
    // The policy allows commands, so the demo runs without a person clicking.
    h.mode = 'allowAll';
    const gotCompletion = new Promise<void>((resolve) => (completed = resolve));

    const first = await h.turn('Show me what Vigil does.');
    assert.equal(first.reason, 'completed', first.message);
    const firstText = h.agentText();
    assert.match(firstText, /demo model/);
    assert.match(firstText, /I'll read `README.md`/);
    assert.match(firstText, /It has \d+ lines and starts with: “# Demo project”/);
    assert.match(firstText, /runs in the background as task t-[0-9a-f]+/);
    assert.ok(h.activity().some((e) => e.description.startsWith('background task t-')), 'the background start was activity');

    await gotCompletion;
    assert.equal(completions[0].exitCode, 0);
    const wakeup = formatWakeupPrompt(completions);
    assert.ok(wakeup.startsWith(`[IMPORTANT: Background task ${completions[0].taskId} completed (exit code 0)`));

    const r = await h.sup.startTurn('session-1', wakeup, { source: 'wakeup' });
    assert.equal(r.kind, 'started');
    const second = await (r as { ended: Promise<{ reason: string; message?: string }> }).ended;
    assert.equal(second.reason, 'completed', second.message);
    const all = h.agentText();
    assert.match(all, new RegExp(`Vigil woke me: background task ${completions[0].taskId} finished \\(exit code 0\\)`));
    assert.match(all, /demo build: 3 modules, 0 errors/);
  });
});
