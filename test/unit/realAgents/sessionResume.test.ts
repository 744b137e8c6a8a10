// Real agents continue their own session after a reload (a new provider on the same storage): Vigil
// asks `session/resume` of the id it kept, and the model then gets the earlier conversation from the
// agent itself, as earlier messages, not re-sent by Vigil as text in the new prompt.

import * as assert from 'node:assert/strict';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { ModelEndpoint } from '../../fakes/modelEndpoints/modelEndpoint';
import { text, userMessages } from '../../fakes/modelEndpoints/script';
import { realAgentRecipe, type RealAgentName, type RealAgentRecipe, testApiKey } from '../../harness/realAgents';
import { answers, Window, World } from '../acp/agentSessionWorld';
import { realAgentBounds } from './realAgentTurn';

const first = 'Remember the word pelican.';
const firstAnswer = 'Noted: the word is pelican.';
const second = 'Which word did I ask you to remember?';

describe('real agents resume their own session after a reload', function () {
  this.timeout(realAgentBounds.testMs);
  let w: World | undefined;
  let endpoint: ModelEndpoint | undefined;
  let recipe: RealAgentRecipe | undefined;

  afterEach(async () => {
    await w?.dispose();
    await endpoint?.close();
    await recipe?.dispose();
    w = endpoint = recipe = undefined;
  });

  // What each pinned agent does with a kept session (seen here): Gemini CLI advertises loadSession, but
  // whether it finds its own session again depends on whether it saved it before the window closed
  // ("No previous sessions found for this project" when not): Vigil then falls back, and either way is right.
  const expected: Record<RealAgentName, 'resumed' | 'loaded' | 'loadedOrFallback'> = { codex: 'resumed', claude: 'resumed', copilot: 'loaded', opencode: 'resumed', gemini: 'loadedOrFallback' };
  const chosen = (process.env.VIGIL_RESUME_AGENTS?.split(',') ?? ['codex', 'claude', 'copilot', 'gemini']) as RealAgentName[]; // opencode resumes too, in ~40 s: VIGIL_RESUME_AGENTS=opencode
  for (const name of chosen) {
    const way = expected[name];
    it(`${name}: ${way === 'loadedOrFallback' ? 'its session is loaded, or a failed load falls back to a new session and the person is told once' : `session/${way === 'resumed' ? 'resume' : 'load'} after the reload; the model gets the earlier turn from the agent`}`, async () => {
      w = await World.create();
      w.stallMs = realAgentBounds.stallMs;
      w.initializeTimeoutMs = realAgentBounds.startMs;
      endpoint = await ModelEndpoint.start({ apiKey: testApiKey });
      recipe = await realAgentRecipe(name, { origin: endpoint.origin, workspace: w.workspace });
      const agent = recipe.agent;
      const launch = () => customLaunch(agent);

      const a = await Window.open(w, launch, 'A');
      endpoint.script(text(firstAnswer));
      const one = await a.turn(first);
      assert.equal(one.reason, 'completed', `${one.message}; ${a.logs.slice(-10).join(' | ')}`);
      await a.close();

      const b = await Window.open(w, launch, 'B');
      endpoint.script(text('The word was pelican.'));
      const two = await b.turn(second);
      assert.equal(two.reason, 'completed', `${two.message}; ${b.logs.slice(-10).join(' | ')}`);
      const loaded = b.logs.some((l) => l.includes('loaded its session'));
      if (way === 'loadedOrFallback' && !loaded) {
        assert.equal(b.notices().length, 1, b.logs.join(' | '));
        assert.match(b.notices()[0], /could not load its earlier session \(.+\), so it starts without the earlier conversation/);
        assert.ok(!JSON.stringify(endpoint.mainRequests().at(-1)!.body).includes(firstAnswer), 'nothing of the earlier turn was re-sent');
        return;
      }
      const said = way === 'loadedOrFallback' ? 'loaded' : way;
      assert.ok(b.logs.some((l) => l.includes(`${said} its session`)), `${said}: ${b.logs.join(' | ')}`);
      assert.deepEqual(b.notices(), []);
      const shown = (await answers(b)).join('');
      assert.equal(shown.split(firstAnswer).length - 1, 1, `the earlier answer is in the transcript once (a load's replay is not recorded): ${shown.slice(0, 400)}`);
      const last = endpoint.mainRequests().at(-1)!;
      const users = userMessages(last);
      assert.ok(JSON.stringify(last.body).includes(firstAnswer), 'the earlier answer reached the model');
      const asked = users.filter((u) => u.includes(second));
      assert.equal(asked.length, 1, `the new question is one user message: ${JSON.stringify(users).slice(0, 800)}`);
      assert.ok(!asked[0].includes(first), 'the new prompt carries no re-sent history');
      assert.ok(users.some((u) => u.includes(first) && !u.includes(second)), `the earlier prompt is its own earlier message: ${JSON.stringify(users).slice(0, 800)}`);
    });
  }
});
