// The real Codex ACP agent in the real workbench, offline: started with a CODEX_HOME that does not exist it
// exits, and the view and a notification say so in Codex's words with Open Log; with no credentials it asks
// for a sign-in, and Sign in… → "Use CODEX_API_KEY" → the key typed in a password box lets the same message run.

import * as assert from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Locator } from 'playwright-core';
import { codexWithoutCredentials } from '../fakes/codexWithoutCredentials';
import { ModelEndpoint } from '../fakes/modelEndpoints/modelEndpoint';
import { text, toolCall } from '../fakes/modelEndpoints/script';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { realAgentRecipe, testApiKey, type RealAgentRecipe } from '../harness/realAgents';
import { vigilLog } from '../harness/runFiles';
import { SessionView, uiTimeout } from '../harness/sessionView';

/** Codex starts in seconds, but the machine is shared and busy. */
const agentTimeout = 180_000;

describe('agent start failure and sign-in with the real Codex agent (real workbench)', function () {
  let endpoint: ModelEndpoint;
  let recipe: RealAgentRecipe;
  let session: E2eSession;
  let view: SessionView;
  /** Where vigil.agent points CODEX_HOME: missing until the first scenario is over. */
  let laterHome: string;

  before(async function () {
    endpoint = await ModelEndpoint.start({ apiKey: testApiKey });
    recipe = await realAgentRecipe('codex', { origin: endpoint.origin, credential: 'missing' });
    const agent = await codexWithoutCredentials(recipe, endpoint.origin);
    laterHome = path.join(recipe.home, 'codex-home-later');
    session = await openE2eSession({
      name: 'signin',
      settings: { 'vigil.agent': { ...agent, env: { ...agent.env, CODEX_HOME: laterHome } }, 'vigil.approvals.policy': 'allowAll' },
    });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent(agent.command);
  });

  after(async function () {
    await session?.close();
    await endpoint?.close();
    await recipe?.dispose();
  });

  it('an agent that exits at start: its exit code and last stderr line in the view and a notification, and Open Log', async () => {
    await view.send('Hello');
    const notice = view.locator('.notice-banner.error-notice', { hasText: 'The agent exited (code 1) while starting' });
    await notice.waitFor({ timeout: agentTimeout });
    const shown = await unfolded(notice);
    assert.match(shown, /Error: error loading config: CODEX_HOME points to "[^"]*", but that path does not exist/, shown);
    assert.ok(!/ACP connection closed|Stack backtrace/.test(shown), shown);
    const page = session.workbench.page;
    await page.locator('.notifications-toasts', { hasText: 'The agent exited (code 1)' }).waitFor({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-signin-1-agent-exited');
    await notice.locator('.notice-action[data-action="openLog"]').click();
    // The Output panel shows Vigil's log, which holds the agent's stderr.
    await page.locator('.part.panel .monaco-editor', { hasText: 'stderr' }).first().waitFor({ timeout: uiTimeout });
  });

  it('codex-acp with no credentials → Sign in… → "Use CODEX_API_KEY" → the message is sent again and the turn runs', async () => {
    await fs.cp(recipe.agent.env.CODEX_HOME, laterHome, { recursive: true });
    await fs.writeFile(path.join(session.workspace, 'notes.txt'), 'the notes say: ship on Friday\n');
    endpoint.script(toolCall('exec_command', { cmd: 'cat notes.txt' }), text('The notes say to ship on Friday.'));
    await view.send('What do the notes say?');
    const notice = view.locator('.notice-banner.error-notice', { hasText: 'needs you to sign in' });
    await notice.waitFor({ timeout: agentTimeout });
    assert.match(await unfolded(notice), /It offers: Login with ChatGPT; Use CODEX_API_KEY; Use OPENAI_API_KEY/);
    await session.workbench.screenshot('e2e-signin-2-sign-in-needed');
    await notice.locator('.notice-action[data-action="signIn"]').click();
    await session.workbench.pickQuickItem('Use CODEX_API_KEY');
    const input = session.workbench.page.locator('.quick-input-widget input[type="password"]');
    await input.waitFor({ timeout: uiTimeout });
    await input.fill(testApiKey);
    await input.press('Enter');
    // Signed in: the interrupted message goes again by itself, and Codex runs its tool and answers.
    await view.locator('.entry.agent', { hasText: 'The notes say to ship on Friday.' }).waitFor({ timeout: agentTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(endpoint.pending, 0, `every scripted reply was used; requests: ${endpoint.describe()}`);
    assert.ok(endpoint.mainRequests().some((r) => JSON.stringify(r.body).includes('ship on Friday')), 'the tool result reached the model');
    const users = await view.texts('.entry.user');
    assert.deepStrictEqual(users.filter((t) => t.includes('What do the notes say?')).length, 2, 'the failed message and its resend');
    await session.workbench.screenshot('e2e-signin-3-signed-in-turn-ran');
    assert.ok(!vigilLog(session.server).includes(testApiKey), 'the key never reaches the log');
  });
});

/** A notice's whole text as a person reads it: its one-line summary clicked open to show the folded details. */
async function unfolded(notice: Locator): Promise<string> {
  const details = notice.locator('details.notice-details');
  if ((await details.count()) > 0 && !(await details.evaluate((d) => (d as HTMLDetailsElement).open))) await notice.locator('summary.notice-summary').click();
  return notice.innerText();
}
