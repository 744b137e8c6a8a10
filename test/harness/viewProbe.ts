// Records what the person saw change over time, from inside the page: the session view's phase,
// its first agent message while it streams, wakeup entries, and the status bar's texts. A test
// then asserts on the order of what was shown, not on a single moment it might have missed.

import type { Frame, Page } from 'playwright-core';
import { statusItemSelector } from './workbench';

export interface ViewTimeline {
  /** `#app[data-phase]` values in the order they were shown (consecutive repeats folded). */
  phases: string[];
  /** Text lengths of the first agent message after the probe started, as rendered frame by frame. */
  agentTextLengths: number[];
  /** Whether that message was ever shown with the streaming cursor (`.entry.agent.streaming`). */
  streamingSeen: boolean;
  /** Ordered log: `phase:<p>`, `wakeups:<n>`, `users:<n>`, `notices:<kinds joined by +>`. */
  events: string[];
}

/** Starts recording in the webview frame; read it back with readViewTimeline. */
export async function startViewProbe(frame: Frame): Promise<void> {
  await frame.evaluate(() => {
    const app = document.getElementById('app')!;
    const agentsBefore = document.querySelectorAll('.entry.agent').length;
    const t = { phases: [] as string[], agentTextLengths: [] as number[], streamingSeen: false, events: [] as string[] };
    let wakeups = -1;
    let users = -1;
    let notices = '?';
    const kinds = ['quiet-banner', 'stall-banner', 'abort-notice', 'interrupted-notice', 'error-notice', 'info-notice'];
    const sample = () => {
      const phase = app.dataset.phase ?? '';
      if (t.phases[t.phases.length - 1] !== phase) {
        t.phases.push(phase);
        t.events.push(`phase:${phase}`);
      }
      const w = document.querySelectorAll('.entry.wakeup').length;
      if (w !== wakeups) t.events.push(`wakeups:${(wakeups = w)}`);
      const u = document.querySelectorAll('.entry.user').length;
      if (u !== users) t.events.push(`users:${(users = u)}`);
      const shown = [...document.querySelectorAll('#notices .notice-banner')]
        .map((el) => kinds.find((k) => el.classList.contains(k)) ?? 'other')
        .join('+');
      if (shown !== notices) t.events.push(`notices:${(notices = shown)}`);
      const agent = document.querySelectorAll('.entry.agent')[agentsBefore];
      if (agent) {
        if (agent.classList.contains('streaming')) t.streamingSeen = true;
        const len = (agent.textContent ?? '').trim().length;
        if (t.agentTextLengths[t.agentTextLengths.length - 1] !== len) t.agentTextLengths.push(len);
      }
    };
    sample();
    new MutationObserver(sample).observe(app, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-phase', 'class'] });
    (window as unknown as { __vigilTimeline: unknown }).__vigilTimeline = t;
  });
}

export function readViewTimeline(frame: Frame): Promise<ViewTimeline> {
  return frame.evaluate(() => (window as unknown as { __vigilTimeline: ViewTimeline }).__vigilTimeline);
}

/** Starts recording every text the status bar item shows, with ` [warning]`/` [error]` for its background. */
export async function startStatusProbe(page: Page): Promise<void> {
  await page.evaluate((selector) => {
    const texts: string[] = [];
    const sample = () => {
      const item = document.querySelector(selector);
      const look = item?.classList.contains('warning-kind') ? ' [warning]' : item?.classList.contains('error-kind') ? ' [error]' : '';
      const text = `${(item?.textContent ?? '').replace(/\s+/g, ' ').trim()}${look}`;
      if (texts[texts.length - 1] !== text) texts.push(text);
    };
    sample();
    new MutationObserver(sample).observe(document.querySelector('.part.statusbar') ?? document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['class'] });
    (window as unknown as { __vigilStatusTexts: string[] }).__vigilStatusTexts = texts;
  }, statusItemSelector);
}

export function readStatusTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __vigilStatusTexts: string[] }).__vigilStatusTexts);
}
