// Folding a session's history at open: the same snapshot as applying each event, in linear time, and
// the state it started from left untouched (the webview renders by identity).

import * as assert from 'node:assert/strict';
import type { HostEvent, SessionSnapshot } from '../../../src/shared/sessionView';
import { applyHostEvent, foldHostEvents } from '../../../src/shared/sessionViewReducer';
import { snapshotWith, task, toolCall, userEntry } from '../webview/viewBuilders';

/** Every kind of history event, several times over, with merges and replacements of earlier entries. */
function history(rounds: number): HostEvent[] {
  const events: HostEvent[] = [];
  for (let i = 0; i < rounds; i += 1) {
    events.push({ type: 'entryAppended', entry: userEntry(`u${i}`) });
    events.push({ type: 'chunkAppended', entryId: `a${i}`, entryKind: 'thought', text: 'hmm', at: i });
    events.push({ type: 'chunkAppended', entryId: `a${i}`, entryKind: 'agent', text: 'Hel', at: i });
    events.push({ type: 'chunkAppended', entryId: `b${i}`, entryKind: 'agent', text: 'lo', at: i });
    events.push({ type: 'chunkAppended', entryId: `b${i}`, entryKind: 'agent', text: ' there', at: i });
    events.push({ type: 'toolCallCreated', toolCall: toolCall(`c${i}`), at: i });
    events.push({ type: 'toolCallUpdated', toolCallId: `c${i}`, patch: { status: 'completed' } });
    events.push({ type: 'toolCallUpdated', toolCallId: `unseen${i}`, patch: { status: 'failed' } });
    events.push({ type: 'planUpdated', entryId: 'plan', items: [{ content: `step ${i}`, status: 'pending', priority: 'medium' }], at: i });
    events.push({ type: 'streamEnded', entryId: `b${i}` });
    events.push({ type: 'taskChanged', task: task(`t${i % 3}`) });
    events.push({
      type: 'turnStatusChanged',
      turn: { phase: i % 2 ? 'idle' : 'running', turnId: `turn${i}`, silenceSeconds: 0 },
      ...(i % 5 === 4 ? { notice: { id: `n${i}`, kind: 'error' as const, text: 'failed', resumable: false, at: i } } : {}),
    });
  }
  return events;
}

describe('history fold at open', () => {
  it('gives the snapshot that applying each event gives', () => {
    const events = history(40);
    const start = snapshotWith([userEntry('before')]);
    assert.deepEqual(foldHostEvents(start, events), events.reduce(applyHostEvent, start));
  });

  it('leaves the state it started from, and what later events derive from the result, as they were', () => {
    const start = snapshotWith([userEntry('before')], { tasks: [task('t0')] });
    const frozen = JSON.stringify(start);
    const entries = start.entries;
    const folded = foldHostEvents(start, history(5));
    assert.equal(JSON.stringify(start), frozen);
    assert.equal(start.entries, entries);
    // Outside the fold the reducer copies again: the folded state is not changed by what follows it.
    const before = folded.entries.length;
    const next = applyHostEvent(folded, { type: 'entryAppended', entry: userEntry('after') });
    assert.equal(folded.entries.length, before);
    assert.equal(next.entries.length, before + 1);
    assert.notEqual(next.entries, folded.entries);
  });

  it('folds inside a fold without losing the outer one', () => {
    const inner = (): SessionSnapshot => foldHostEvents(snapshotWith(), history(2));
    const events: HostEvent[] = [...history(2)];
    const expected = events.reduce(applyHostEvent, snapshotWith());
    let nested: SessionSnapshot | undefined;
    const folded = foldHostEvents(snapshotWith(), (function* () {
      for (const [i, event] of events.entries()) {
        if (i === 3) nested = inner();
        yield event;
      }
    })());
    assert.deepEqual(folded, expected);
    assert.deepEqual(nested, inner());
  });
});
