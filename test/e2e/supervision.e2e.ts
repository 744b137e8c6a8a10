// The turn supervisor as the person meets it, with the built-in agent on a scripted model: a stall
// that is seen, aborted and resumed; a fast background task that wakes the agent exactly once; an
// abort from the command palette; and a turn whose agent relay is killed across a window reload.

import * as assert from 'node:assert';
import { mkdtempSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { writeModelScript } from '../harness/runFiles';
import { globalStorageOf } from '../harness/secondWindow';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { readStatusTexts, readViewTimeline, startStatusProbe, startViewProbe, type ViewTimeline } from '../harness/viewProbe';
import { afterAbort, afterReload, fastTaskScript, longStory, stallResumed, stallScript } from '../fixtures/e2e/modelScripts';

/** Short bounds so a stall is seen in seconds; busy turns stream a chunk far more often than this. */
const timeoutSeconds = 6;
const graceSeconds = 2;

describe('turn supervision (real workbench, scripted model)', function () {
  let session: E2eSession;
  let view: SessionView;
  /** What scenario 2 recorded, for the stall-banner check below. */
  let stallTimeline: ViewTimeline | undefined;
  let stallStatus: string[] = [];
  let lastSessionId = '';
  const scriptFile = path.join(mkdtempSync(path.join(repoRoot, '.vscode-test', 'e2e-script-')), 'model-script.json');

  /** A fresh session whose agent process (started by its first message) reads `script`. */
  async function newSession(script: Parameters<typeof writeModelScript>[1]): Promise<string> {
    writeModelScript(scriptFile, script);
    await session.workbench.runCommand('Vigil: New Session');
    await view.locator(`#app[data-painted-seq]:not([data-session-id=""]):not([data-session-id="${lastSessionId}"])`).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const frame = await view.frame();
    await startViewProbe(frame);
    await startStatusProbe(session.workbench.page);
    lastSessionId = await view.sessionId();
    return lastSessionId;
  }

  before(async function () {
    writeModelScript(scriptFile, []);
    session = await openE2eSession({
      name: 'supervision',
      settings: {
        'vigil.approvals.policy': 'allowAll',
        'vigil.turnLiveness.timeoutSeconds': timeoutSeconds,
        'vigil.turnLiveness.toolTimeoutSeconds': timeoutSeconds,
        'vigil.turnLiveness.graceSeconds': graceSeconds,
      },
      // The scripted model is test-only: no setting can name it, the agent reads it from its environment.
      env: { VIGIL_DEMO_SCRIPT: scriptFile },
    });
    view = new SessionView(session.workbench);
  });

  after(async function () {
    await session?.close();
  });

  it('2: a model that hangs after a tool call: quiet indicator and status-bar warning, abort notice, Resume completes', async () => {
    await newSession(stallScript);
    await view.send('Check the workspace, please.');
    await view.locator('.entry.tool-call[data-status="completed"]', { hasText: 'list_files' }).waitFor({ timeout: uiTimeout });
    const quiet = view.locator('#notices .quiet-banner');
    await quiet.waitFor({ timeout: uiTimeout });
    // After a tool call the host cannot tell the built-in agent's model call from other agent work.
    assert.match(await quiet.locator('.notice-text').innerText(), /^Quiet: no progress for \d+ s$/);
    assert.match((await quiet.locator('.notice-detail').textContent()) ?? '', /^No progress for \d+ s \(waiting on: (agent|model)\)\./);
    const abort = view.locator('#notices .abort-notice');
    await abort.waitFor({ timeout: uiTimeout });
    // The summary says what happened in the status line's word; what it waited on, what it means and the mechanism are folded.
    assert.match(await abort.locator('.notice-text').innerText(), /^Stopped: no progress for \d+ s$/);
    assert.match(
      (await abort.locator('.notice-detail').textContent()) ?? '',
      /^No progress for \d+ s \(waiting on: (agent|model)\)\. What the turn did before it stopped is kept\. Resume continues it, or send a new message\.\nTurn aborted by the liveness watchdog \(\d+ s without progress\); lease renewal stopped so the session can be reclaimed\.$/,
    );
    assert.strictEqual(await abort.locator('.notice-detail').isVisible(), false, 'the details are folded');
    await view.waitStatus(/^Vigil turn stopped — Resume$/);
    await view.locator('#notices .resume').first().waitFor({ timeout: uiTimeout });
    await view.waitPhase('interrupted');
    assert.strictEqual(await view.count('#notices .resume'), 1, 'one Resume for one aborted turn');
    stallTimeline = await readViewTimeline(await view.frame());
    stallStatus = await readStatusTexts(session.workbench.page);
    const { events } = stallTimeline;
    const shown = (kind: string) => events.findIndex((e) => e.startsWith('notices:') && e.includes(kind));
    assert.ok(shown('quiet-banner') >= 0 && shown('quiet-banner') < shown('abort-notice'), `quiet indicator, then abort notice: ${events.join(', ')}`);
    const at = (pattern: RegExp) => stallStatus.findIndex((t) => pattern.test(t));
    assert.ok(at(/^Vigil quiet \d+s$/) >= 0, `the status bar warned that the turn was quiet: ${JSON.stringify(stallStatus)}`);
    assert.ok(at(/^Vigil turn stopped — Resume \[error\]$/) > at(/^Vigil quiet \d+s$/), `then said stopped, on an error background: ${JSON.stringify(stallStatus)}`);
    await session.workbench.screenshot('e2e-2-stall-aborted');

    // If the agent process had to be killed, a fresh one reads the script from the top: it gets the same answer.
    writeModelScript(scriptFile, [stallResumed]);
    await view.locator('#notices .resume').first().click();
    await view.locator('.entry.user[data-source="resume"]').waitFor({ timeout: uiTimeout });
    await view.locator('.entry.agent', { hasText: 'Resumed after the stall' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(await view.count('#notices .abort-notice, #notices .stall-banner'), 0, 'the notices of the aborted turn are gone');
    assert.strictEqual(await view.waitStatus(/^Vigil$/), 'Vigil');
    await session.workbench.screenshot('e2e-2-stall-resumed');
  });

  // The stop follows the stall observation within milliseconds and replaces its banner: the stop's notice says how
  // long the turn was silent (two banners saying it squeezed the transcript). The banner may not be drawn at all in
  // that time, but never after the stop. The status bar says what is true at once, as the view and the session list
  // do (a stall it held for 2.5 s after the view said the turn had stopped was a second truth).
  it('2 (stall banner): no stall banner beside or after the stop notice; the status bar says stopped, not stalled, after it', () => {
    assert.ok(stallTimeline, 'scenario 2 ran');
    const { events } = stallTimeline;
    const shown = (kind: string) => events.findIndex((e) => e.startsWith('notices:') && e.includes(kind));
    const stop = shown('abort-notice');
    assert.ok(stop >= 0 && shown('stall-banner') <= stop, `the stop notice shown, a stall banner (if drawn) before it: ${events.join(', ')}`);
    assert.ok(!events.slice(stop).some((e) => e.startsWith('notices:') && e.includes('stall-banner')), `no stall banner beside or after the stop: ${events.join(', ')}`);
    const stopped = stallStatus.findIndex((t) => /^Vigil turn stopped — Resume \[error\]$/.test(t));
    assert.ok(stopped >= 0 && !stallStatus.slice(stopped).some((t) => /quiet|stalled/.test(t)), `status bar: stopped, and no live state after it: ${JSON.stringify(stallStatus)}`);
  });

  it('4: a background task that finishes during the turn still wakes the agent exactly once', async () => {
    await newSession(fastTaskScript);
    await view.send('Run the quick check.');
    await view.locator('.entry.agent', { hasText: 'Woken once: the quick check finished.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    // A later, deterministic event: a second user turn. A second wakeup would have come before it.
    await view.send('Anything else?');
    await view.locator('.entry.agent', { hasText: 'Second message handled.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    const { events } = await readViewTimeline(await view.frame());
    assert.strictEqual(await view.count('.entry.wakeup'), 1, 'one completion, one wakeup entry');
    assert.ok(!events.includes('wakeups:2'), `never a second wakeup on screen: ${events.join(', ')}`);
    assert.strictEqual(await view.count('.entry.user'), 2, 'the two messages of the person');
    assert.match((await view.texts('.entry.wakeup'))[0], /Background task t-\S+ woke the agent/);
    const order = (await view.texts('.entry')).map((t) => (/woke the agent/.test(t) ? 'wakeup' : t.slice(0, 24)));
    assert.ok(order.indexOf('wakeup') < order.findIndex((t) => t.startsWith('Woken once')), `the wakeup entry precedes the agent's answer: ${JSON.stringify(order)}`);
    await session.workbench.screenshot('e2e-4-fast-task-one-wakeup');
  });

  it('5: "Vigil: Abort Turn" from the palette mid-turn settles it, and a new message works at once', async () => {
    await newSession([longStory(), afterAbort]);
    await view.send('Tell me a long story.');
    const story = view.locator('.entry.agent.streaming');
    await story.waitFor({ timeout: uiTimeout });
    await view.waitStatus(/^Vigil \d+:\d\d$/);
    assert.ok(await session.workbench.paletteHas('Vigil: Abort Turn'), 'Abort Turn is offered while a turn runs');
    await session.workbench.runCommand('Vigil: Abort Turn');
    await view.waitPhase('aborted');
    const abort = view.locator('#notices .abort-notice');
    await abort.waitFor({ timeout: uiTimeout });
    assert.strictEqual(await abort.locator('.notice-text').innerText(), 'Stopped by you');
    await view.waitStatus(/^Vigil turn stopped — Resume$/);
    const told = (await view.texts('.entry.agent'))[0];
    assert.ok(!told.includes('word199'), 'the story stopped before its end');
    await session.workbench.screenshot('e2e-5-palette-abort');

    writeModelScript(scriptFile, [afterAbort]);
    await view.send('Never mind. Are you there?');
    await view.locator('.entry.agent', { hasText: 'Second message answered at once.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(await view.count('.host-error'), 0, 'the new message was not refused (no "busy" error)');
    assert.strictEqual((await view.texts('.entry.agent'))[0], told, 'the aborted story did not go on');
    assert.strictEqual(await view.waitStatus(/^Vigil$/), 'Vigil');
    assert.ok(!(await session.workbench.paletteHas('Vigil: Abort Turn')), 'Abort Turn is gone once no turn runs');
    await session.workbench.screenshot('e2e-5-new-message-after-abort');
  });

  it('7: the agent\'s relay killed mid-answer: the turn ends as a crash, says so across a reload, and the next message works', async () => {
    const id = await newSession([longStory()]);
    await view.send('Tell me another long story.');
    await view.locator('.entry.agent.streaming', { hasText: 'word3' }).waitFor({ timeout: uiTimeout });
    // A reload alone no longer ends a turn (turnOutlivesWindow.e2e.ts). The relay that keeps the agent across
    // one is killed with its agent, as an OOM kill would: the turn must end as a crash does, in words.
    const relay = JSON.parse(readFileSync(path.join(globalStorageOf(session.server), 'relays', id, 'state.json'), 'utf8')) as { pid: number };
    process.kill(-relay.pid, 'SIGKILL');
    const said = /^The agent stopped during the turn: the relay Vigil ran it behind ended \(it was killed, or it crashed\)\./;
    const failed = view.locator('#notices .error-notice', { hasText: 'the relay Vigil ran it behind ended' });
    await failed.waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.match(await failed.locator('.notice-text').innerText(), said);
    await session.workbench.screenshot('e2e-7-relay-killed');

    await session.workbench.reload(session.server);
    await view.waitPainted(id);
    // The banner was the old window's; the transcript keeps what happened, in the same words.
    await view.locator('.entry.notice.notice-error', { hasText: 'the relay Vigil ran it behind ended' }).waitFor({ timeout: uiTimeout });
    assert.match((await view.texts('.entry.agent'))[0], /^word0 word1 word2 word3/, 'what streamed before is still there');
    assert.strictEqual(await view.count('#notices .interrupted-notice'), 0, 'one notice says what happened');
    writeModelScript(scriptFile, [afterReload]);
    await view.send('Go on, please.');
    await view.locator('.entry.agent', { hasText: 'Resumed after the reload' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(await view.waitStatus(/^Vigil$/), 'Vigil');
    await session.workbench.screenshot('e2e-7-after-relay-killed');
    session.workbench.assertStayedOnMachine();
  });
});
