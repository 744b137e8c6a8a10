// One turn with a real agent under the real ACP client and turn supervisor: the local model endpoint
// has the agent call one of its own tools, then answer; shared by the per-agent test files.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { ModelEndpoint } from '../../fakes/modelEndpoints/modelEndpoint';
import { text, toolCall, toolResults } from '../../fakes/modelEndpoints/script';
import { realAgentRecipe, type RealAgentName, type RealAgentRecipe, testApiKey } from '../../harness/realAgents';
import { AcpHarness } from '../acp/acpHarness';

/** Generous bounds: agents start in 1–25 s on a busy 2-core machine; nothing here waits on a duration. */
export const realAgentBounds = { startMs: 120_000, stallMs: 120_000, testMs: 300_000 };

export interface RealAgentRun {
  h: AcpHarness;
  endpoint: ModelEndpoint;
  recipe: RealAgentRecipe;
  dispose(): Promise<void>;
}

/** An endpoint (which checks the test key), the agent's recipe and a harness that launches it. */
export async function startRealAgent(name: RealAgentName): Promise<RealAgentRun> {
  const endpoint = await ModelEndpoint.start({ apiKey: testApiKey });
  let recipe: RealAgentRecipe | undefined;
  let h: AcpHarness | undefined;
  try {
    recipe = await realAgentRecipe(name, { origin: endpoint.origin });
    const agent = recipe.agent;
    h = await AcpHarness.create({ launch: () => customLaunch(agent), settings: { timeoutMs: realAgentBounds.stallMs, graceMs: 5_000 }, initializeTimeoutMs: realAgentBounds.startMs });
  } catch (e) {
    await recipe?.dispose();
    await endpoint.close();
    throw e;
  }
  const run = { h, endpoint, recipe };
  return {
    ...run,
    async dispose() {
      await run.h.dispose();
      await run.endpoint.close();
      await run.recipe.dispose();
    },
  };
}

/**
 * The model calls the agent's `shell` or `read` tool on a file only the workspace holds, then answers:
 * the turn completes, the tool showed as activity, the file's content reached the model, the answer reached us.
 */
export async function turnWithToolCall(run: RealAgentRun, kind: 'shell' | 'read'): Promise<void> {
  const { h, endpoint, recipe } = run;
  const marker = `content-only-the-file-has-${Math.random().toString(36).slice(2)}`;
  const file = path.join(h.workspace, 'notes.txt');
  await fs.writeFile(file, `${marker}\n`);
  const call = kind === 'shell' ? recipe.tools.shell('cat notes.txt') : recipe.tools.read(file);
  const answer = 'The notes hold one line: the marker.';
  endpoint.script(toolCall(call.name, call.args), text(answer));

  const ended = await h.turn('What do the notes say?');

  assert.equal(ended.reason, 'completed', `${ended.message ?? ''}; model requests: ${endpoint.describe()}; logs: ${h.logs.slice(-15).map((l) => l.message).join(' | ')}`);
  assert.equal(endpoint.pending, 0, `every scripted reply was asked for; requests: ${endpoint.describe()}`);
  const first = endpoint.mainRequests()[0];
  assert.ok(JSON.stringify(first.body).includes('What do the notes say?'), 'the prompt reached the model');
  const results = endpoint.mainRequests().flatMap(toolResults);
  assert.ok(results.some((r) => r.includes(marker)), `the tool result reached the model; tool results sent: ${JSON.stringify(results).slice(0, 600)}`);
  assert.ok(h.activity().some((e) => e.waitingOn.kind === 'tool'), 'the tool call showed as activity');
  assert.ok(h.agentText().includes(answer), `the answer reached the view; agent text: ${h.agentText().slice(0, 300)}`);
}
