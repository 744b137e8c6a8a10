// The workbench around the session view, as a person sees it: the side bar's width (set by dragging its
// sash, as a person does: VS Code has no setting for it) and the rows of the Sessions list.

import type { Page } from 'playwright-core';

/** The side bar's width in CSS pixels. */
export function sideBarWidth(page: Page): Promise<number> {
  return page.evaluate(() => document.querySelector('.part.sidebar')?.getBoundingClientRect().width ?? 0);
}

/**
 * Drags the sash on the side bar's right edge until the side bar is `width` px wide (VS Code snaps and clamps,
 * so it measures and drags again). Throws when the width cannot be reached.
 */
export async function setSideBarWidth(page: Page, width: number): Promise<void> {
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const now = await sideBarWidth(page);
    if (Math.abs(now - width) <= 1) return;
    const sash = await page.evaluate(() => {
      const bar = document.querySelector('.part.sidebar')?.getBoundingClientRect();
      if (!bar) return undefined;
      const edge = bar.right;
      for (const el of document.querySelectorAll('.monaco-sash.vertical')) {
        const r = el.getBoundingClientRect();
        if (r.height > bar.height / 2 && Math.abs(r.left + r.width / 2 - edge) <= 4) return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
      }
      return undefined;
    });
    if (!sash) throw new Error('the side bar has no sash on its right edge (is it on the right, or hidden?)');
    await page.mouse.move(sash.x, sash.y);
    await page.mouse.down();
    await page.mouse.move(sash.x + (width - now) / 2, sash.y, { steps: 4 });
    await page.mouse.move(sash.x + (width - now), sash.y, { steps: 4 });
    await page.mouse.up();
  }
  const reached = await sideBarWidth(page);
  if (Math.abs(reached - width) > 1) throw new Error(`the side bar is ${reached} px wide, not ${width} px, after dragging its sash`);
}

/** The accessible label of each row of the Sessions list ("title, status · when"), top to bottom. */
export function sessionRowLabels(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.monaco-list[aria-label="Sessions"] .monaco-list-row')].map((row) => row.getAttribute('aria-label') ?? ''),
  );
}

/**
 * Waits until a row of the Sessions list has an accessible label matching `pattern` (its title, status and age):
 * the list is redrawn a moment after the view, e.g. when an agent named the session as its turn ended.
 */
export async function waitSessionRow(page: Page, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  await page.waitForFunction(
    ([source, flags]) => [...document.querySelectorAll('.monaco-list[aria-label="Sessions"] .monaco-list-row')].some((row) => new RegExp(source, flags).test(row.getAttribute('aria-label') ?? '')),
    [pattern.source, pattern.flags] as const,
    { timeout: timeoutMs },
  );
}
