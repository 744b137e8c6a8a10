// Drives a code-server workbench in Debian's headless Chromium: palette commands, the status bar,
// the session webview (two iframes deep), screenshots; and fails on any request off this machine.

import { chromium, type BrowserContext, type FrameLocator, type Page } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import { repoRoot, type CodeServer } from './codeServer';
import { vigilLogFiles } from './runFiles';
import { sessionRowLabels } from './sideBar';
import type { TurnPhase } from '../../src/shared/sessionView';
import { stateWord } from '../../src/shared/turnWords';

export const extensionId = 'vigil.vigil';
export const statusItemSelector = `[id="${extensionId}.vigil.status"]`;
export const screenshotDir = path.join(repoRoot, '.vscode-test', 'screenshots');

const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface OpenOptions {
  /** Workbench URL query parameters, e.g. `payload` for tests inside the extension host. */
  query?: Record<string, string>;
  /** A browser launched beforehand (`Workbench.launch`), e.g. while the server started; else one is launched here. */
  browser?: Promise<LaunchedBrowser>;
  /** Called with the workbench's automation exit code (extension-host tests). */
  onAutomationExit?: (code: number) => void;
  onAutomationLog?: (type: string, args: unknown[]) => void;
}

/** A headless Chromium with its own profile, not yet on any page of a workbench. */
export interface LaunchedBrowser {
  context: BrowserContext;
  page: Page;
  profileDir: string;
}

export class Workbench {
  /** Requests to anything but this machine; a test fails when this is not empty. */
  readonly offMachineRequests: string[] = [];

  private constructor(
    readonly server: CodeServer,
    readonly context: BrowserContext,
    readonly page: Page,
    private readonly profileDir: string,
  ) {}

  /**
   * Launches the browser of a workbench to come (its profile in a fresh folder under `parentDir`). Independent of
   * the server, so a caller may launch it while code-server starts instead of after it.
   */
  static launch(parentDir: string): Promise<LaunchedBrowser> {
    const launched = Workbench.launchNow(parentDir);
    // Awaited once the server has started: a failure meanwhile is reported then, not as an unhandled rejection.
    launched.catch(() => undefined);
    return launched;
  }

