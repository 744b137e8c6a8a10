// Checkpoints through the turn supervisor: each turn records the trees of its folder before and after it in
// its transcript; a turn runs without one when there is no folder; a stuck snapshot never holds up an abort.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import type { CheckpointPort } from '../../../src/extension/core/ports/checkpoints';
import { TurnCheckpoints } from '../../../src/extension/core/checkpoints/turnCheckpoints';
import type { TranscriptRecord } from '../../../src/extension/core/store/transcriptRecords';
import { TranscriptTranslator } from '../../../src/extension/presentation/transcriptTranslator';
import { parseWebviewMessage } from '../../../src/shared/webviewProtocol';
import { systemClock } from '../../../src/extension/core/ports/clock';
import { Harness, tempRoot, waitFor } from '../supervisor/harness';
import { countingWatcher } from './watchers';

async function withCheckpoints(folder: string | undefined): Promise<{ h: Harness; checkpoints: TurnCheckpoints; takes(): number }> {
  const holder: { h?: Harness } = {};
  let takes = 0;
  const checkpoints = new TurnCheckpoints({
    storageRoot: await tempRoot('vigil-cp-storage-'),
    clock: systemClock,
    logger: silentLogger,
    folderOf: () => Promise.resolve(folder),
    records: async (sessionId) => (await holder.h!.sup.sessions.readAll(sessionId)).records,
    changesFor: (at, store) => countingWatcher(at, store, () => (takes += 1)),
    turnRunning: (sessionId) => holder.h!.sup.hasActiveTurn(sessionId),
  });
  holder.h = await Harness.create({}, { checkpoints });
  return { h: holder.h, checkpoints, takes: () => takes };
}

const recordsOf = async (h: Harness): Promise<TranscriptRecord[]> => (await h.sup.sessions.readAll(h.sessionId)).records;

