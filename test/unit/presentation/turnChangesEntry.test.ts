// The end of a turn as the view shows it from its checkpoint record: the files it changed (for every agent), one list
// even when Vigil's own record of the built-in agent's writes has one too, a turn without a checkpoint that says
// plainly no diff is available, and a damaged list in an edited transcript dropped on its own.

import * as assert from 'node:assert';
import { parseTranscriptRecord } from '../../../src/extension/core/store/transcriptRecords';
import type { TranscriptRecord } from '../../../src/extension/core/store/transcriptRecords';
import { FIRST_SNAPSHOT_PENDING } from '../../../src/extension/core/checkpoints/turnCheckpoints';
import { NO_TURN_DIFF } from '../../../src/extension/presentation/checkpointEntry';
import { TranscriptTranslator } from '../../../src/extension/presentation/transcriptTranslator';
import { entryMarkdown } from '../../../src/extension/presentation/transcriptMarkdown';
import { fileEditedUpdate, type FileEditView } from '../../../src/shared/fileEdits';
import { emptySnapshot, type SessionSnapshot } from '../../../src/shared/sessionView';
import { applyHostEvent } from '../../../src/shared/sessionViewReducer';
import type { TurnChangesView } from '../../../src/shared/turnChanges';
import { parseHostMessage } from '../../../src/shared/webviewProtocol';

const tree = (c: string) => c.repeat(40);
const edit = (editId: string, path: string): FileEditView => ({ editId, path, added: 1, removed: 0, created: true });
const changes: TurnChangesView = {
  files: [{ path: 'a.ts', change: 'modified', added: 2, removed: 1 }, { path: 'logo.png', change: 'added', noDiff: 'binary' }, { path: 'old.ts', change: 'deleted', added: 0, removed: 9 }],
  count: 3, added: 2, removed: 10,
};

function fold(records: TranscriptRecord[]): SessionSnapshot {
  const translator = new TranscriptTranslator();
  let state = emptySnapshot();
  for (const r of records) for (const e of translator.translate(r)) state = applyHostEvent(state, e);
  return state;
}

const turn = (middle: TranscriptRecord[]): TranscriptRecord[] => [
  { type: 'turnStarted', at: 1, turnId: 't1', source: 'user', epoch: 1 },
  ...middle,
  { type: 'turnEnded', at: 9, turnId: 't1', reason: 'completed' },
];

describe('a turn\'s changed files from its checkpoint', () => {
  it('lists the files of the checkpoint record at the turn end, and the view\'s schema accepts it', () => {
    const state = fold(turn([{ type: 'checkpoint', at: 8, turnId: 't1', folder: '/w', before: tree('a'), after: tree('b'), changes }]));
    assert.deepStrictEqual(state.entries.map((e) => e.kind), ['checkpoint']);
    const entry = state.entries[0];
    assert.ok(entry.kind === 'checkpoint');
    assert.deepStrictEqual(entry.changes, changes);
    assert.strictEqual(entry.restorable, true);
    const parsed = parseHostMessage(JSON.parse(JSON.stringify({ type: 'snapshot', seq: 1, snapshot: state })));
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.reason);
    const md = entryMarkdown(entry);
    assert.match(md ?? '', /Changed 3 files \+2 −10/);
    assert.match(md ?? '', /`old\.ts` deleted \+0 −9/);
  });

  it('shows one list for the built-in agent\'s turn: the checkpoint\'s, in place of the one from its own writes', () => {
    const writes: TranscriptRecord[] = [{ type: 'agentUpdate', at: 2, turnId: 't1', update: { sessionUpdate: fileEditedUpdate, edit: edit('e-1', 'a.ts'), file: edit('e-1', 'a.ts') } }];
    const withList = fold(turn([...writes, { type: 'checkpoint', at: 8, turnId: 't1', folder: '/w', before: tree('a'), after: tree('b'), changes }]));
    assert.deepStrictEqual(withList.entries.map((e) => e.kind), ['checkpoint']);
    // A checkpoint without a list (a record from before lists were kept, or checkpoints off): the writes' own list stays.
    const without = fold(turn([...writes, { type: 'checkpoint', at: 8, turnId: 't1', folder: '/w', before: tree('a'), after: tree('b') }]));
    assert.deepStrictEqual(without.entries.map((e) => e.kind), ['checkpoint', 'edits']);
    const off = fold(turn(writes));
    assert.deepStrictEqual(off.entries.map((e) => e.kind), ['edits']);
  });

  it('a turn that began before the folder\'s first snapshot says plainly that no diff is available for it', () => {
    const state = fold(turn([{ type: 'checkpoint', at: 8, turnId: 't1', unavailable: FIRST_SNAPSHOT_PENDING }]));
    const entry = state.entries[0];
    assert.ok(entry?.kind === 'checkpoint');
    assert.strictEqual(entry.note, `${FIRST_SNAPSHOT_PENDING} ${NO_TURN_DIFF}`);
    assert.strictEqual(entry.restorable, false);
    assert.strictEqual(entry.changes, undefined);
    // The built-in agent's own writes still have their diffs: the note does not deny them.
    const own = fold(turn([
      { type: 'agentUpdate', at: 2, turnId: 't1', update: { sessionUpdate: fileEditedUpdate, edit: edit('e-1', 'a.ts'), file: edit('e-1', 'a.ts') } },
      { type: 'checkpoint', at: 8, turnId: 't1', unavailable: FIRST_SNAPSHOT_PENDING },
    ]));
    assert.deepStrictEqual(own.entries.map((e) => e.kind === 'checkpoint' ? e.note : e.kind), [FIRST_SNAPSHOT_PENDING, 'edits']);
  });

  it('drops a damaged list of an edited transcript on its own: the checkpoint and its Restore stay', () => {
    const line = JSON.stringify({ type: 'checkpoint', at: 8, turnId: 't1', folder: '/w', before: tree('a'), after: tree('b'), changes: { files: [{ path: '', change: 'exploded' }], count: -1 } });
    const record = parseTranscriptRecord(JSON.parse(line));
    assert.ok(record?.type === 'checkpoint', 'the record is read');
    assert.strictEqual(record.changes, undefined);
    const entry = fold(turn([record])).entries[0];
    assert.ok(entry?.kind === 'checkpoint' && entry.restorable && entry.changes === undefined);
  });
});
