// Vigil's records of the agent's writes in the view: on the card of the tool call that made them, and as one list of
// the turn's changed files at its end (also when read back after a reload, and validated by the view's schema).

import * as assert from 'node:assert';
import { ActivityDescriber } from '../../../src/extension/core/acp/activityDescriber';
import type { TranscriptRecord } from '../../../src/extension/core/store/transcriptRecords';
import { TranscriptTranslator } from '../../../src/extension/presentation/transcriptTranslator';
import { fileEditedUpdate, type FileEditView } from '../../../src/shared/fileEdits';
import { emptySnapshot, type SessionSnapshot } from '../../../src/shared/sessionView';
import { applyHostEvent } from '../../../src/shared/sessionViewReducer';
import { parseHostMessage } from '../../../src/shared/webviewProtocol';

const view = (editId: string, path: string, added: number, removed: number, created = false): FileEditView => ({ editId, path, added, removed, created });

function fold(records: TranscriptRecord[]): SessionSnapshot {
  const translator = new TranscriptTranslator();
  let state = emptySnapshot();
  for (const r of records) for (const e of translator.translate(r)) state = applyHostEvent(state, e);
  return state;
}

describe('turn edits in the view', () => {
  it('the describer ties a write to the tool call running it, and to none outside a tool call', () => {
    const d = new ActivityDescriber();
    const outside = d.fileEdited(view('e-1', 'a', 1, 0), view('e-1', 'a', 1, 0));
    assert.strictEqual(outside.update?.toolCallId, undefined);
    d.fromUpdate({ sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'write_file a', kind: 'edit', status: 'pending' });
    const inside = d.fileEdited(view('e-2', 'a', 1, 0), view('e-2', 'a', 1, 0));
    assert.strictEqual(inside.update?.toolCallId, 'call-1');
    assert.strictEqual(inside.update?.sessionUpdate, fileEditedUpdate);
  });

  it('shows each write on its card and lists the turn\'s files once, with their latest sums, at the turn end', () => {
    const records: TranscriptRecord[] = [
      { type: 'turnStarted', at: 1, turnId: 't1', source: 'user', epoch: 1 },
      { type: 'agentUpdate', at: 2, turnId: 't1', update: { sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'write_file a.ts', kind: 'edit', status: 'in_progress' } },
      { type: 'agentUpdate', at: 3, turnId: 't1', update: { sessionUpdate: fileEditedUpdate, toolCallId: 'call-1', edit: view('e-1', 'a.ts', 2, 1), file: view('e-1', 'a.ts', 2, 1) } },
      { type: 'agentUpdate', at: 4, turnId: 't1', update: { sessionUpdate: fileEditedUpdate, toolCallId: 'call-1', edit: view('e-2', 'a.ts', 1, 0), file: view('s-1', 'a.ts', 3, 1) } },
      { type: 'agentUpdate', at: 5, turnId: 't1', update: { sessionUpdate: fileEditedUpdate, edit: view('e-3', 'b.ts', 4, 0, true), file: view('e-3', 'b.ts', 4, 0, true) } },
      { type: 'agentUpdate', at: 6, turnId: 't1', update: { sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed' } },
      { type: 'turnEnded', at: 7, turnId: 't1', reason: 'completed' },
    ];
    const state = fold(records);
    assert.deepStrictEqual(state.entries.map((e) => e.kind), ['toolCall', 'edits']);
    const card = state.entries[0];
    assert.ok(card.kind === 'toolCall');
    assert.deepStrictEqual(card.toolCall.edits?.map((e) => e.editId), ['e-1', 'e-2']);
    const summary = state.entries[1];
    assert.ok(summary.kind === 'edits');
    assert.deepStrictEqual(summary.files, [view('s-1', 'a.ts', 3, 1), view('e-3', 'b.ts', 4, 0, true)]);
    // The same records read again (a reload) give the same view, and the view's schema accepts it.
    assert.deepStrictEqual(fold(records).entries.map((e) => e.kind), ['toolCall', 'edits']);
    const parsed = parseHostMessage(JSON.parse(JSON.stringify({ type: 'snapshot', seq: 1, snapshot: state })));
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.reason);
  });

  it('a turn without writes gets no list; a malformed record (an edited transcript) shows nothing', () => {
    const state = fold([
      { type: 'turnStarted', at: 1, turnId: 't1', source: 'user', epoch: 1 },
      { type: 'agentUpdate', at: 2, turnId: 't1', update: { sessionUpdate: fileEditedUpdate, edit: { editId: '../../etc', path: 'x', added: 1, removed: 0, created: false }, file: view('e-1', 'x', 1, 0) } },
      { type: 'agentUpdate', at: 3, turnId: 't1', update: { sessionUpdate: fileEditedUpdate, edit: view('e-2', 'y', -1, 0), file: view('e-2', 'y', -1, 0) } },
      { type: 'turnEnded', at: 4, turnId: 't1', reason: 'completed' },
    ]);
    assert.deepStrictEqual(state.entries, []);
  });

  it('an interrupted turn still lists what it changed', () => {
    const state = fold([
      { type: 'turnStarted', at: 1, turnId: 't1', source: 'user', epoch: 1 },
      { type: 'agentUpdate', at: 2, turnId: 't1', update: { sessionUpdate: fileEditedUpdate, edit: view('e-1', 'a', 1, 0), file: view('e-1', 'a', 1, 0) } },
      { type: 'interrupted', at: 3, turnId: 't1', reason: 'the window closed' },
    ]);
    assert.deepStrictEqual(state.entries.map((e) => e.kind), ['edits', 'notice']);
  });
});
