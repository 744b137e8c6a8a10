// The session view in a narrow side bar, the common case: at 300 px and at 600 px each background task is
// one line that starts with its name, and each notice is a one-line summary with its details folded, so
// a stopped turn's notices do not take the view. Screenshots of both widths land in .vscode-test/screenshots.

import * as assert from 'node:assert';
import { mkdtempSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { repoRoot } from '../harness/codeServer';
import { openE2eSession, type E2eSession } from '../harness/e2eSession';
import { writeModelScript } from '../harness/runFiles';
import { SessionView, uiTimeout } from '../harness/sessionView';
import { setSideBarWidth } from '../harness/sideBar';
import { narrowLayoutScript } from '../fixtures/e2e/modelScripts';

/** What the layout looks like in the view, measured in its own frame. */
interface Layout {
  viewHeight: number;
  noticesHeight: number;
  tasks: Array<{ text: string; lines: number; clipped: boolean; firstText: string }>;
  transcriptHeight: number;
  notices: Array<{ kind: string; summary: string; summaryLines: number; hasDetails: boolean; detailsOpen: boolean; detailVisible: boolean }>;
}

function measure(frame: Frame): Promise<Layout> {
  return frame.evaluate(() => {
    /** Lines a piece of text takes on screen: its line boxes, counted by their distinct tops. */
    const linesOf = (el: Element): number => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    };
    const textOf = (el: Element) => (el as HTMLElement).innerText.replace(/\s+/g, ' ').trim();
    const tasks = [...document.querySelectorAll('.task-strip .task')].map((row) => {
      const box = row.getBoundingClientRect();
      const shown = [...row.querySelectorAll('*')].filter((el) => el.children.length === 0 && textOf(el) !== '' && el.getBoundingClientRect().width > 0);
      // One line: no piece of text wraps, and all of them sit on the same line.
      const centers = shown.map((el) => el.getBoundingClientRect().top + el.getBoundingClientRect().height / 2);
      const aligned = centers.length === 0 || Math.max(...centers) - Math.min(...centers) <= 6;
      const lines = Math.max(aligned ? 1 : 2, ...shown.map(linesOf));
      // Nothing (a Kill button) is pushed past the side bar's edge.
      const clipped = [...row.querySelectorAll('*')].some((el) => el.getBoundingClientRect().right > box.right + 1);
      // The leftmost text: a person reads it first.
      shown.sort((a, b) => a.getBoundingClientRect().left - b.getBoundingClientRect().left);
      return { text: textOf(row), lines, clipped, firstText: shown[0] ? textOf(shown[0]) : '' };
    });
    const notices = [...document.querySelectorAll('#notices .notice-banner')].map((n) => {
      const summary = n.querySelector('.notice-text');
      const details = n.querySelector('details.notice-details');
      const detail = n.querySelector('.notice-detail');
      return {
        kind: n.className,
        summary: summary ? textOf(summary) : '',
        summaryLines: summary ? linesOf(summary) : 0,
        hasDetails: details !== null,
        detailsOpen: (details as HTMLDetailsElement | null)?.open ?? false,
        detailVisible: detail !== null && detail.checkVisibility(),
      };
    });
    return {
      viewHeight: document.getElementById('app')?.getBoundingClientRect().height ?? 0,
      noticesHeight: document.getElementById('notices')?.getBoundingClientRect().height ?? 0,
      transcriptHeight: document.getElementById('transcript')?.getBoundingClientRect().height ?? 0,
      tasks,
      notices,
    };
  });
}

describe('the session view in a narrow side bar (real workbench, scripted model)', function () {
  let session: E2eSession;
  let view: SessionView;
  const scriptFile = path.join(mkdtempSync(path.join(repoRoot, '.vscode-test', 'e2e-script-')), 'model-script.json');

  before(async function () {
    writeModelScript(scriptFile, narrowLayoutScript);
    session = await openE2eSession({
      name: 'narrow',
      settings: {
        'vigil.approvals.policy': 'allowAll',
        'vigil.turnLiveness.timeoutSeconds': 6,
        'vigil.turnLiveness.toolTimeoutSeconds': 6,
        'vigil.turnLiveness.graceSeconds': 2,
      },
      env: { VIGIL_DEMO_SCRIPT: scriptFile },
    });
    view = new SessionView(session.workbench);
  });

  after(async function () {
    await session?.close();
  });

  it('at 300 px and 600 px: tasks on one line, name first; notices one line each, details folded', async () => {
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitPhase('idle');
    await view.send('Run the checks in the background.');
    // The quick check ends during the turn and wakes the agent once the turn is over.
    await view.locator('.entry.agent', { hasText: 'The lint check finished.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    await view.locator('.task-strip .task.status-running').waitFor({ timeout: uiTimeout });
    await view.send('Think it over.');
    await view.locator('#notices .abort-notice').waitFor({ timeout: uiTimeout });
    await view.locator('#notices .resume').waitFor({ timeout: uiTimeout });
    await view.waitPhase('interrupted');
    const frame = await view.frame();
    const page = session.workbench.page;

    const layouts: Record<number, Layout> = {};
    for (const width of [300, 600]) {
      await setSideBarWidth(page, width);
      // The view lays out again at its new width before it is measured.
      await frame.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      layouts[width] = await measure(frame);
      await session.workbench.screenshot(`e2e-narrow-${width}px`);
    }

    for (const [width, layout] of Object.entries(layouts)) {
      const at = `at ${width} px: ${JSON.stringify(layout)}`;
      assert.strictEqual(layout.tasks.length, 2, `two background tasks in the strip ${at}`);
      for (const task of layout.tasks) {
        assert.strictEqual(task.lines, 1, `each task is one line ${at}`);
        assert.ok(!task.clipped, `nothing of a task is cut off at the side bar's edge ${at}`);
        assert.match(task.firstText, /^(sleep 900|echo lint passed)/, `each task starts with its command ${at}`);
      }
      // The stop's notice says how long the turn was silent: the stall banner that led to it leaves the room to the transcript.
      assert.deepStrictEqual(layout.notices.map((n) => n.kind.includes('abort-notice')), [true], `the stop alone is pinned ${at}`);
      for (const notice of layout.notices) {
        assert.strictEqual(notice.summaryLines, 1, `each notice's summary is one line ${at}`);
        assert.ok(notice.hasDetails && !notice.detailsOpen && !notice.detailVisible, `each notice's details are folded ${at}`);
      }
      assert.ok(layout.noticesHeight < layout.viewHeight / 3, `the notices take less than a third of the view ${at}`);
      // With a stop notice and two tasks pinned in a side bar shared with the session list, the transcript still shows
      // its last lines (it kept a strip of ~20 px while Open… took a line of its own at 300 px).
      assert.ok(layout.transcriptHeight >= 30, `the transcript keeps room for its last lines ${at}`);
    }

    // One click away: what the stop means for the work, what to do, and the mechanism.
    await setSideBarWidth(page, 300);
    const stop = view.locator('#notices .abort-notice');
    await stop.locator('summary').click();
    const detail = stop.locator('.notice-detail');
    await detail.waitFor({ state: 'visible', timeout: uiTimeout });
    assert.match((await detail.innerText()).replace(/\s+/g, ' '), /No progress for \d+ s \(waiting on: \w+\)\. What the turn did before it stopped is kept\..* lease renewal stopped/);
    await session.workbench.screenshot('e2e-narrow-300px-details');
    session.workbench.assertStayedOnMachine();
  });
});
