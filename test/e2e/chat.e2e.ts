// The offline demo model in the real workbench: a chat that streams and shows tool cards, the
// background build waking the agent by itself, a hostile message refused at the webview boundary,
// and the first paint of a 10,000-message session.

import * as assert from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { vigilStorage, waitForLogLines } from '../harness/runFiles';
import { seedLongSession } from '../harness/seedSession';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { readStatusTexts, readViewTimeline, startStatusProbe, startViewProbe } from '../harness/viewProbe';

describe('chat with the demo model (real workbench)', function () {
  let session: E2eSession;
  let view: SessionView;
  // The demo holds its first answer half-way until this file exists: the streaming state is held for the
  // test to see, then released, instead of raced (an unpaced stream may reach the view in one frame).
  const holdDir = mkdtempSync(path.join(os.tmpdir(), 'vigil-e2e-hold-'));
  const holdFile = path.join(holdDir, 'release');

  before(async function () {
    session = await openE2eSession({ name: 'chat', settings: { 'vigil.approvals.policy': 'allowAll' }, env: { VIGIL_DEMO_HOLD_FILE: holdFile } });
    view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
  });

  after(async function () {
    await session?.close();
    rmSync(holdDir, { recursive: true, force: true });
  });

  it('1: streams the answer and shows the tool calls as cards', async () => {
    const frame = await view.frame();
    await startViewProbe(frame);
    await startStatusProbe(session.workbench.page);
    await view.send('Hello! Show me what you can do.');
    await view.locator('.entry.user', { hasText: 'Show me what you can do' }).waitFor({ timeout: uiTimeout });
    // Held half-way: the answer is on screen with the streaming cursor; then it may go on.
    await view.locator('.entry.agent.streaming', { hasText: 'Hello' }).waitFor({ timeout: uiTimeout });
    writeFileSync(holdFile, 'go on');
    // The demo's tour: list the workspace, read a file, start a build in the background, end the turn.
    await view.locator('.entry.agent', { hasText: 'runs in the background as task' }).waitFor({ timeout: uiTimeout });
    await view.locator('.entry.tool-call[data-status="completed"]').nth(2).waitFor({ timeout: uiTimeout });
    const titles = await view.texts('.entry.tool-call .tool-title');
    assert.deepStrictEqual(titles.slice(0, 2), ['list_files .', 'read_file package.json'], 'one card per tool call, in order');
    assert.match(titles[2], /^run_command echo "demo build: compiling\.\.\."/);
    assert.match((await view.texts('.entry.agent'))[0], /^Hello — this is the Vigil demo model/);
    const timeline = await readViewTimeline(frame);
    assert.ok(timeline.streamingSeen, 'the first answer was shown with the streaming cursor while it arrived');
    assert.ok(timeline.agentTextLengths.length >= 2, `the first answer grew on screen in steps: ${JSON.stringify(timeline.agentTextLengths)}`);
    assert.ok(timeline.phases.includes('running'), `the view showed the turn running: ${timeline.phases.join(' → ')}`);
    await session.workbench.screenshot('e2e-1-chat-streaming-and-tool-cards');
  });

  it('3: the background build wakes the agent after its turn ended, with no action of the person', async () => {
    // The turn of scenario 1 ended saying it would continue when the build finishes (3 s later).
    await view.locator('.entry.wakeup').waitFor({ timeout: uiTimeout });
    await view.locator('.entry.agent', { hasText: 'Vigil woke me: background task' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const frame = await view.frame();
    const { events } = await readViewTimeline(frame);
    const firstIdleAfterRun = events.indexOf('phase:idle', events.indexOf('phase:running'));
    const woke = events.indexOf('wakeups:1');
    assert.ok(firstIdleAfterRun >= 0 && woke > firstIdleAfterRun, `the wakeup came after the turn had ended: ${events.join(', ')}`);
    assert.ok(events.indexOf('phase:running', woke) > woke || events.lastIndexOf('phase:running') > firstIdleAfterRun, `a wakeup turn ran: ${events.join(', ')}`);
    assert.strictEqual(await view.count('.entry.user'), 1, 'the person sent one message only');
    assert.strictEqual(await view.count('.entry.wakeup'), 1, 'one completion, one wakeup');
    assert.match((await view.texts('.entry.wakeup'))[0], /Background task t-\S+ woke the agent/);
    const task = view.locator('.task-strip .task');
    assert.match((await task.innerText()).replace(/\s+/g, ' '), /exit code 0/);
    const status = await readStatusTexts(session.workbench.page);
    assert.ok(status.some((t) => /^Vigil \d+:\d\d · 1 bg$/.test(t)), `the status bar counted the running build: ${JSON.stringify(status)}`);
    assert.strictEqual(await view.waitStatus(/^Vigil$/), 'Vigil');
    await session.workbench.screenshot('e2e-3-background-wakeup');
  });

  it('8: a hostile message posted into the webview channel is rejected, logged and not acted on', async () => {
    const usersBefore = await view.count('.entry.user');
    // VS Code deletes window.parent in the view's content frame after capturing, for acquireVsCodeApi,
    // the outer frame's __vscode_post_message__; the app already holds the only API instance. So the
    // raw post is made where that captured function lives: the same call acquireVsCodeApi().postMessage
    // makes, minus the app's own typing.
    const outer = (await view.frame()).parentFrame();
    assert.ok(outer, 'the session view has an outer frame');
    const hostile = await outer.evaluate(() => {
      const post = (message: unknown) => (window as unknown as { __vscode_post_message__(c: string, d: unknown): void }).__vscode_post_message__('onmessage', { message });
      // Each hostile message, with what its rejection must name.
      const messages: [unknown, string][] = [
        [{ type: 'prompt', id: 'h1', text: 42 }, 'text: .*expected string'],
        [{ type: 'launchMissiles', id: 'h2' }, 'message "launchMissiles": type'],
        [{ type: 'prompt', id: 'h3', text: `pwned-huge ${'x'.repeat(2_000_000)}` }, 'larger than|Too big'],
        [JSON.parse('{"type":"prompt","id":"h4","text":"pwned via __proto__","__proto__":{"polluted":true}}'), 'forbidden key "__proto__"'],
        [{ type: 'prompt', id: 'h5', text: 'pwned with an extra key', evil: true }, 'Unrecognized key: "evil"'],
        ['pwned as a bare string', 'not an object'],
        [{ type: 'approval', id: 'h7', requestId: 'r1', decision: 'allowEverything' }, 'decision'],
        [{ type: 'prompt', id: '../../etc/passwd', text: 'pwned by a bad request id' }, 'id: request id'],
        [{ type: 'stop', id: 'h9', sessionId: { a: { b: { c: { d: { e: 1 } } } } } }, 'nested deeper'],
      ];
      for (const [m] of messages) post(m);
      return messages.map(([, reason]) => reason);
    });
    const rejected = await waitForLogLines(session.server, /\[webview\] rejected webview message/, hostile.length);
    assert.strictEqual(rejected.length, hostile.length, `each hostile message was rejected once:\n${rejected.join('\n')}`);
    hostile.forEach((reason, i) => assert.match(rejected[i], new RegExp(reason), `message ${i + 1} was rejected for what is wrong with it`));
    assert.ok(rejected.every((l) => /\[warning\]/.test(l)), 'rejections are logged as warnings');
    assert.ok(rejected.every((l) => l.length < 2_000), 'the log line does not carry the huge payload');
    // A real message now: had any hostile prompt been acted on, its turn would come first (or make this one busy).
    await view.send('Are you still there after that?');
    await view.locator('.entry.agent', { hasText: 'you said: "Are you still there after that?"' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const users = await view.texts('.entry.user');
    assert.strictEqual(users.length, usersBefore + 1, `only the real message became a turn: ${JSON.stringify(users)}`);
    assert.ok(!users.some((t) => /pwned/.test(t)), 'no hostile text reached the transcript');
    // The person finds the rejections where Vigil logs: "Vigil: Show Log" opens its Output channel.
    await session.workbench.runCommand('Vigil: Show Log');
    await session.workbench.page.locator('.view-line', { hasText: 'rejected webview message' }).first().waitFor({ timeout: uiTimeout });
    await session.workbench.screenshot('e2e-8-hostile-message-rejected');
  });

  it('paints the tail of a 10,000-message session quickly', async () => {
    const seeded = seedLongSession(vigilStorage(session.server), 'Ten thousand messages', 10_000);
    const frame = await view.frame();
    await frame.evaluate(() => performance.clearMarks());
    await session.workbench.runCommand('Vigil: Open Session…');
    const picked = await session.workbench.page.evaluate(() => Date.now());
    await session.workbench.pickQuickItem(seeded.title);
    await view.locator(`#app[data-session-id="${seeded.id}"]`).waitFor({ timeout: uiTimeout });
    const marks = await pollMarks(frame);
    const firstPaint = marks.painted - marks.received;
    console.log(`      first paint of 10,000 messages: ${Math.round(firstPaint)} ms`);
    console.log(`      (from choosing the session in the palette to its tail on screen: ${Math.round(marks.paintedAt - picked)} ms)`);
    const last = view.locator('.entry').last();
    assert.match((await last.innerText()).replace(/\s+/g, ' '), new RegExp(`^${escape(seeded.lastText)}`), 'the newest message is on screen');
    // The older entries arrive after the first paint; the view then knows all 10,000.
    const edge = view.locator('#older-edge', { hasText: /^\d+ earlier entries$/ });
    await edge.waitFor({ timeout: uiTimeout });
    const earlier = Number(/^(\d+)/.exec(await edge.innerText())![1]);
    assert.strictEqual(earlier + (await view.count('.entry')), seeded.messages, 'every message is in the view (rendered or above the window)');
    assert.ok(await view.count('.entry') < 400, 'only a window of the transcript is in the DOM');
    // Speed is a figure (printed above, and in `npm run bench`), not a pass/fail bound here.
    assert.ok(Number.isFinite(firstPaint) && firstPaint > 0, `the view marked its first paint (${firstPaint})`);
    await session.workbench.screenshot('e2e-first-paint-10000-messages');
    session.workbench.assertStayedOnMachine();
  });
});

async function pollMarks(frame: import('playwright-core').Frame): Promise<{ received: number; painted: number; paintedAt: number }> {
  const deadline = Date.now() + uiTimeout;
  for (;;) {
    const marks = await frame.evaluate(() => {
      const received = performance.getEntriesByName('vigil:snapshot-received').at(-1);
      const painted = performance.getEntriesByName('vigil:tail-painted').at(-1);
      return received && painted && painted.startTime >= received.startTime
        ? { received: received.startTime, painted: painted.startTime, paintedAt: performance.timeOrigin + painted.startTime }
        : undefined;
    });
    if (marks) return marks;
    if (Date.now() > deadline) throw new Error('the session view never marked vigil:tail-painted after a snapshot');
    await frame.page().waitForTimeout(50);
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
