// When a session's events become a notification: only while the person looks elsewhere (window not focused,
// or the session not on screen), once per event, each kind behind its setting, and never twice for an approval.

import * as assert from 'node:assert/strict';
import type { SupervisorEvent } from '../../../src/extension/core/supervisor/supervisorEvents';
import { AttentionPolicy, type AttentionContext } from '../../../src/extension/presentation/attentionPolicy';
import { validateSettings, type AttentionSettings } from '../../../src/extension/core/settings/settingsValidation';

const all: AttentionSettings = { turnFinished: true, approvalNeeded: true, stalled: true, wakeup: true };
const away: AttentionContext = { windowFocused: false, sessionShowing: () => true, approvalPrompterNotifies: () => false };
const here: AttentionContext = { windowFocused: true, sessionShowing: () => true, approvalPrompterNotifies: () => false };
const otherSession: AttentionContext = { windowFocused: true, sessionShowing: (id) => id !== 's1', approvalPrompterNotifies: (id) => id === 's1' };

const ended = (reason: 'completed' | 'cancelled' | 'aborted' | 'interrupted' | 'failed', extra: Record<string, unknown> = {}): SupervisorEvent => ({
  type: 'turnEnded',
  ended: { sessionId: 's1', turnId: 't1', source: 'user', reason, ...extra },
});
const stall: SupervisorEvent = { type: 'stallObserved', sessionId: 's1', turnId: 't1', seconds: 312, waitingOn: { kind: 'model' }, message: 'Stalled: no progress for 312 s', detail: 'the mechanism' };
const approval = (open: boolean): SupervisorEvent => ({ type: 'approvalWaiting', sessionId: 's1', turnId: 't1', open });
const wakeup: SupervisorEvent = { type: 'turnStarted', sessionId: 's1', turnId: 't2', source: 'wakeup', startedAt: 0 };

function text(policy: AttentionPolicy, event: SupervisorEvent, ctx = away, settings = all): string | undefined {
  return policy.decide(event, settings, ctx)?.text('Fix the build');
}

describe('attention policy (notifications)', () => {
  it('notifies a finished turn, a stall, an approval wait and a wakeup while the window is not focused', () => {
    const p = new AttentionPolicy();
    assert.equal(text(p, ended('completed')), 'Vigil: the agent finished its turn in “Fix the build”.');
    // The terms of the status bar and the view: Stalled, Needs your approval, Stopped; the mechanism stays in the view's details.
    assert.equal(text(p, stall), 'Vigil (“Fix the build”): Stalled: no progress for 312 s (waiting on: model). Vigil is stopping the turn.');
    assert.equal(text(p, approval(true)), 'Vigil: the agent in “Fix the build” needs your approval.');
    assert.equal(text(p, wakeup), 'Vigil: a background task woke the agent in “Fix the build”.');
    assert.equal(text(p, ended('interrupted', { turnId: 't9', message: 'Stopped: no progress for 300 s' })), 'Vigil (“Fix the build”): Stopped: no progress for 300 s.');
    assert.equal(text(p, ended('interrupted', { turnId: 't8', message: 'The window that was running this turn closed. Resume to continue.' })), 'Vigil (“Fix the build”): The window that was running this turn closed. Resume to continue.', 'a reason stored by an older version keeps its full stop');
    assert.equal(text(p, ended('interrupted', { turnId: 't7' })), 'Vigil (“Fix the build”): Stopped before it finished.');
  });

  it('says nothing while the person looks at that session in a focused window', () => {
    const p = new AttentionPolicy();
    for (const event of [ended('completed'), stall, approval(true), wakeup, ended('interrupted')]) assert.equal(p.decide(event, all, here), undefined);
  });

  it('notifies in a focused window when another session is on screen', () => {
    const p = new AttentionPolicy();
    assert.ok(p.decide(ended('completed'), all, otherSession));
    assert.ok(p.decide(wakeup, all, otherSession));
  });

  it('never doubles the approval prompter’s own notification', () => {
    const p = new AttentionPolicy();
    assert.equal(p.decide(approval(true), all, otherSession), undefined, 'the prompter asks in a notification already');
    assert.equal(p.decide(approval(true), all, { ...away, approvalPrompterNotifies: () => true }), undefined);
    assert.equal(p.decide(approval(false), all, away), undefined, 'the end of a wait is not news');
  });

  it('notifies each event once: a stall observed again in the same turn, a repeated end', () => {
    const p = new AttentionPolicy();
    assert.ok(p.decide(stall, all, away));
    assert.equal(p.decide(stall, all, away), undefined);
    assert.ok(p.decide(ended('completed'), all, away));
    assert.equal(p.decide(ended('completed'), all, away), undefined);
    assert.ok(p.decide({ ...stall, turnId: 't3' } as SupervisorEvent, all, away), 'another turn stalls: news again');
  });

  it('stays quiet for what the person did or was already told', () => {
    const p = new AttentionPolicy();
    assert.equal(p.decide(ended('cancelled'), all, away), undefined);
    assert.equal(p.decide(ended('aborted'), all, away), undefined);
    assert.equal(p.decide(ended('failed', { remedies: ['signIn'] }), all, away), undefined, 'a failure with remedies has its own notification');
    assert.match(text(p, ended('failed', { message: 'HTTP 500' }))!, /failed: HTTP 500/);
    assert.equal(p.decide({ type: 'turnStarted', sessionId: 's1', turnId: 't4', source: 'user', startedAt: 0 }, all, away), undefined);
    assert.equal(p.decide({ type: 'activity', sessionId: 's1', turnId: 't1', description: 'model: streaming', waitingOn: { kind: 'model' } }, all, away), undefined);
  });

  it('each kind is off with its own setting; a value that is not a boolean keeps it on and is reported', () => {
    const off = (key: keyof AttentionSettings) => ({ ...all, [key]: false });
    assert.equal(new AttentionPolicy().decide(ended('completed'), off('turnFinished'), away), undefined);
    assert.equal(new AttentionPolicy().decide(stall, off('stalled'), away), undefined);
    assert.equal(new AttentionPolicy().decide(ended('interrupted'), off('stalled'), away), undefined);
    assert.equal(new AttentionPolicy().decide(approval(true), off('approvalNeeded'), away), undefined);
    assert.equal(new AttentionPolicy().decide(wakeup, off('wakeup'), away), undefined);
    assert.ok(new AttentionPolicy().decide(wakeup, off('stalled'), away));
    const values: Record<string, unknown> = { 'notifications.turnFinished': false, 'notifications.approvalNeeded': 'no', 'notifications.wakeup': 0 };
    const { settings, issues } = validateSettings((k) => values[k]);
    assert.deepEqual(settings.notifications, { turnFinished: false, approvalNeeded: true, stalled: true, wakeup: true });
    assert.deepEqual(issues.map((i) => i.key).sort(), ['vigil.notifications.approvalNeeded', 'vigil.notifications.wakeup']);
  });

  it('leaves the title out when the session has none', () => {
    assert.equal(new AttentionPolicy().decide(ended('completed'), all, away)?.text(undefined), 'Vigil: the agent finished its turn.');
  });
});
