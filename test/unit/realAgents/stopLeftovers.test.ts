// Stop means stop with the real agents that run their commands themselves (Codex ACP, OpenCode), offline:
// the model has the agent run `sleep 600` and then hangs; the person aborts; no `sleep 600` of that agent
// is left, and the transcript says what was stopped.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { hang, toolCall } from '../../fakes/modelEndpoints/script';
import type { RealAgentName } from '../../harness/realAgents';
import { waitFor } from '../supervisor/harness';
import { realAgentBounds, type RealAgentRun, startRealAgent } from './realAgentTurn';

/** The `sleep 600` processes this agent run started: found by its own HOME in their environment. */
async function sleepsOf(home: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = (await fs.readFile(`/proc/${entry}/cmdline`, 'utf8')).split('\0').filter(Boolean).join(' ');
      if (!/(^|\s|\/)sleep 600$/.test(cmdline)) continue;
      if (/^\d+ \(.*\) Z/.test(await fs.readFile(`/proc/${entry}/stat`, 'utf8'))) continue;
      if ((await fs.readFile(`/proc/${entry}/environ`, 'latin1')).split('\0').includes(`HOME=${home}`)) pids.push(Number(entry));
    } catch {
      continue; // ended meanwhile
    }
  }
  return pids;
}

/** Polls a state of the process table (no event exists for a non-child's start or end). */
async function until(test: () => Promise<boolean>, what: () => string): Promise<void> {
  let done = false;
  const deadline = Date.now() + realAgentBounds.startMs;
  while (!done) {
    done = await test();
    if (!done && Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    if (!done) await new Promise((r) => setTimeout(r, 100));
  }
}

for (const name of ['codex', 'opencode'] as RealAgentName[]) {
  describe(`real agent: ${name} — a stopped turn leaves no command behind`, function () {
    this.timeout(realAgentBounds.testMs);
    let run: RealAgentRun | undefined;

    afterEach(async () => {
      for (const pid of run ? await sleepsOf(run.recipe.home) : []) process.kill(pid, 'SIGKILL');
      await run?.dispose();
      run = undefined;
    });

    /** Runs `command` through the agent's own shell tool, the model then hangs; the person aborts. */
    async function abortedTurn(command: string): Promise<{ notices: string[]; escalated: boolean }> {
      run = await startRealAgent(name);
      const { h, endpoint, recipe } = run;
      const call = recipe.tools.shell(command);
      endpoint.script(toolCall(call.name, call.args), hang(), hang());
      const started = await h.sup.startTurn('session-1', 'Wait ten minutes.', { source: 'user' });
      assert.equal(started.kind, 'started');
      if (started.kind !== 'started') throw new Error('not started');
      await until(async () => (await sleepsOf(recipe.home)).length > 0, () => `${name} to start sleep 600 (model requests: ${endpoint.describe()}; logs: ${h.logs.slice(-8).map((l) => l.message).join(' | ')})`);
      assert.ok(await h.sup.abort('session-1'), 'the abort was taken');
      const ended = await started.ended;
      assert.equal(ended.reason, 'aborted', ended.message);
      await until(async () => (await sleepsOf(recipe.home)).length === 0, () => 'no sleep 600 to be left');
      const { records } = await h.sup.sessions.readTail('session-1', 10_000);
      const notices = records.flatMap((r) => (r.type === 'notice' ? [r.text] : []));
      return { notices, escalated: h.logs.some((l) => l.message.includes('Killing the agent process tree')) };
    }

    it('an aborted turn whose agent runs `sleep 600` leaves no sleep behind', async () => {
      // The agent itself may stop its command on the cancel, or leave it (then Vigil stops it), or not answer
      // the cancel at all (OpenCode, at times: the grace ends in the agent's tree kill). None leaves a sleep.
      await abortedTurn('sleep 600');
    });

    it('a command the agent ran that left its tree and its session (setsid -f) is stopped, and the transcript says so', async () => {
      const { notices } = await abortedTurn('setsid -f sleep 600 </dev/null >/dev/null 2>&1');
      assert.ok(
        notices.some((t) => /^Stopped \d+ process(es)? the agent left running: .*sleep 600/.test(t)),
        `the transcript says what was stopped: ${JSON.stringify(notices)}; logs: ${run!.h.logs.slice(-10).map((l) => l.message).join(' | ')}`,
      );
      await waitFor(() => run!.h.logs.some((l) => /Stopped \d+ process/.test(l.message)), 'the log line');
    });
  });
}