  private static async launchNow(parentDir: string): Promise<LaunchedBrowser> {
    const executablePath = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium';
    mkdirSync(parentDir, { recursive: true });
    const profileDir = mkdtempSync(path.join(parentDir, 'chromium-'));
    let context: BrowserContext | undefined;
    try {
      context = await chromium.launchPersistentContext(profileDir, {
        executablePath,
        headless: true,
        args: chromiumArgs,
        viewport: { width: 1400, height: 900 },
      });
      const page = context.pages()[0] ?? (await context.newPage());
      return { context, page, profileDir };
    } catch (error) {
      await context?.close().catch(() => undefined);
      rmSync(profileDir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Closes a browser launched for a workbench that never opened (its server failed to start). */
  static async discard(browser: Promise<LaunchedBrowser>): Promise<void> {
    const launched = await browser.catch(() => undefined);
    if (!launched) return;
    await launched.context.close().catch(() => undefined);
    rmSync(launched.profileDir, { recursive: true, force: true });
  }

  static async open(server: CodeServer, options: OpenOptions = {}): Promise<Workbench> {
    const { context, page, profileDir } = await (options.browser ?? Workbench.launch(server.runDir));
    const workbench = new Workbench(server, context, page, profileDir);
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      const local = url.protocol === 'data:' || url.protocol === 'blob:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
      // Webview content is served from a vscode-cdn-like host name that code-server maps to itself.
      const webviewHost = url.hostname.endsWith('.vscode-cdn.net') || url.hostname.endsWith('.vscode-resource.vscode-cdn.net');
      if (local) return route.continue();
      if (webviewHost) return route.continue();
      workbench.offMachineRequests.push(url.href);
      return route.abort('blockedbyclient');
    });
    if (options.onAutomationExit) await page.exposeFunction('codeAutomationExit', options.onAutomationExit);
    if (options.onAutomationLog) await page.exposeFunction('codeAutomationLog', options.onAutomationLog);
    const url = new URL(server.url);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
    try {
      // Generous: on a loaded 2-core machine the first load of the workbench can take a minute.
      await page.goto(url.href, { timeout: 120_000 });
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    } catch (error) {
      await workbench.close();
      throw error;
    }
    return workbench;
  }

  /** Runs a command by its palette title, e.g. `Vigil: New Session` (retried while the palette is still loading commands). */
  async runCommand(title: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input.input');
    const row = this.page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
    for (let attempt = 1; ; attempt += 1) {
      // A pick still closing (its accept still running) leaves the widget disabled: the palette would open on it.
      await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
      await this.page.keyboard.press('F1');
      try {
        await input.waitFor({ state: 'visible', timeout: 15_000 });
      } catch (error) {
        // A busy page can drop the key press (the palette stays hidden): press it again.
        if (attempt === 3) throw error;
        continue;
      }
      try {
        // A focus move that lands just after the palette opened (a view taking the focus as it paints) closes it again.
        await input.fill(`>${title}`, { timeout: 5_000 });
        await row.waitFor({ timeout: 10_000 });
        await input.press('Enter');
        return;
      } catch (error) {
        // Closes the palette if it is still open (it may have closed itself).
        if (await input.isVisible()) await input.press('Escape', { timeout: 2_000 }).catch(() => undefined);
        if (attempt === 3) throw error;
      }
    }
  }

  /** Answers a quick pick a command opened (e.g. "Open Session…"): filters by `text`, picks the first match. */
  async pickQuickItem(text: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input.input');
    const row = this.page.locator('.quick-input-widget .monaco-list-row', { hasText: text }).first();
    // The item showing proves the command's own pick is up (not the palette that opened it).
    await row.waitFor({ timeout: 60_000 });
    await input.fill(text);
    await row.waitFor({ timeout: 60_000 });
    await input.press('Enter');
  }

  /** Whether the palette offers a command (for `when` clauses). */
  async paletteHas(title: string): Promise<boolean> {
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget input.input');
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    await input.fill(`>${title}`);
    // The list renders synchronously from the filter; give it one frame to settle.
    await this.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))));
    const texts = await this.page.locator('.quick-input-widget .monaco-list-row .label-name').allInnerTexts();
    await input.press('Escape');
    return texts.some((t) => t.replace(/\s+/g, ' ').trim() === title);
  }

  /**
   * Reloads the window as a person does and waits for Vigil's status item. code-server now and then starts a
   * reloaded window without the user's settings (its one read of settings.json failed): Vigil then sends nothing
   * and says why (settingsArrival.e2e.ts), and a person reloads again, as this does. Such a window is known by its
   * log naming another agent than the first window's.
   */
  async reload(server: CodeServer): Promise<void> {
    // Vigil's start line in the new extension host's log: whether the window got the person's agent settings.
    const startLine = (file: string) => /\[settings\] (the agent settings VS Code reports match|this window started without your agent settings)/.exec(readFileSync(file, 'utf8'))?.[1];
    for (let attempt = 1; ; attempt += 1) {
      const before = new Set(vigilLogFiles(server));
      await this.page.reload();
      await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await this.statusItem().waitFor({ timeout: 90_000 });
      const deadline = Date.now() + 30_000;
      let seen: string | undefined;
      while (seen === undefined && Date.now() < deadline) {
        seen = vigilLogFiles(server).filter((f) => !before.has(f)).map(startLine).find((l) => l !== undefined);
        if (seen === undefined) await this.page.waitForTimeout(100);
      }
      if (seen !== 'this window started without your agent settings' || attempt === 3) return;
      console.log('      the reloaded window started without the user settings (see its log); reloading again, as a person would');
    }
  }

  statusItem() {
    return this.page.locator(statusItemSelector);
  }

  async statusText(): Promise<string> {
    return (await this.statusItem().innerText({ timeout: 60_000 })).replace(/\s+/g, ' ').trim();
  }

  /** The session webview's content frame (two iframes deep). */
  sessionWebview(): FrameLocator {
    return this.page
      .frameLocator(`iframe.webview.ready[src*="extensionId=${extensionId}"]`)
      .first()
      .frameLocator('iframe#active-frame');
  }

  /**
   * Shoots the page as a person sees it, once what it shows holds together: the Sessions list's row of the
   * session on screen says the state its view says (a row left at "running" beside an idle view is wrong on
   * the screen, and fails the test here).
   */
  async screenshot(name: string): Promise<string> {
    await this.listAgreesWithView().catch((error: Error) => {
      throw new Error(`screenshot ${name}: ${error.message}`);
    });
    const cut = await this.placeholderCut();
    if (cut) throw new Error(`screenshot ${name}: the input's placeholder is cut off by its edge: "${cut}"`);
    const header = await this.headerBroken();
    if (header) throw new Error(`screenshot ${name}: the session header's icon, title and Open… are not on one line: ${header}`);
    mkdirSync(screenshotDir, { recursive: true });
    const file = path.join(screenshotDir, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /** Waits (bounded) until the shown session's row says its view's state; nothing to compare when either is not on screen. */
  private async listAgreesWithView(boundMs = 10_000): Promise<void> {
    const frame = this.sessionWebview();
    const deadline = Date.now() + boundMs;
    for (;;) {
      if ((await frame.locator('#app[data-phase]').count().catch(() => 0)) === 0) return;
      const read = async () => [await frame.locator('#app').getAttribute('data-phase', { timeout: 2_000 }), (await frame.locator('#session-title').textContent({ timeout: 2_000 }))?.trim()] as const;
      const [phase, title] = await read().catch(() => [null, undefined] as const);
      if (!phase || !title) return;
      const all = await sessionRowLabels(this.page);
      const rows = all.filter((r) => r.startsWith(`${title}, `));
      const agrees = rows.length === 1 && rows[0].slice(title.length + 2).startsWith(stateWord(phase as TurnPhase));
      // The one session listed goes by another title than its view's header: one of them is stale.
      const misnamed = all.length === 1 && rows.length === 0 && title !== 'No session';
      // Not listed here (a collapsed list, another folder's session) or not told apart by its title: nothing to compare.
      if (agrees || (rows.length !== 1 && !misnamed)) return;
      if (Date.now() > deadline) throw new Error(`the Sessions list says "${all.join('" | "')}" while the session view says ${phase} of "${title}"`);
      await this.page.waitForTimeout(100);
    }
  }

  /** Where the header's icon, title and Open… sit, when they are not on one line (a long title wrapped them apart). */
  private async headerBroken(): Promise<string | undefined> {
    const header = this.sessionWebview().locator('#session-header');
    if ((await header.count().catch(() => 0)) === 0) return undefined;
    return header.evaluate((el) => {
      const parts = ['.codicon-hubot', '#session-title', '#open-session'].map((s) => el.querySelector(`:scope > ${s}`)?.getBoundingClientRect());
      if (parts.some((r) => !r || r.height === 0)) return undefined;
      const centers = parts.map((r) => r!.top + r!.height / 2);
      return Math.max(...centers) - Math.min(...centers) > 6 ? `vertical centres at ${centers.map(Math.round).join(', ')} px` : undefined;
    }, undefined, { timeout: 5_000 }).catch(() => undefined);
  }

  /** The session input's placeholder when its text needs more lines than the input shows (how to use it, cut mid-sentence). */
  private async placeholderCut(): Promise<string | undefined> {
    const input = this.sessionWebview().locator('#prompt-input');
    if ((await input.count().catch(() => 0)) === 0) return undefined;
    return input.evaluate((area: HTMLTextAreaElement) => {
      if (area.value !== '' || area.placeholder === '') return undefined;
      const style = getComputedStyle(area);
      const px = (v: string) => parseFloat(v) || 0;
      const probe = document.createElement('div');
      probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre-wrap;overflow-wrap:break-word;font:${style.font};line-height:${style.lineHeight};letter-spacing:${style.letterSpacing};width:${area.clientWidth - px(style.paddingLeft) - px(style.paddingRight)}px`;
      probe.textContent = area.placeholder;
      document.body.append(probe);
      const need = probe.getBoundingClientRect().height;
      probe.remove();
      return need > area.clientHeight - px(style.paddingTop) - px(style.paddingBottom) + 1 ? area.placeholder : undefined;
    }, undefined, { timeout: 5_000 }).catch(() => undefined);
  }

  assertStayedOnMachine(): void {
    if (this.offMachineRequests.length > 0) {
      throw new Error(`requests left the machine: ${this.offMachineRequests.slice(0, 5).join(', ')}`);
    }
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
    rmSync(this.profileDir, { recursive: true, force: true });
  }
}
