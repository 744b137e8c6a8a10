// A turn outlives its window, as a person meets it with the defaults on: the window reloads in the middle of an
// answer, and the new window shows the same turn still running; the answer arrives there whole, once, from the same
// agent process, with the model's request never cancelled and no Resume asked for. The built-in agent on a scripted
// model, and Codex ACP, Claude's ACP adapter and Gemini CLI (the real agents, offline against the local model endpoint).

import * as assert from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { E2eSession } from '../harness/e2eSession';
import { openRealAgentSession, type RealAgentSession } from '../harness/realAgentSession';
import { globalStorageOf } from '../harness/secondWindow';
import { scriptedModelSessionForSuite } from '../harness/scriptedModelSession';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { sessionRowLabels, waitSessionRow } from '../harness/sideBar';
import { readStatusTexts, readViewTimeline, startStatusProbe, startViewProbe } from '../harness/viewProbe';
import { isAlive } from '../../src/extension/core/common/processTree';
import type { ModelEndpoint } from '../fakes/modelEndpoints/modelEndpoint';
import { hang } from '../fakes/modelEndpoints/script';

/** The agent process behind the session's relay, as the relay wrote it once it listened. */
function relayedAgentPid(session: E2eSession, sessionId: string): number {
  const state = path.join(globalStorageOf(session.server), 'relays', sessionId, 'state.json');
  assert.ok(existsSync(state), `the session's agent runs behind a relay (${state})`);
  return (JSON.parse(readFileSync(state, 'utf8')) as { agentPid: number }).agentPid;
}

/**
 * The model holds its answer open; the window reloads; the new window must show the turn running, then the
 * answer once the model ends it. Everything a person could see go wrong is asserted, and screenshots taken.
 */
async function reloadMidAnswer(session: E2eSession, endpoint: ModelEndpoint, view: SessionView, shot: string): Promise<void> {
  const { workbench } = session;
  const answer = `The whole answer, finished by the same agent after the reload (${shot}).`;
  endpoint.script(hang());
  const id = await view.sessionId();
  await view.send('Write the long answer, please.');
  await view.waitPhase('running');
  await endpoint.waitFor(() => endpoint.hangingCount === 1, 'the agent to open the held stream');
  const held = endpoint.mainRequests().at(-1)!;
  const requestsBefore = endpoint.mainRequests().length;
  const agentPid = relayedAgentPid(session, id);
  assert.ok(isAlive(agentPid), 'the agent runs before the reload');
  const chips = '#agent-options .agent-option';
  const chipsBefore = await view.texts(chips);

  await workbench.reload(session.server);
  await startStatusProbe(workbench.page);
  await view.waitPainted(id);
  await startViewProbe(await view.frame());
  // The turn is still the running one: no notice that it stopped, nothing to Resume.
  await view.waitPhase('running');
  assert.strictEqual(await view.count('#notices .interrupted-notice'), 0, 'no "stopped" notice for a turn that is alive');
  assert.strictEqual(await view.count('.entry.user'), 1, 'the person\'s message is shown once');
  // The header still shows what the agent said of the session (its model, mode, options) before the reload.
  await view.frame().then((frame) => frame.waitForFunction((want) => JSON.stringify([...document.querySelectorAll('#agent-options .agent-option')].map((e) => (e as HTMLElement).innerText.replace(/\s+/g, ' ').trim())) === want, JSON.stringify(chipsBefore), { timeout: uiTimeout }))
    .catch(async () => assert.deepStrictEqual(await view.texts(chips), chipsBefore, 'the header\'s agent options after the reload'));
  await workbench.screenshot(`e2e-outlive-${shot}-after-reload`);

  endpoint.release(answer);
  await view.locator('.entry.agent', { hasText: answer }).waitFor({ timeout: uiTimeout });
  await view.waitPhase('idle');
  assert.strictEqual(await view.count(`.entry.agent:has-text("${answer}")`), 1, 'the answer is shown once');
  assert.strictEqual(await view.count('.entry.user[data-source="resume"]'), 0, 'nothing was resumed');
  assert.strictEqual(held.clientClosed, undefined, 'the model\'s request was never cancelled');
  assert.strictEqual(endpoint.mainRequests().length, requestsBefore, 'the agent asked the model nothing again');
  assert.strictEqual(relayedAgentPid(session, id), agentPid, 'the same agent process finished the turn');
  assert.ok(isAlive(agentPid), 'and it still serves the session');
  const timeline = await readViewTimeline(await view.frame());
  assert.ok(!timeline.phases.includes('interrupted'), `the view never showed the turn interrupted (${timeline.phases.join(' → ')})`);
  assert.ok(!timeline.events.some((e) => e.includes('interrupted-notice')), `no stopped notice was ever drawn (${timeline.events.join(', ')})`);
  // The Sessions list says the same as the view: the turn ended (a row left at "running" would lie to a person).
  await waitSessionRow(workbench.page, /, idle · /i, uiTimeout).catch(async () => assert.fail(`the Sessions list still shows the turn running: ${(await sessionRowLabels(workbench.page)).join(' | ')}`));
  const statuses = await readStatusTexts(workbench.page);
  assert.ok(!statuses.some((s) => /stopped|interrupted/i.test(s)), `the status bar never said the turn stopped (${statuses.join(' | ')})`);
  await workbench.screenshot(`e2e-outlive-${shot}-finished`);
  workbench.assertStayedOnMachine();
}

describe('a turn outlives its window (real workbench, defaults on)', function () {
  describe('the built-in agent', function () {
    const scripted = scriptedModelSessionForSuite('outlive-builtin', { 'vigil.approvals.policy': 'allowAll' });

    it('a reload mid-answer: the same agent process finishes the turn in the new window, no Resume', async () => {
      const { session, endpoint, view } = scripted.current;
      await reloadMidAnswer(session, endpoint, view, 'builtin');
    });
  });

  for (const [name, label] of [['codex', 'Codex ACP'], ['claude', "Claude's ACP adapter"], ['gemini', 'Gemini CLI']] as const) {
    describe(`${label} (offline)`, function () {
      let opened: RealAgentSession | undefined;

      before(async function () {
        opened = await openRealAgentSession(name, { name: `outlive-${name}` });
      });

      after(async function () {
        await opened?.close();
      });

      it(`a reload mid-answer: the same ${label} process finishes the turn in the new window, no Resume`, async () => {
        const { session, endpoint, view } = opened!;
        await reloadMidAnswer(session, endpoint, view, name);
      });
    });
  }
});
