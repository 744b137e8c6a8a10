// A reload mid-session in the real workbench: the reloaded window resumes the agent's own session
// (`session/resume` of the id Vigil kept) instead of starting a new one or re-sending the conversation
// as text, and the view shows the earlier conversation once. Driven with the real Codex ACP agent
// against a local model endpoint, and with fakeResumeAgent (which records every request it got).

import * as assert from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { realAgentRecipe, testApiKey, type RealAgentRecipe } from '../harness/realAgents';
import { waitForLogLines } from '../harness/runFiles';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { ModelEndpoint } from '../fakes/modelEndpoints/modelEndpoint';
import { text, userMessages } from '../fakes/modelEndpoints/script';

const fakeAgent = path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'fakeResumeAgent.js');

interface Call {
  pid: number;
  method: string;
  sessionId?: string;
  meta?: unknown;
  prompt?: string;
}

describe('agent session resumed across a window reload (real workbench)', function () {
  let session: E2eSession;
  let view: SessionView;
  const agentState = mkdtempSync(path.join(repoRoot, '.vscode-test', 'resume-agent-'));
  const calls = (): Call[] =>
    readFileSync(path.join(agentState, 'calls.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Call);

  before(async function () {
    session = await openE2eSession({
      name: 'agent-resume',
      settings: {
        'vigil.agent': { command: process.execPath, args: [fakeAgent, '--state', agentState, '--resume', '--load', '--close', '--delete'] },
        'vigil.approvals.policy': 'allowAll',
      },
    });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent('fakeResumeAgent');
  });

  after(async function () {
    await session?.close();
    rmSync(agentState, { recursive: true, force: true });
  });

  it('a reload mid-session: the agent session is resumed, not replayed nor re-sent as history', async () => {
    const id = await view.sessionId();
    await view.send('say apple');
    await view.locator('.entry.agent', { hasText: 'echo: apple' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const [created] = calls().filter((c) => c.method === 'session/new');
    assert.ok(created, 'the first agent process opened a new session');
    const agentSession = calls().find((c) => c.method === 'session/prompt')?.sessionId;

    await session.workbench.reload(session.server);
    await view.locator(`#app[data-painted-seq][data-session-id="${id}"]`).waitFor({ timeout: 90_000 });

    await view.send('recall');
    // The agent answers from the conversation it kept itself: it was sent only "recall".
    await view.locator('.entry.agent', { hasText: 'I remember: say apple' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const all = calls();
    const resumed = all.filter((c) => c.method === 'session/resume');
    assert.strictEqual(resumed.length, 1, `one resume: ${JSON.stringify(all.map((c) => c.method))}`);
    assert.strictEqual(resumed[0].sessionId, agentSession, 'the same agent session');
    assert.notStrictEqual(resumed[0].pid, created.pid, 'by a fresh agent process');
    assert.strictEqual(all.filter((c) => c.method === 'session/new').length, 1, 'no second session');
    assert.strictEqual(all.filter((c) => c.method === 'session/load').length, 0, 'no replay');
    const lastPrompt = all.filter((c) => c.method === 'session/prompt').at(-1);
    assert.deepStrictEqual([lastPrompt?.prompt, lastPrompt?.sessionId], ['recall', agentSession], 'no history re-sent as text');
    assert.strictEqual(await view.count('.entry.agent:has-text("echo: apple")'), 1, 'the earlier answer shows once');
    assert.strictEqual(await view.count('.entry.user:has-text("say apple")'), 1, 'the earlier prompt shows once');
    assert.strictEqual(await view.count('.entry:has-text("without the earlier conversation")'), 0, 'nobody is told it was lost');
    await session.workbench.screenshot('e2e-agent-session-resumed');
    session.workbench.assertStayedOnMachine();
  });
});

describe('a real agent (Codex ACP) resumes its session across a window reload (real workbench)', function () {
  let session: E2eSession | undefined;
  let endpoint: ModelEndpoint | undefined;
  let recipe: RealAgentRecipe | undefined;
  let view: SessionView;
  const first = 'Remember the word pelican.';
  const firstAnswer = 'Noted: the word is pelican.';
  const second = 'Which word did I ask you to remember?';

  before(async function () {
    endpoint = await ModelEndpoint.start({ apiKey: testApiKey });
    recipe = await realAgentRecipe('codex', { origin: endpoint.origin });
    session = await openE2eSession({ name: 'agent-resume-codex', settings: { 'vigil.agent': recipe.agent, 'vigil.approvals.policy': 'allowAll' } });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent(recipe.agent.command);
  });

  after(async function () {
    await session?.close();
    await endpoint?.close();
    await recipe?.dispose();
  });

  it("a reload mid-session: Codex gets session/resume, and the model the earlier turn from Codex's own session", async () => {
    const s = session!;
    const model = endpoint!;
    const id = await view.sessionId();
    model.script(text(firstAnswer));
    await view.send(first);
    await view.locator('.entry.agent', { hasText: firstAnswer }).waitFor({ timeout: 120_000 });
    await view.waitPhase('idle');

    await s.workbench.reload(s.server);
    await view.locator(`#app[data-painted-seq][data-session-id="${id}"]`).waitFor({ timeout: 90_000 });

    model.script(text('The word was pelican.'));
    await view.send(second);
    await view.locator('.entry.agent', { hasText: 'The word was pelican.' }).waitFor({ timeout: 120_000 });
    await view.waitPhase('idle');
    await waitForLogLines(s.server, /codex-acp resumed its session \S+ of /, 1);
    const last = model.mainRequests().at(-1)!;
    assert.ok(JSON.stringify(last.body).includes(firstAnswer), "the earlier answer reached the model, from Codex's session");
    const users = userMessages(last);
    const asked = users.filter((u) => u.includes(second));
    assert.strictEqual(asked.length, 1, `the new question is one user message: ${JSON.stringify(users).slice(0, 800)}`);
    assert.ok(!asked[0].includes(first), 'the new prompt carries no re-sent history');
    assert.ok(users.some((u) => u.includes(first) && !u.includes(second)), 'the earlier prompt is its own earlier message');
    assert.strictEqual(await view.count(`.entry.agent:has-text("${firstAnswer}")`), 1, 'the earlier answer shows once');
    assert.strictEqual(await view.count('.entry:has-text("without the earlier conversation")'), 0, 'nobody is told it was lost');
    await s.workbench.screenshot('e2e-agent-session-resumed-codex');
    s.workbench.assertStayedOnMachine();
  });
});
