// vigil.mcpServers through the running extension (real workbench, workspace trust enabled): in Restricted Mode no
// server reaches the agent (neither the repository's nor, started in that folder, the person's own); in a trusted
// workspace the person's servers reach the agent's session/new, and the repository's only after the person
// confirmed them in a modal naming what would run. Env values are secrets, redacted in the view. The agent is a fixture that says which
// servers it received (test/fixtures/agents/mcpEchoAgent.ts), chosen in the person's user settings.

import * as assert from 'node:assert';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { vigilLog } from '../harness/runFiles';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { answerModal, modalDialog } from '../harness/workspaceTrust';

const echoAgent = path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'mcpEchoAgent.js');
const question = 'Start the MCP servers chosen by this workspace?';

describe('vigil.mcpServers (real workbench, workspace trust enabled)', function () {
  let session: E2eSession | undefined;

  afterEach(async () => {
    await session?.close();
    session = undefined;
  });

  /** The person's settings: the echo agent, and one MCP server of their own whose env value is a secret. */
  const userSettings = {
    'vigil.agent': { command: process.execPath, args: [echoAgent] },
    'vigil.mcpServers': [{ name: 'mine', command: 'my-mcp-server', env: { MY_TOKEN: 'user-mcp-token-123' } }],
  };
  const repository = (marker: string) => (workspace: string) => {
    mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    writeFileSync(
      path.join(workspace, '.vscode', 'settings.json'),
      JSON.stringify({ 'vigil.mcpServers': [{ name: 'theirs', command: '/bin/sh', args: ['-c', `touch '${marker}'`], env: { THEIR_TOKEN: 'their-mcp-token-456' } }] }, null, 2),
    );
  };

  it('untrusted: the agent the person allowed gets none of the setting’s servers, neither the repository’s nor the person’s, and no server is asked about', async function () {
    const marker = path.join(repoRoot, '.vscode-test', `mcp-untrusted-${process.pid}.marker`);
    session = await openE2eSession({ name: 'mcp-untrusted', workspaceTrust: 'restricted', settings: userSettings, prepareWorkspace: repository(marker) });
    const view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent('mcpEchoAgent');
    await view.send('Which MCP servers do you have?');
    // The person's own agent starts in Restricted Mode only once they allow it for this folder.
    await answerModal(session.workbench.page, /in this folder in Restricted Mode\?/, /^Allow$/);
    const answer = view.locator('.entry.agent', { hasText: 'MCP servers received:' }).first();
    await answer.waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const text = await answer.innerText();
    // Vigil's own task server is offered everywhere (its tools refuse in Restricted Mode); its secret is never shown.
    assert.match(text, /MCP servers received: vigil-tasks\./);
    assert.doesNotMatch(text, /VIGIL_TASK_SECRET","value":"(?!«redacted»)/);
    assert.doesNotMatch(text, /theirs/);
    assert.strictEqual(await modalDialog(session.workbench.page, question).count(), 0, 'no server is asked about in Restricted Mode');
    assert.ok(!existsSync(marker));
    assert.match(vigilLog(session.server), /Restricted Mode: vigil\.mcpServers are not given to the agent/);
    session.workbench.assertStayedOnMachine();
  });

  it('trusted: the person’s servers reach the agent with their token redacted in the view', async function () {
    session = await openE2eSession({ name: 'mcp-trusted-user', workspaceTrust: 'trust', settings: userSettings });
    const view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent('mcpEchoAgent');
    await view.send('Which MCP servers do you have?');
    const answer = view.locator('.entry.agent', { hasText: 'MCP servers received:' }).first();
    await answer.waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const text = await answer.innerText();
    assert.match(text, /MCP servers received: vigil-tasks, mine\./);
    assert.doesNotMatch(text, /VIGIL_TASK_SECRET","value":"(?!«redacted»)/);
    assert.doesNotMatch(text, /user-mcp-token-123/, 'the env value is a secret: redacted wherever Vigil shows text');
    assert.match(text, /«redacted»/);
    assert.doesNotMatch(vigilLog(session.server), /user-mcp-token-123/);
    session.workbench.assertStayedOnMachine();
  });

  it('trusted: the repository’s servers are used only after the person confirmed them in a modal naming the command', async function () {
    const marker = path.join(repoRoot, '.vscode-test', `mcp-trusted-${process.pid}.marker`);
    session = await openE2eSession({ name: 'mcp-trusted', workspaceTrust: 'trust', settings: userSettings, prepareWorkspace: repository(marker) });
    const page = session.workbench.page;
    const view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent('mcpEchoAgent');
    await view.send('Which MCP servers do you have?');
    const dialog = modalDialog(page, question);
    await dialog.waitFor({ timeout: uiTimeout });
    const shown = (await dialog.innerText()).replace(/\s+/g, ' ');
    assert.ok(shown.includes(`theirs: /bin/sh -c "touch '${marker}'" (environment: THEIR_TOKEN)`), shown);
    assert.doesNotMatch(shown, /their-mcp-token-456/);
    await session.workbench.screenshot('e2e-mcp-confirm-workspace-servers');
    await answerModal(page, question, /^Use These Servers$/);
    const answer = view.locator('.entry.agent', { hasText: 'MCP servers received:' }).first();
    await answer.waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const text = await answer.innerText();
    assert.match(text, /MCP servers received: vigil-tasks, theirs\./, 'the workspace value, confirmed, replaces the user’s (the most specific layer wins)');
    assert.doesNotMatch(text, /their-mcp-token-456/, 'a confirmed workspace value’s env is a secret too');
    session.workbench.assertStayedOnMachine();
  });
});
