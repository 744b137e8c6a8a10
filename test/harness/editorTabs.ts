// The session webviews in a workbench with editor tabs: the side bar's view and each Vigil tab are each
// two iframes deep; a tab's outer frame is the one not marked as a webview view. Found by what they show.

import type { Frame, Locator, Page } from 'playwright-core';
import { extensionId } from './workbench';
import { uiTimeout } from './sessionView';

export interface SessionFrame {
  frame: Frame;
  /** `tab`: an editor tab's webview; `view`: the side bar's. */
  where: 'tab' | 'view';
  sessionId: string;
}

/** Every session webview of the page that has painted, with the session it shows. */
export async function sessionFrames(page: Page): Promise<SessionFrame[]> {
  const found: SessionFrame[] = [];
  for (const frame of page.frames()) {
    const outer = frame.parentFrame();
    if (!outer || !outer.url().includes(`extensionId=${extensionId}`)) continue;
    const sessionId = await frame
      .evaluate(() => {
        const app = document.getElementById('app');
        return app?.dataset.paintedSeq !== undefined ? (app.dataset.sessionId ?? '') : undefined;
      })
      .catch(() => undefined);
    if (sessionId === undefined) continue;
    found.push({ frame, where: outer.url().includes('purpose=webviewView') ? 'view' : 'tab', sessionId });
  }
  return found;
}

/** Waits until a webview `where` has painted `sessionId` (any session when omitted) and returns its frame. */
export async function waitSessionFrame(page: Page, where: 'tab' | 'view', sessionId?: string, timeoutMs = uiTimeout): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frames = await sessionFrames(page);
    const hit = frames.find((f) => f.where === where && (sessionId === undefined || f.sessionId === sessionId));
    if (hit) return hit.frame;
    if (Date.now() > deadline) throw new Error(`no ${where} webview painted session ${sessionId ?? '(any)'}; seen: ${JSON.stringify(frames.map((f) => [f.where, f.sessionId]))}`);
    await page.waitForTimeout(100);
  }
}

/** The editor tabs whose label contains `text`, across all editor groups. */
export function editorTabs(page: Page, text: string) {
  return page.locator('.tabs-container .tab', { hasText: text });
}

/**
 * Right-clicks `target` and chooses `item` from its context menu, as a person does. The workbench's menu now and
 * then takes no click that comes right as it opens (the item stays highlighted, the menu open): then the
 * highlighted item is chosen with Enter, as a person whose click did nothing would.
 */
export async function chooseFromContextMenu(page: Page, target: Locator, item: string): Promise<void> {
  await target.click({ button: 'right' });
  const menu = page.locator('.context-view .monaco-menu');
  const entry = menu.locator('.action-label', { hasText: item }).first();
  await entry.waitFor({ timeout: uiTimeout });
  await entry.hover();
  await entry.click();
  try {
    await menu.waitFor({ state: 'detached', timeout: 5_000 });
  } catch {
    await entry.hover();
    await page.keyboard.press('Enter');
    await menu.waitFor({ state: 'detached', timeout: uiTimeout });
  }
}
