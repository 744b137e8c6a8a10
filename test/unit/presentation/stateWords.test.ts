// One term per state on every surface a person reads it: the status bar (its text and what a screen reader
// hears), the view's status line, the session list and the notices. The watchdog's stop once read "aborted"
// in its notice, "Interrupted" in the status line and "turn interrupted" in the status bar.

import * as assert from 'node:assert/strict';
import { presentStatus } from '../../../src/extension/presentation/statusPresentation';
import { presentSession } from '../../../src/extension/presentation/sessionPresentation';
import type { SessionMeta } from '../../../src/extension/core/store/sessionStore';
import type { TurnPhase } from '../../../src/shared/sessionView';
import { phaseOfTerm, phaseTerm, stateWord, summaries } from '../../../src/shared/turnWords';
import { phaseAnnouncement } from '../../../src/webview/statusLine';

const phases: TurnPhase[] = ['idle', 'running', 'quiet', 'stalled', 'awaitingApproval', 'aborted', 'interrupted'];
const meta: SessionMeta = { id: 's', title: 'Fix the build', createdAt: 0, updatedAt: 0, state: 'idle' };

function surfaces(phase: TurnPhase) {
  const status = presentStatus({ phase, runningTasks: 0, elapsedMs: 42_000, silenceMs: 170_000 });
  const row = presentSession(phase === 'aborted' || phase === 'interrupted' ? { ...meta, state: phase } : meta, phase, 0, 0);
  return { statusText: status.text, statusLabel: status.label, statusLine: phaseAnnouncement({ phase }), listRow: row.accessibleDescription, listDescription: row.description };
}

describe('the words of each state', () => {
  for (const phase of phases) {
    it(`${phase}: every surface names it "${phaseTerm(phase)}"`, () => {
      const s = surfaces(phase);
      assert.ok(s.statusLabel.startsWith(`Vigil: ${phaseTerm(phase)}`), `status bar, read aloud: ${s.statusLabel}`);
      assert.ok(s.statusLine.startsWith(phaseTerm(phase)), `status line: ${s.statusLine}`);
      assert.ok(s.listRow.startsWith(`${stateWord(phase)} · `), `session list, read aloud: ${s.listRow}`);
      // The visible texts: the status bar shows idle and running by their look (robot, spinning clock) and the
      // list leaves idle rows to their time; every other state shows its word.
      if (phase !== 'idle' && phase !== 'running') assert.ok(s.statusText.includes(` ${stateWord(phase)}`), `status bar: ${s.statusText}`);
      if (phase !== 'idle') assert.ok(s.listDescription.startsWith(stateWord(phase)), `session list: ${s.listDescription}`);
      assert.equal(phaseOfTerm(phaseTerm(phase)), phase === 'interrupted' ? 'aborted' : phase, 'the term reads back as its state');
    });
  }

  it('aborted and interrupted read the same everywhere: one state, "Stopped", whatever stopped it', () => {
    assert.deepEqual(surfaces('aborted'), surfaces('interrupted'));
  });

  it('every notice summary starts with the term of the state it reports', () => {
    assert.equal(phaseOfTerm(summaries.quiet(150)), 'quiet');
    assert.equal(phaseOfTerm(summaries.stall(300)), 'stalled');
    for (const key of ['stoppedByYou', 'stoppedFromAnotherWindow', 'stoppedTakenOver', 'stoppedAgentEnded', 'stoppedWindowClosed', 'stoppedWindowLapsed', 'stoppedNoAnswer', 'stoppedNoEnd', 'stopped'] as const) {
      assert.equal(phaseOfTerm(summaries[key]), 'aborted', key);
    }
    assert.equal(phaseOfTerm(summaries.stoppedNoProgress(30)), 'aborted');
    assert.equal(phaseOfTerm('Stoppedish'), undefined, 'a term is a whole word');
  });

  it('the mechanism stays out of the terms and summaries', () => {
    const said = [...phases.map(phaseTerm), summaries.quiet(1), summaries.stall(1), summaries.stoppedNoProgress(1), ...Object.values(summaries).map((v) => (typeof v === 'string' ? v : v(1)))];
    for (const text of said) assert.doesNotMatch(text, /lease|generation|reclaim|epoch|watchdog|abort/i, text);
  });
});
