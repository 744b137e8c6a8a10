// A tool call the agent left pending or running when its turn ended (any reason, also a normal end_turn, as
// Codex does) reads "ended without a result" — in the transcript the supervisor writes and in the view a
// reload folds from it — never running.

import * as assert from 'node:assert/strict';
import type { TranscriptRecord } from '../../../src/extension/core/store/transcriptRecords';
import { TranscriptTranslator } from '../../../src/extension/presentation/transcriptTranslator';
import { applyHostEvent } from '../../../src/shared/sessionViewReducer';
import { emptySnapshot, type SessionSnapshot, type ToolCallView } from '../../../src/shared/sessionView';
import { Harness } from '../supervisor/harness';

function fold(records: readonly TranscriptRecord[]): SessionSnapshot {
  const translator = new TranscriptTranslator();
  let state = emptySnapshot();
  for (const r of records) for (const e of translator.translate(r)) state = applyHostEvent(state, e);
  return state;
}

function tools(state: SessionSnapshot): Record<string, ToolCallView> {
  return Object.fromEntries(state.entries.flatMap((e) => (e.kind === 'toolCall' ? [[e.toolCall.toolCallId, e.toolCall]] : [])));
}

const call = (id: string, status: string, at = 1, turnId = 't1'): TranscriptRecord => ({
  type: 'agentUpdate',
  at,
  turnId,
  update: { sessionUpdate: 'tool_call', toolCallId: id, title: `run ${id}`, kind: 'execute', status, content: [{ type: 'content', content: { type: 'text', text: `output of ${id}` } }] },
});
const started = (turnId: string, at: number): TranscriptRecord => ({ type: 'turnStarted', at, turnId, source: 'user', epoch: 1 });
const ended = (turnId: string, at: number, reason: 'completed' | 'cancelled' = 'completed'): TranscriptRecord => ({ type: 'turnEnded', at, turnId, reason });

describe('tool calls a turn left unfinished', () => {
  it('the supervisor closes them at every end, also a normal end_turn, and the folded view shows them ended, not running', async () => {
    for (const stop of ['finish', 'abort'] as const) {
      const h = await Harness.create();
      const { ended: done } = await h.start();
      h.agent.emit({ description: 'tool: run', update: { sessionUpdate: 'tool_call', toolCallId: 'open', title: 'sleep 600', kind: 'execute', status: 'in_progress' } });
      h.agent.emit({ description: 'tool: wait', update: { sessionUpdate: 'tool_call', toolCallId: 'pending', title: 'npm test', kind: 'execute', status: 'pending' } });
      h.agent.emit({ description: 'tool: ls', update: { sessionUpdate: 'tool_call', toolCallId: 'done', title: 'ls', kind: 'execute', status: 'in_progress' } });
      h.agent.emit({ description: 'tool: ls', update: { sessionUpdate: 'tool_call_update', toolCallId: 'done', status: 'completed' } });
      if (stop === 'finish') h.agent.finish();
      else await h.sup.abort(h.sessionId);
      const end = await done;
      assert.equal(end.reason, stop === 'finish' ? 'completed' : 'aborted');
      const { records } = await h.sup.sessions.readAll(h.sessionId);
      const synthetic = records.flatMap((r) => (r.type === 'syntheticToolResult' ? [[r.toolCallId, r.status, r.text]] : []));
      assert.deepEqual(synthetic, [
        ['open', 'ended', 'ended without a result'],
        ['pending', 'ended', 'ended without a result'],
      ], stop);
      // A reload folds the same records afresh.
      const view = tools(fold(records));
      assert.equal(view.open.status, 'ended', stop);
      assert.equal(view.pending.status, 'ended', stop);
      assert.equal(view.done.status, 'completed', stop);
      assert.ok(view.open.endedAt !== undefined, 'the card stops its clock');
    }
  });

  it('folds calls left open by turns recorded before the end closed them, and keeps what they showed', () => {
    const view = tools(fold([started('t1', 0), call('a', 'in_progress'), call('b', 'pending'), ended('t1', 5), started('t2', 6), call('c', 'in_progress', 7, 't2')]));
    assert.equal(view.a.status, 'ended');
    assert.equal(view.b.status, 'ended');
    assert.equal(view.a.endedAt, 5);
    assert.deepEqual(view.a.content, [{ type: 'text', text: 'output of a' }], 'its output stays');
    assert.equal(view.c.status, 'in_progress', 'a call of the turn still running is running');
  });

  it('a turn whose end never came is ended by the next turn start or the interrupted record; final statuses stay', () => {
    const view = tools(
      fold([
        started('t1', 0),
        call('a', 'in_progress'),
        call('f', 'in_progress'),
        { type: 'agentUpdate', at: 2, turnId: 't1', update: { sessionUpdate: 'tool_call_update', toolCallId: 'f', status: 'failed' } },
        started('t2', 3),
        call('b', 'pending', 4, 't2'),
        { type: 'interrupted', at: 5, turnId: 't2', reason: 'window closed' },
      ]),
    );
    assert.equal(view.a.status, 'ended');
    assert.equal(view.f.status, 'failed');
    assert.equal(view.b.status, 'ended');
  });

  it('an agent cannot claim the ended status itself', () => {
    const view = tools(fold([started('t1', 0), call('x', 'ended')]));
    assert.equal(view.x.status, 'pending');
  });
});
