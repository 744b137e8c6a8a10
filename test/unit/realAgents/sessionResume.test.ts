// Real agents continue their own session after a reload (a new provider on the same storage): Vigil
// asks `session/resume` of the id it kept, and the model then gets the earlier conversation from the
// agent itself, as earlier messages, not re-sent by Vigil as text in the new prompt.

import * as assert from 'node:assert/strict';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { ModelEndpoint } from '../../fakes/modelEndpoints/modelEndpoint';
import { text, type RecordedRequest } from '../../fakes/modelEndpoints/script';
import { realAgentRecipe, type RealAgentName, type RealAgentRecipe, testApiKey } from '../../harness/realAgents';
import { Window, World } from '../acp/agentSessionWorld';
import { realAgentBounds } from './realAgentTurn';

/** The text of each user message a model request carries (Anthropic Messages, OpenAI Responses). */
export function userMessages(r: RecordedRequest): string[] {
  const body = (r.body ?? {}) as { messages?: unknown[]; input?: unknown[] };
  const flatten = (c: unknown): string =>
    typeof c === 'string' ? c : Array.isArray(c) ? c.map(flatten).join('\n') : c && typeof c === 'object' && typeof (c as { text?: unknown }).text === 'string' ? (c as { text: string }).text : '';
  const items = r.api === 'anthropic' ? (body.messages ?? []) : r.api === 'responses' ? (body.input ?? []) : [];
  return items.flatMap((m) => ((m as { role?: string }).role === 'user' ? [flatten((m as { content?: unknown }).content)] : []));
}

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

  for (const name of ['codex', 'claude'] as RealAgentName[]) {
    it(`${name}: session/resume after the reload; the model gets the earlier turn from the agent`, async () => {
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
      assert.ok(b.logs.some((l) => /resumed its session/.test(l)), `resumed: ${b.logs.join(' | ')}`);
      assert.deepEqual(b.notices(), []);
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