describe('turn checkpoints', () => {
  it('records the folder before and after the turn, ahead of the turn end, and restores the turn from that record', async () => {
    const folder = await fs.realpath(await tempRoot('vigil-cp-folder-'));
    await fs.writeFile(path.join(folder, 'app.ts'), 'before\n');
    const { h, checkpoints, takes } = await withCheckpoints(folder);
    await checkpoints.prepare(folder);
    const taken = takes();
    const { turnId, ended } = await h.start();
    await waitFor(() => takes() === taken + 1, 'the before-turn mark');
    // The agent writes with its own shell while the turn runs.
    await fs.writeFile(path.join(folder, 'app.ts'), 'after\n');
    h.agent.finish();
    assert.equal((await ended).reason, 'completed');
    const records = await recordsOf(h);
    const types = records.map((r) => r.type);
    assert.equal(types.indexOf('checkpoint'), types.indexOf('turnEnded') - 1, types.join(','));
    const record = records.find((r) => r.type === 'checkpoint');
    assert.ok(record && record.type === 'checkpoint' && record.before && record.after && record.before !== record.after);
    assert.equal(record.turnId, turnId);
    assert.equal(record.folder, folder);

    assert.deepEqual((await checkpoints.restorable(h.sessionId)).map((t) => t.turnId), [turnId]);
    const plan = await checkpoints.preview(h.sessionId, turnId);
    assert.deepEqual(plan.files.map((f) => [f.path, f.change]), [['app.ts', 'modified']]);
    await checkpoints.restore(h.sessionId, plan, new Set());
    assert.equal(await fs.readFile(path.join(folder, 'app.ts'), 'utf8'), 'before\n');
  });

  it('a restore is refused, and writes nothing, when a turn of the session started after its preview', async () => {
    const folder = await fs.realpath(await tempRoot('vigil-cp-folder-'));
    await fs.writeFile(path.join(folder, 'app.ts'), 'before\n');
    const { h, checkpoints, takes } = await withCheckpoints(folder);
    await checkpoints.prepare(folder);
    const taken = takes();
    const first = await h.start();
    await waitFor(() => takes() === taken + 1, 'the before-turn mark');
    await fs.writeFile(path.join(folder, 'app.ts'), 'after\n');
    h.agent.finish();
    assert.equal((await first.ended).reason, 'completed');
    const plan = await checkpoints.preview(h.sessionId, first.turnId);
    // While the person reads the preview, a turn starts (a wakeup, or another window's).
    const second = await h.start();
    await assert.rejects(checkpoints.restore(h.sessionId, plan, new Set()), (error: Error & { code?: string }) => error.code === 'SESSION_BUSY' && /Stop the turn or let it finish, then restore again/.test(error.message));
    assert.equal(await fs.readFile(path.join(folder, 'app.ts'), 'utf8'), 'after\n', 'nothing was written under the running agent');
    h.agent.finish();
    await second.ended;
    await checkpoints.restore(h.sessionId, plan, new Set());
    assert.equal(await fs.readFile(path.join(folder, 'app.ts'), 'utf8'), 'before\n');
  });

  it('a session without a folder runs its turn and says why it has no checkpoint', async () => {
    const { h, checkpoints } = await withCheckpoints(undefined);
    const { turnId, ended } = await h.start();
    h.agent.finish();
    assert.equal((await ended).reason, 'completed');
    const record = (await recordsOf(h)).find((r) => r.type === 'checkpoint');
    assert.ok(record?.type === 'checkpoint');
    assert.match(record.unavailable ?? '', /no workspace folder/);
    await assert.rejects(checkpoints.preview(h.sessionId, turnId), /no workspace folder/);
  });

  it('a checkpoint that never finishes holds neither the prompt nor the end of the turn', async () => {
    const stuck: CheckpointPort = { begin: () => ({ finish: () => new Promise(() => undefined) }) };
    const h = await Harness.create({}, { checkpoints: stuck });
    const started = await h.sup.startTurn(h.sessionId, 'go', { source: 'user' });
    assert.equal(started.kind, 'started');
    if (started.kind !== 'started') return;
    await waitFor(() => h.agent.current !== undefined, 'the agent to receive the prompt');
    h.agent.finish();
    await h.run(20_000);
    assert.equal((await started.ended).reason, 'completed');
    const record = (await recordsOf(h)).find((r) => r.type === 'checkpoint');
    assert.ok(record?.type === 'checkpoint');
    assert.match(record.unavailable ?? '', /did not finish in time/);
  });

  it('the view shows Restore for a turn that changed files, a note for one left out, and nothing for an unchanged folder', () => {
    const t = new TranscriptTranslator();
    const tree = (c: string) => c.repeat(40);
    const entries = ([
      { type: 'checkpoint', at: 1, turnId: 't1', folder: '/w', before: tree('a'), after: tree('b') },
      { type: 'checkpoint', at: 2, turnId: 't2', folder: '/w', before: tree('a'), after: tree('a') },
      { type: 'checkpoint', at: 3, turnId: 't3', unavailable: 'No checkpoint: this window has no workspace folder on the local disk.' },
      { type: 'checkpoint', at: 4, turnId: 't4', folder: '/w', before: tree('a'), after: tree('c'), skipped: [{ path: 'big.iso', bytes: 9 * 1024 * 1024 }], skippedCount: 4 },
    ] as TranscriptRecord[]).flatMap((r) => t.translate(r)).map((e) => (e.type === 'entryAppended' ? e.entry : undefined));
    assert.deepEqual(entries.map((e) => e?.kind === 'checkpoint' && [e.turnId, e.restorable]), [['t1', true], ['t3', false], ['t4', true]]);
    const last = entries[2];
    assert.ok(last?.kind === 'checkpoint');
    assert.match(last.note ?? '', /big\.iso \(9 MB\) and 3 more/);
  });

  it('the webview may ask to restore a turn only with a well-formed turn id', () => {
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint', id: 'r1', turnId: 'turn-1' }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint', id: 'r1' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint', id: 'r1', turnId: '' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint', id: 'r1', turnId: 'x'.repeat(300) }).ok, false);
    // One file of the turn: a name the host looks up in the turn's trees (below), bounded here.
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint', id: 'r1', turnId: 't', path: 'src/a.ts' }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint', id: 'r1', turnId: 't', path: '' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint', id: 'r1', turnId: 't', path: 'p'.repeat(5_000) }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint', id: 'r1', turnId: 't', uri: 'file:///etc/passwd' }).ok, false);
  });

  it('the webview may ask for a turn\'s changes in the diff editor by turn and, for one file, by its name', () => {
    assert.equal(parseWebviewMessage({ type: 'openTurnChanges', id: 'r1', turnId: 'turn-1' }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'openTurnChanges', id: 'r1', sessionId: 's', turnId: 'turn-1', path: 'line\nbreak.txt' }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'openTurnChanges', id: 'r1' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'openTurnChanges', id: 'r1', turnId: 't', path: 'p'.repeat(5_000) }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'openTurnChanges', id: 'r1', turnId: 't', editId: 'e1' }).ok, false);
  });

  it('records the files a turn changed with its own tools in its checkpoint, for its list and each file\'s diff and Restore', async () => {
    const folder = await fs.realpath(await tempRoot('vigil-cp-folder-'));
    await fs.writeFile(path.join(folder, 'app.ts'), 'one\ntwo\n');
    await fs.writeFile(path.join(folder, 'keep.ts'), 'keep\n');
    const { h, checkpoints, takes } = await withCheckpoints(folder);
    await checkpoints.prepare(folder);
    const taken = takes();
    const { turnId, ended } = await h.start();
    await waitFor(() => takes() === taken + 1, 'the before-turn mark');
    // As Codex or Gemini would, with their own shell: nothing of it passes through Vigil's file methods.
    await fs.writeFile(path.join(folder, 'app.ts'), 'one\nTWO\nthree\n');
    await fs.writeFile(path.join(folder, 'made.ts'), 'new\n');
    h.agent.finish();
    assert.equal((await ended).reason, 'completed');
    const record = await checkpoints.recordOf(h.sessionId, turnId);
    assert.deepEqual(record?.changes, {
      files: [{ path: 'app.ts', change: 'modified', added: 2, removed: 1 }, { path: 'made.ts', change: 'added', added: 1, removed: 0 }],
      count: 2, added: 3, removed: 1,
    });
    const entry = new TranscriptTranslator().translate(record!).find((e) => e.type === 'entryAppended');
    assert.ok(entry?.type === 'entryAppended' && entry.entry.kind === 'checkpoint');
    assert.deepEqual(entry.entry.changes, record?.changes);

    // One file of it, as its Open diff and Restore plan it; a name outside the folder is refused before git sees it.
    const one = await checkpoints.preview(h.sessionId, turnId, ['made.ts']);
    assert.deepEqual(one.files.map((f) => [f.path, f.change]), [['made.ts', 'added']]);
    assert.deepEqual((await checkpoints.preview(h.sessionId, turnId, ['keep.ts'])).files, [], 'a file the turn did not change is not planned');
    for (const bad of ['/etc/passwd', '../outside.ts', 'a/../../b', '']) {
      await assert.rejects(checkpoints.preview(h.sessionId, turnId, [bad]), /is not a file of this turn's folder/, bad);
    }
  });
});
