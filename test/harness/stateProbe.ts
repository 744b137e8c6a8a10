// Records, from inside the page, every state each surface showed for the open session and when: the view's
// status line, the first row of the Sessions list and the status bar item (their accessible labels, which
// carry the state's term). A test then checks that they never disagreed for longer than a bound.

import type { Frame, Page } from 'playwright-core';
import { phaseOfTerm } from '../../src/shared/turnWords';
import type { TurnPhase } from '../../src/shared/sessionView';
import { statusItemSelector } from './workbench';

export type Surface = 'view' | 'list' | 'statusBar';

/** A surface's text as it changed: epoch ms (one clock for both frames) and the text. */
export interface Reading {
  surface: Surface;
  at: number;
  text: string;
}

/** Starts recording in the workbench page (Sessions list, status bar) and in the session view's frame. */
export async function startStateProbe(page: Page, frame: Frame): Promise<void> {
  await page.evaluate((selector) => {
    const readings: Array<{ surface: string; at: number; text: string }> = [];
    const last: Record<string, string> = {};
    const note = (surface: string, text: string) => {
      if (last[surface] === text) return;
      last[surface] = text;
      readings.push({ surface, at: Date.now(), text });
    };
    const sample = () => {
      note('list', document.querySelector('.monaco-list[aria-label="Sessions"] .monaco-list-row')?.getAttribute('aria-label') ?? '');
      note('statusBar', document.querySelector(selector)?.getAttribute('aria-label') ?? '');
    };
    sample();
    const observe = (root: Element | null) =>
      root && new MutationObserver(sample).observe(root, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['aria-label'] });
    observe(document.querySelector('.part.sidebar'));
    observe(document.querySelector('.part.statusbar'));
    (window as unknown as { __vigilStateReadings: unknown }).__vigilStateReadings = readings;
  }, statusItemSelector);
  await frame.evaluate(() => {
    const readings: Array<{ surface: string; at: number; text: string }> = [];
    let last: string | undefined;
    const sample = () => {
      const text = document.querySelector('#turn-phase .phase')?.textContent?.trim() ?? '';
      if (text === last) return;
      last = text;
      readings.push({ surface: 'view', at: Date.now(), text });
    };
    sample();
    new MutationObserver(sample).observe(document.getElementById('app')!, { subtree: true, childList: true, characterData: true });
    (window as unknown as { __vigilStateReadings: unknown }).__vigilStateReadings = readings;
  });
}

export async function readStateProbe(page: Page, frame: Frame): Promise<Reading[]> {
  const read = (f: Page | Frame) => f.evaluate(() => (window as unknown as { __vigilStateReadings: Reading[] }).__vigilStateReadings);
  return [...(await read(page)), ...(await read(frame))].sort((a, b) => a.at - b.at);
}

/**
 * The state a surface's text names. The view's status line is the term itself; a Sessions row reads
 * "title, state · when"; the status bar item "Vigil: state, …". Undefined when it names none.
 */
export function stateOf(reading: Reading): TurnPhase | undefined {
  const text = reading.text;
  if (reading.surface === 'view') return phaseOfTerm(text);
  if (reading.surface === 'statusBar') return phaseOfTerm(/^Vigil: ([^,]+)/.exec(text)?.[1] ?? '');
  const description = text.slice(text.lastIndexOf(', ') + 2);
  return phaseOfTerm(description.split(' · ')[0].replace(/ in another window$/, ''));
}

/** Spans of time in which the surfaces named different states (or one named none), longest first. */
export function disagreements(readings: readonly Reading[]): Array<{ from: number; ms: number; shown: Record<Surface, string> }> {
  const shown: Partial<Record<Surface, Reading>> = {};
  const spans: Array<{ from: number; ms: number; shown: Record<Surface, string> }> = [];
  let since: { at: number; shown: Record<Surface, string> } | undefined;
  for (const reading of readings) {
    shown[reading.surface] = reading;
    const all = (['view', 'list', 'statusBar'] as const).map((s) => shown[s]);
    if (all.some((r) => r === undefined)) continue;
    const states = new Set(all.map((r) => stateOf(r!)));
    const agree = states.size === 1 && !states.has(undefined);
    if (!agree && !since) since = { at: reading.at, shown: { view: all[0]!.text, list: all[1]!.text, statusBar: all[2]!.text } };
    if (agree && since) {
      spans.push({ from: since.at, ms: reading.at - since.at, shown: since.shown });
      since = undefined;
    }
  }
  if (since) spans.push({ from: since.at, ms: Number.POSITIVE_INFINITY, shown: since.shown });
  return spans.sort((a, b) => b.ms - a.ms);
}
