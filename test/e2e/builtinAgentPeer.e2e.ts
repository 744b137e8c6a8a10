// The built-in agent as a peer of third-party agents, in the real workbench against a local scripted
// OpenAI-compatible endpoint: the first answer names the folder's AGENTS.md, the header shows the agent's mode,
// model and context usage, and the session takes the agent's title; the person picks Ask mode and another model
// from the header, and the next request goes to that model with reading tools only.

import * as assert from 'node:assert';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { scriptedModelSessionForSuite } from '../harness/scriptedModelSession';
import { uiTimeout } from '../harness/sessionView';
import { waitSessionRow } from '../harness/sideBar';
import { text, toolCall } from '../fakes/modelEndpoints/script';

const models = [
  { id: 'scripted-model', object: 'model', context_length: 64_000 },
  { id: 'scripted-large', object: 'model', context_length: 200_000 },
];

describe('the built-in agent as a peer: modes, models, usage, title, AGENTS.md (real workbench)', function () {
  const scripted = scriptedModelSessionForSuite('builtin-peer', {}, {
    models,
    prepareWorkspace: (workspace) => writeFileSync(path.join(workspace, 'AGENTS.md'), '# Notes for agents\nKeep answers short.\n'),
  });

  const chip = (category: string) => scripted.current.view.locator(`#agent-options .agent-option[data-category="${category}"]`);
  const waitText = (selector: string, shown: string | RegExp) => scripted.current.view.locator(selector, { hasText: shown }).waitFor({ timeout: uiTimeout });
  /** The Sessions list catches up with the ended turn (its row is named by the agent, no longer running) before a screenshot. */
  const listSettled = () => waitSessionRow(scripted.current.session.workbench.page, /^Scripted session(?!.*running)/i);

  it('the first answer names AGENTS.md; the header shows mode, model, usage and the agent’s title', async () => {
    const { endpoint, view, session } = scripted.current;
    endpoint.script(text('Short answer, as AGENTS.md asks.'));
    await view.send('What does this project do?');
    await view.locator('.entry.agent', { hasText: 'Short answer, as AGENTS.md asks.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    await view.locator('.entry.agent', { hasText: "Following the folder's instructions from AGENTS.md." }).waitFor({ timeout: uiTimeout });
    await waitText('#agent-options .agent-option[data-category="mode"]', 'Code');
    await waitText('#agent-options .agent-option[data-category="model"]', 'scripted-model');
    await waitText('#agent-usage', /\/ 64k/);
    await waitText('#session-title', 'Scripted session');
    const system = JSON.stringify((endpoint.mainRequests()[0].body as { messages: unknown[] }).messages[0]);
    assert.match(system, /Keep answers short\./, 'AGENTS.md is in the system prompt');
    await listSettled();
    await session.workbench.screenshot('e2e-builtin-peer-1-header');
  });

  it('picks Ask mode and another model from the header; the next request uses that model and cannot write', async () => {
    const { endpoint, view, session } = scripted.current;
    await chip('mode').click();
    await session.workbench.pickQuickItem('Ask');
    await waitText('#agent-options .agent-option[data-category="mode"]', 'Ask');
    await chip('model').click();
    await session.workbench.pickQuickItem('scripted-large');
    await waitText('#agent-options .agent-option[data-category="model"]', 'scripted-large');
    endpoint.script(toolCall('write_file', { path: 'owned.txt', content: 'x' }), text('In Ask mode I only answer.'));
    await view.send('Write owned.txt.');
    await view.locator('.entry.agent', { hasText: 'In Ask mode I only answer.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const request = endpoint.mainRequests()[1].body as { model: string; tools: Array<{ function: { name: string } }> };
    assert.strictEqual(request.model, 'scripted-large');
    assert.deepStrictEqual(request.tools.map((t) => t.function.name).sort(), ['list_files', 'read_file', 'search_text']);
    await view.locator('.tool-card', { hasText: 'write_file' }).first().waitFor({ timeout: uiTimeout });
    await waitText('#agent-usage', /\/ 200k/);
    await listSettled();
    await session.workbench.screenshot('e2e-builtin-peer-2-ask-mode');
    session.workbench.assertStayedOnMachine();
  });
});
