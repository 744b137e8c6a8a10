// A model stream that opens and then says nothing, under real agents: the watchdog sees the stall and
// aborts the turn, the agent drops the stream, and the next message is answered by the same session.

import * as assert from 'node:assert/strict';
import { hang, text } from '../../fakes/modelEndpoints/script';
import type { RealAgentName } from '../../harness/realAgents';
import { realAgentBounds, type RealAgentRun, startRealAgent, turnWithToolCall } from './realAgentTurn';

/**
 * Whether the agent closes its model stream when its turn is cancelled. Codex ACP 0.16 does not: it answers
 * `session/cancel` and takes the next prompt, but leaves the cancelled turn's request open until the process ends.
 */
const dropsStreamOnCancel: Record<string, boolean> = { claude: true, codex: false, gemini: true };

for (const name of ['claude', 'codex', 'gemini'] as RealAgentName[]) {
  describe(`real agent: ${name}, hung model stream`, function () {
    this.timeout(realAgentBounds.testMs);
    let run: RealAgentRun | undefined;

    afterEach(async () => {
      await run?.dispose();
      run = undefined;
    });

    it('is shown as a stall, aborted, and the next message is answered', async () => {
      run = await startRealAgent(name);
      const { h, endpoint } = run;
      // Warm up under the generous bound (start-up is slow on a busy machine); then a tight one for the hang.
      await turnWithToolCall(run, 'shell');
      h.settings.timeoutMs = 6_000;
      endpoint.script(hang());
      const ended = await h.turn('Think about it for a while.');
      const hung = endpoint.requests.find((r) => r.answered === 'hang');
      assert.ok(hung, `the hang was served before the abort; requests: ${endpoint.describe()}`);
      assert.equal(ended.reason, 'interrupted', `${ended.message ?? ''}; requests: ${endpoint.describe()}; events: ${h.events.map((e) => e.type + ('description' in e ? ':' + e.description : '')).join(', ')}`);
      assert.ok(h.events.some((e) => e.type === 'stallObserved'), 'the stall was shown before the abort');
      // Cancelled (or killed after the grace period), the agent lets go of the stream.
      if (dropsStreamOnCancel[name]) await endpoint.waitFor(() => hung.clientClosed === true, 'the agent to close the hung stream');

      h.settings.timeoutMs = realAgentBounds.stallMs;
      endpoint.script(text('Back after the stall.'));
      const next = await h.turn('Are you there?');
      assert.equal(next.reason, 'completed', `${next.message ?? ''}; requests: ${endpoint.describe()}`);
      assert.ok(h.agentText().includes('Back after the stall.'), `the next answer arrived; agent text: ${h.agentText().slice(-300)}`);
    });
  });
}
