// The history a fresh agent process continues from, built by one recorder whether it is fed live or from the
// transcript: the same records give the same messages both ways.

import * as assert from 'node:assert/strict';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { HistoryRecorder, historyOfTranscript } from '../../../src/extension/core/acp/historyRecorder';
import type { TranscriptRecord } from '../../../src/extension/core/store/transcriptRecords';

const chunk = (text: string): SessionUpdate => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const toolDone = (id: string, text: string): SessionUpdate => ({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'content', content: { type: 'text', text } }] });

function turn(n: number, prompt: string, updates: SessionUpdate[], ended = true): TranscriptRecord[] {
  return [
    { type: 'turnStarted', at: n, turnId: `t${n}`, source: 'user', epoch: 1 },
    { type: 'userPrompt', at: n, turnId: `t${n}`, text: prompt, source: 'user', ...(n === 1 ? { attachments: [{ kind: 'file', name: 'a.ts' }] } : {}) },
    ...updates.map((update): TranscriptRecord => ({ type: 'agentUpdate', at: n, turnId: `t${n}`, update: update as unknown as Record<string, unknown> })),
    ...(ended ? [{ type: 'turnEnded', at: n, turnId: `t${n}`, reason: 'completed' } as TranscriptRecord] : []),
  ];
}

describe('history of a session', () => {
  const expected = [
    { role: 'user', text: 'read it\n[attached: a.ts]' },
    { role: 'assistant', text: 'Reading.\n[tool c1 completed: 42]\nDone.' },
    { role: 'user', text: 'again' },
    { role: 'assistant', text: 'Once more.' },
  ];

  it('from the transcript: prompts with their attachments named, answers and tool results folded', () => {
    const records = [...turn(1, 'read it', [chunk('Reading.'), toolDone('c1', '42'), chunk('Done.')]), ...turn(2, 'again', [chunk('Once more.')])];
    assert.deepEqual(historyOfTranscript(records), expected);
  });

  it('an edit, retry or regenerate that replaced the last exchange leaves it out, also while its own turn starts', () => {
    const first = turn(1, 'read it', [chunk('Reading.'), toolDone('c1', '42'), chunk('Done.')]);
    const wrong = turn(2, 'again', [chunk('Wrong answer.')]);
    const redo = (n: number, prompt: string, updates: SessionUpdate[], ended = true): TranscriptRecord[] =>
      turn(n, prompt, updates, ended).map((r) => (r.type === 'userPrompt' ? { ...r, redo: { how: 'edit' as const, replaced: true } } : r));
    // Its turn starting: the agent is about to be sent the edit, and must not see the exchange it replaces.
    assert.deepEqual(historyOfTranscript([...first, ...wrong, ...redo(3, 'again, better', [], false)]), expected.slice(0, 2));
    // Answered, then regenerated: each replacement cuts back to the exchange before the one it replaced.
    const answered = [...first, ...wrong, ...redo(3, 'again', [chunk('Once more.')])];
    assert.deepEqual(historyOfTranscript(answered), expected);
    assert.deepEqual(historyOfTranscript([...answered, ...redo(4, 'again', [chunk('Once more.')])]), expected);
    // An agent that keeps its own history was sent a new message: nothing is cut.
    const kept = turn(3, 'again, better', [chunk('Fine.')]).map((r) => (r.type === 'userPrompt' ? { ...r, redo: { how: 'edit' as const, replaced: false } } : r));
    assert.equal(historyOfTranscript([...first, ...wrong, ...kept]).length, 6);
  });

  it('leaves out the turn being started (its prompt is about to be sent), not one the agent answered', () => {
    const answered = [...turn(1, 'read it', [chunk('Reading.'), toolDone('c1', '42'), chunk('Done.')]), ...turn(2, 'again', [chunk('Once more.')], false)];
    assert.deepEqual(historyOfTranscript(answered), expected, 'a crashed turn the agent answered stays');
    const starting = [...answered, ...turn(3, 'third', [], false)];
    assert.deepEqual(historyOfTranscript(starting), expected);
  });

  it('fed live, the recorder gives what the transcript gives', () => {
    const live = new HistoryRecorder();
    live.user('read it', [{ name: 'a.ts' }]);
    for (const u of [chunk('Reading.'), toolDone('c1', '42'), chunk('Done.')]) live.update(u);
    live.user('again');
    live.update(chunk('Once more.'));
    assert.deepEqual(live.snapshot(), expected);
  });
});
