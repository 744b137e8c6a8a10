// A foreground command of the built-in agent is killed by its own timeout or by the turn's cancel, whichever
// comes first, and the result says which. The fake terminal exits only when killed: nothing races elapsed time.

import * as assert from 'node:assert/strict';
import { runTool } from '../../../src/agent/tools/runTool';
import type { ClientPort, ToolContext } from '../../../src/agent/tools/toolContext';

function hangingCommand(signal: AbortSignal) {
  const log: string[] = [];
  let exit!: (e: { exitCode: number | null; signal?: string }) => void;
  const exited = new Promise<{ exitCode: number | null; signal?: string }>((resolve) => (exit = resolve));
  let markWaiting!: () => void;
  const waiting = new Promise<void>((resolve) => (markWaiting = resolve));
  const client: ClientPort = {
    readTextFile: async () => '',
    writeTextFile: async () => undefined,
    createTerminal: async () => ({
      id: 't-1',
      waitForExit: () => (markWaiting(), exited),
      currentOutput: async () => ({ output: 'started\n', truncated: false }),
      kill: async () => {
        log.push('kill');
        exit({ exitCode: null, signal: 'SIGKILL' });
      },
      release: async () => void log.push('release'),
    }),
    requestPermission: async () => ({ outcome: 'selected', optionId: 'allow_once' }),
    hostRequest: async () => ({}) as never,
  };
  const ctx: ToolContext = { sessionId: 's', cwd: '/ws', client, signal, commandTimeoutMs: 600_000, allowedAlways: new Set(), hostServes: () => true, publishPlan: async () => undefined };
  return { ctx, log, waiting };
}

const call = { toolCallId: 'c1', title: 't' };

describe('built-in agent: foreground command bounds', () => {
  it('timeout_seconds kills the command and the result says it timed out', async () => {
    const { ctx, log } = hangingCommand(new AbortController().signal);
    const r = await runTool(ctx, 'run_command', JSON.stringify({ command: 'sleep 600', timeout_seconds: 0.05 }), call);
    assert.equal(r.ok, false);
    assert.match(r.text, /killed after the 0 s timeout/);
    assert.deepEqual(log, ['kill', 'release']);
  });

  it('the turn’s cancel kills it once, and it is not called a timeout', async () => {
    const turn = new AbortController();
    const { ctx, log, waiting } = hangingCommand(turn.signal);
    const running = runTool(ctx, 'run_command', JSON.stringify({ command: 'sleep 600' }), call);
    // Cancelled once the agent waits for the command, not after some delay.
    await waiting;
    turn.abort(new Error('cancelled'));
    const r = await running;
    assert.doesNotMatch(r.text, /timeout/);
    assert.match(r.text, /killed by SIGKILL/);
    assert.deepEqual(log, ['kill', 'release']);
  });
});
