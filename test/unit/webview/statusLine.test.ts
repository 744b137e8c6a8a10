// The status line's live region says the phase, never the clock: its text is the same however long
// the turn has run or been silent, so a screen reader hears each phase once.

import * as assert from 'node:assert/strict';
import { phaseAnnouncement } from '../../../src/webview/statusLine';
import type { TurnStatusView } from '../../../src/shared/sessionView';

describe('status line announcement', () => {
  it('does not change while only the clocks move', () => {
    const base: TurnStatusView = { phase: 'stalled', startedAt: 1_000, lastActivityAt: 2_000, silenceSeconds: 40, waitingOn: 'model' };
    const later: TurnStatusView = { ...base, startedAt: 1_000, lastActivityAt: 2_000, silenceSeconds: 41 };
    assert.equal(phaseAnnouncement(base), phaseAnnouncement(later));
    assert.equal(phaseAnnouncement(base), 'Stalled — stopping the turn');
    const quiet: TurnStatusView = { ...base, phase: 'quiet', silenceSeconds: 17 };
    assert.doesNotMatch(phaseAnnouncement(quiet), /\d/);
  });

  it('says where the turn runs and how to reach an approval', () => {
    assert.equal(phaseAnnouncement({ phase: 'running', where: 'another window' }), 'Running · in another window');
    assert.equal(phaseAnnouncement({ phase: 'awaitingApproval' }), 'Needs your approval — Alt+A to answer');
    assert.equal(phaseAnnouncement({ phase: 'idle', where: 'another window' }), 'Idle');
  });

  it('says a stopped turn in the one word of the status bar and the session list, however it stopped', () => {
    assert.equal(phaseAnnouncement({ phase: 'aborted' }), 'Stopped');
    assert.equal(phaseAnnouncement({ phase: 'interrupted' }), 'Stopped');
  });
});
