// Drives Vigil's session view the way a person does (type, Send, Stop, Resume) and waits on what
// they see: the webview's DOM, the status bar item. Waits poll a condition; none is a fixed sleep.

import type { Frame, FrameLocator, Locator } from 'playwright-core';
import { extensionId, type Workbench } from './workbench';

export const uiTimeout = 60_000;

export class SessionView {
  constructor(readonly workbench: Workbench) {}

  get view(): FrameLocator {
    return this.workbench.sessionWebview();
  }

  locator(selector: string, options?: { hasText?: string | RegExp }): Locator {
    return this.view.locator(selector, options);
  }

  /** The webview's inner frame as a Playwright Frame (for evaluate: performance marks, raw posts). */
  async frame(): Promise<Frame> {
    const outer = await this.workbench.page
      .locator(`iframe.webview.ready[src*="extensionId=${extensionId}"]`)
      .first()
      .elementHandle({ timeout: uiTimeout });
    const outerFrame = await outer?.contentFrame();
    if (!outerFrame) throw new Error('the session webview has no outer frame');
    const inner = await outerFrame.locator('iframe#active-frame').elementHandle({ timeout: uiTimeout });
    const frame = await inner?.contentFrame();
    if (!frame) throw new Error('the session webview has no content frame');
    return frame;
  }

  /** Waits until the webview has painted a snapshot of `sessionId` (or of any session). */
  async waitPainted(sessionId?: string): Promise<string> {
    const selector = sessionId ? `#app[data-painted-seq][data-session-id="${sessionId}"]` : '#app[data-painted-seq]';
    await this.locator(selector).waitFor({ timeout: uiTimeout }).catch(async (error: Error) => {
      // Say what the view shows instead: another session, or nothing painted at all.
      const shown = await this.locator('#app').evaluate((app) => `session "${app.getAttribute('data-session-id') ?? ''}", painted ${app.getAttribute('data-painted-seq') ?? 'never'}`, undefined, { timeout: 2_000 }).catch(() => 'no view');
      throw new Error(`the view did not paint ${sessionId ? `session ${sessionId}` : 'a session'} (it shows ${shown}): ${error.message.split('\n')[0]}`);
    });
    return (await this.locator('#app').getAttribute('data-session-id')) ?? '';
  }

  /** Waits until the view painted a session other than `previous` (a new session's command returns before the view switches). */
  async waitPaintedOther(previous: string): Promise<string> {
    await this.locator(`#app[data-painted-seq][data-session-id]:not([data-session-id="${previous}"]):not([data-session-id=""])`).waitFor({ timeout: uiTimeout });
    return (await this.locator('#app').getAttribute('data-session-id')) ?? '';
  }

  /**
   * Waits until the view's session names an agent launched from a command line containing `fragment`:
   * code-server may hand the extension host the user settings a moment after it started, and a message
   * sent before that would go to the built-in agent.
   */
  async waitAgent(fragment: string): Promise<void> {
    const frame = await this.frame();
    try {
      await frame.waitForFunction((text) => (document.getElementById('session-header')?.dataset.agent ?? '').includes(text), fragment, { timeout: uiTimeout });
    } catch (error) {
      // Say what the view named instead, so a failure here tells settings that never arrived from a header that never updated.
      const shown = await frame.evaluate(() => document.getElementById('session-header')?.dataset.agent ?? '(no header)').catch(() => '(the view is gone)');
      throw new Error(`the view never named an agent containing ${JSON.stringify(fragment)}; it names ${JSON.stringify(shown)}: ${String(error)}`);
    }
  }

  async sessionId(): Promise<string> {
    return (await this.locator('#app').getAttribute('data-session-id', { timeout: uiTimeout })) ?? '';
  }

  async waitPhase(phase: string, timeoutMs = uiTimeout): Promise<void> {
    await this.locator(`#app[data-phase="${phase}"]`).waitFor({ timeout: timeoutMs });
  }

  /** Types a message and presses Send, as a person does. */
  async send(text: string): Promise<void> {
    const input = this.locator('#prompt-input');
    await input.waitFor({ timeout: uiTimeout });
    await input.fill(text);
    const send = this.locator('#send:not([disabled])');
    try {
      await send.waitFor({ timeout: uiTimeout / 4 });
    } catch {
      // The view drew a session it was opening over the draft as it was typed: type it again.
      await input.fill(text);
      await send.waitFor({ timeout: uiTimeout });
    }
    await send.click();
  }

  /** Polls the status bar item until its text matches (it is re-rendered at least once a second). */
  async waitStatus(pattern: RegExp, timeoutMs = uiTimeout): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      last = await this.workbench.statusText().catch(() => last);
      if (pattern.test(last)) return last;
      if (Date.now() > deadline) throw new Error(`status bar never matched ${pattern}; last seen: "${last}"`);
      await this.workbench.page.waitForTimeout(100);
    }
  }

  /** Waits until the header's model chip (the agent's model option, else the session's model) contains `text`; says what it shows if not. */
  async waitModelChip(text: string): Promise<void> {
    const chip = '#session-header .agent-option[data-category="model"] .agent-option-value, #session-header .session-model';
    try {
      await this.locator(chip, { hasText: text }).first().waitFor({ timeout: uiTimeout });
    } catch (error) {
      const shown = await this.texts(chip).catch(() => ['(the view is gone)']);
      throw new Error(`the model chip never showed ${JSON.stringify(text)}; it shows ${JSON.stringify(shown)}: ${String(error)}`);
    }
  }

  /** Counts entries of a kind (`.entry.wakeup`, `.entry.user`, …) now. */
  count(selector: string): Promise<number> {
    return this.locator(selector).count();
  }

  /** Texts of all matching nodes, whitespace-normalised. */
  async texts(selector: string): Promise<string[]> {
    return (await this.locator(selector).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  }
}
