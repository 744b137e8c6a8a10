// The real Codex ACP agent with no credentials: the turn asks for a sign-in with Codex's own methods;
// signing in with its CODEX_API_KEY env-var method (value at the next start, then `authenticate`) lets the turn run.
// And Codex with a CODEX_HOME that does not exist: the turn says it exited, with Codex's own words.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { AcpAgentHandle } from '../../../src/extension/core/acp/acpAgentHandle';
import { customLaunch, type LaunchSpec } from '../../../src/extension/core/acp/agentLaunch';
import { ModelEndpoint } from '../../fakes/modelEndpoints/modelEndpoint';
import { text } from '../../fakes/modelEndpoints/script';
import { codexWithoutCredentials } from '../../fakes/codexWithoutCredentials';
import { realAgentRecipe, testApiKey, type RealAgentRecipe } from '../../harness/realAgents';
import { AcpHarness } from '../acp/acpHarness';
import { realAgentBounds } from './realAgentTurn';

describe('real agent: codex sign-in and start failure', function () {
  this.timeout(realAgentBounds.testMs);
  let endpoint: ModelEndpoint | undefined;
  let recipe: RealAgentRecipe | undefined;
  let h: AcpHarness | undefined;

  afterEach(async () => {
    await h?.dispose();
    await endpoint?.close();
    await recipe?.dispose();
    h = endpoint = recipe = undefined;
  });

  it('no credentials → Sign in… with Codex’s methods → CODEX_API_KEY → the turn runs', async () => {
    endpoint = await ModelEndpoint.start({ apiKey: testApiKey });
    recipe = await realAgentRecipe('codex', { origin: endpoint.origin, credential: 'missing' });
    const bare = await codexWithoutCredentials(recipe, endpoint.origin);
    let stored: { env: Record<string, string>; methodId?: string } = { env: {} };
    const launch = (): LaunchSpec => {
      const spec = customLaunch(bare);
      return { ...spec, env: { ...spec.env, ...stored.env }, secretEnv: [...spec.secretEnv, ...Object.keys(stored.env)], ...(stored.methodId ? { authMethodId: stored.methodId } : {}) };
    };
    h = await AcpHarness.create({ launch, settings: { timeoutMs: realAgentBounds.stallMs, graceMs: 5_000 }, initializeTimeoutMs: realAgentBounds.startMs });
    const failed = await h.turn('Say hello');
    assert.equal(failed.reason, 'failed');
    assert.match(failed.message ?? '', /needs you to sign in \("Authentication required"\)\. It offers: Login with ChatGPT; Use CODEX_API_KEY; Use OPENAI_API_KEY\./);
    assert.deepEqual(failed.remedies, ['signIn', 'openLog']);
    const agent = (await h.agents.get('session-1')) as AcpAgentHandle;
    assert.deepEqual(agent.authInfo?.methods.map((m) => `${m.kind}:${m.id}`), ['agent:chatgpt', 'envVar:codex-api-key', 'envVar:openai-api-key']);
    assert.equal(agent.authInfo?.logout, true);

    stored = { env: { CODEX_API_KEY: testApiKey }, methodId: 'codex-api-key' };
    await agent.signIn('codex-api-key');
    endpoint.script(text('Hello after signing in.'));
    const ended = await h.turn('Say hello');
    assert.equal(ended.reason, 'completed', `${ended.message ?? ''}; requests: ${endpoint.describe()}; log: ${h.logs.slice(-8).map((l) => l.message).join(' | ')}`);
    assert.ok(h.agentText().includes('Hello after signing in.'));
    assert.ok(!h.logs.some((l) => l.message.includes(testApiKey)), 'the key never reaches the log');
  });

  it('a CODEX_HOME that does not exist: the turn says Codex exited, in its own words', async () => {
    endpoint = await ModelEndpoint.start({ apiKey: testApiKey });
    recipe = await realAgentRecipe('codex', { origin: endpoint.origin });
    const missingHome = path.join(recipe.home, 'no-such-codex-home');
    h = await AcpHarness.create({ launch: () => customLaunch({ ...recipe!.agent, env: { ...recipe!.agent.env, CODEX_HOME: missingHome } }), initializeTimeoutMs: realAgentBounds.startMs });
    const ended = await h.turn('Say hello');
    assert.equal(ended.reason, 'failed');
    assert.match(ended.message ?? '', /^The agent exited \(code \d+\) while starting\.\nIts last output:\n/);
    // vigil.agent env values are secrets to Vigil, so the folder's name is redacted; Codex's words are not.
    assert.match(ended.message ?? '', /Error: error loading config: CODEX_HOME points to "[^"]*", but that path does not exist/);
    assert.ok(!(ended.message ?? '').includes('Stack backtrace'), 'the backtrace stays in the log');
    assert.deepEqual(ended.remedies, ['openLog']);
  });
});
