// Checkpoints kept, not taken: a turn never waits for its folder's snapshot, a turn that begins before the first
// one is ready says it has none, and the index kept from a watcher's changes restores exactly what a turn changed,
// also when the watcher reports a change late or the agent writes a file just as the turn begins.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { systemClock } from '../../../src/extension/core/ports/clock';
import type { CheckpointStore } from '../../../src/extension/core/checkpoints/checkpointStore';
import { FIRST_SNAPSHOT_PENDING, TurnCheckpoints } from '../../../src/extension/core/checkpoints/turnCheckpoints';
import { checkpointEntry } from '../../../src/extension/presentation/checkpointEntry';
import type { TranscriptRecord } from '../../../src/extension/core/store/transcriptRecords';
import { Harness, tempRoot, waitFor } from '../supervisor/harness';
import { countingWatcher, ManualChanges } from './watchers';

type CheckpointRecord = Extract<TranscriptRecord, { type: 'checkpoint' }>;

function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

interface Fixture {
  h: Harness;
  checkpoints: TurnCheckpoints;
  folder: string;
  changes: ManualChanges;
  updates: number;
  /** How many times the real watcher's changes were taken. */
  realTakes: number;
}

async function fixture(real = false): Promise<Fixture> {
  const folder = await fs.realpath(await tempRoot('vigil-kept-folder-'));
  await fs.writeFile(path.join(folder, 'app.ts'), 'v1\n');
  await fs.writeFile(path.join(folder, 'notes.md'), 'n1\n');
  const holder: { h?: Harness } = {};
  const f = { folder, changes: new ManualChanges(), updates: 0, realTakes: 0 } as Fixture;
  f.checkpoints = new TurnCheckpoints({
    storageRoot: await tempRoot('vigil-kept-storage-'),
    clock: systemClock,
    logger: silentLogger,
    folderOf: () => Promise.resolve(folder),
    records: async (sessionId) => (await holder.h!.sup.sessions.readAll(sessionId)).records,
    changesFor: (_folder: string, store: CheckpointStore) => {
      const update = store.update.bind(store);
      store.update = async (paths, signal) => {
        const got = await update(paths, signal);
        f.updates += 1;
        return got;
      };
      return real ? countingWatcher(folder, store, () => (f.realTakes += 1)) : f.changes;
    },
  });
  holder.h = await Harness.create({}, { checkpoints: f.checkpoints });
  f.h = holder.h;
  return f;
}

async function checkpointOf(f: Fixture, turnId: string): Promise<CheckpointRecord> {
  const record = (await f.h.sup.sessions.readAll(f.h.sessionId)).records.find((r) => r.type === 'checkpoint' && r.turnId === turnId);
  assert.ok(record?.type === 'checkpoint', `turn ${turnId} has a checkpoint record`);
  return record;
}

async function restoredFiles(f: Fixture, turnId: string): Promise<string[][]> {
  const plan = await f.checkpoints.preview(f.h.sessionId, turnId);
  await f.checkpoints.restore(f.h.sessionId, plan, new Set());
  return plan.files.map((file) => [file.path, file.change]);
}

const read = (f: Fixture, rel: string) => fs.readFile(path.join(f.folder, rel), 'utf8');
const write = (f: Fixture, rel: string, text: string) => fs.writeFile(path.join(f.folder, rel), text);

describe('checkpoints kept, not taken', () => {
  it('a turn that begins before the folder\'s first snapshot is ready starts at once and says it has no checkpoint', async () => {
    const f = await fixture();
    const first = gate();
    f.changes.startGate = first.promise;
    const preparing = f.checkpoints.prepare(f.folder);
    const { turnId, ended } = await f.h.start();
    f.h.agent.finish();
    assert.equal((await ended).reason, 'completed');
    const record = await checkpointOf(f, turnId);
    assert.equal(record.unavailable, FIRST_SNAPSHOT_PENDING);
    assert.equal(record.before, undefined);
    const entry = checkpointEntry(record, 'e1');
    assert.ok(entry?.kind === 'checkpoint' && !entry.restorable);
    assert.match(entry.note ?? '', /no checkpoint: the folder's first snapshot was still being taken/);

    first.open();
    await preparing;
    const next = await f.h.start();
    await write(f, 'app.ts', 'v2\n');
    f.changes.report('app.ts');
    f.h.agent.finish();
    await next.ended;
    assert.deepEqual(await restoredFiles(f, next.turnId), [['app.ts', 'modified']]);
    assert.equal(await read(f, 'app.ts'), 'v1\n');
  });

  it('the prompt reaches the agent while the before-turn checkpoint is still being marked', async () => {
    const f = await fixture();
    await f.checkpoints.prepare(f.folder);
    const held = gate();
    f.changes.settleGate = held.promise;
    const { turnId, ended } = await f.h.start(); // returns once the agent has the prompt
    const takes = f.changes.takes;
    held.open();
    await waitFor(() => f.changes.takes === takes + 1, 'the before-turn mark');
    await write(f, 'app.ts', 'agent\n');
    f.changes.report('app.ts');
    f.h.agent.finish();
    await ended;
    assert.deepEqual(await restoredFiles(f, turnId), [['app.ts', 'modified']]);
    assert.equal(await read(f, 'app.ts'), 'v1\n');
  });

  it('a person\'s change between turns that the watcher reports late stays the person\'s; an agent\'s reported late is the turn\'s', async () => {
    const f = await fixture();
    await f.checkpoints.prepare(f.folder);
    const one = await f.h.start();
    f.h.agent.finish();
    await one.ended;
    // Between the turns the person edits notes.md; the watcher has not said so when Enter is pressed.
    await write(f, 'notes.md', 'person\n');
    f.changes.reportLate('notes.md');
    const takes = f.changes.takes;
    const two = await f.h.start();
    await waitFor(() => f.changes.takes === takes + 1, 'the before-turn mark');
    await write(f, 'app.ts', 'agent\n');
    await fs.mkdir(path.join(f.folder, 'gen'));
    await write(f, 'gen/out.ts', 'generated\n');
    // The agent's shell writes are reported late too: the turn's end settles the watcher first.
    f.changes.reportLate('app.ts');
    f.changes.reportLate('gen');
    f.h.agent.finish();
    await two.ended;
    assert.deepEqual(await restoredFiles(f, two.turnId), [['app.ts', 'modified'], ['gen/out.ts', 'added']]);
    assert.equal(await read(f, 'app.ts'), 'v1\n');
    assert.equal(await read(f, 'notes.md'), 'person\n');
    await assert.rejects(fs.access(path.join(f.folder, 'gen/out.ts')));
  });

  it('a wakeup after a turn begins on that turn\'s after-snapshot without reading the folder again', async () => {
    const f = await fixture();
    await f.checkpoints.prepare(f.folder);
    const one = await f.h.start();
    await write(f, 'app.ts', 'agent\n');
    f.changes.report('app.ts');
    f.h.agent.finish();
    await one.ended;
    const updates = f.updates;
    const wake = await f.h.start('wakeup');
    f.h.agent.finish();
    await wake.ended;
    assert.equal(f.updates, updates, 'no snapshot read the folder for the wakeup');
    const [first, second] = [await checkpointOf(f, one.turnId), await checkpointOf(f, wake.turnId)];
    assert.equal(second.before, first.after);
    assert.equal(second.after, first.after);
  });

  it('says so when the agent changed a file before the checkpoint of the turn\'s start could read it', async () => {
    const f = await fixture();
    await f.checkpoints.prepare(f.folder);
    await write(f, 'notes.md', 'person\n');
    f.changes.report('notes.md');
    const held = gate();
    f.changes.settleGate = held.promise;
    const { turnId, ended } = await f.h.start();
    await write(f, 'notes.md', 'agent\n');
    held.open();
    f.h.agent.finish();
    await ended;
    const record = await checkpointOf(f, turnId);
    assert.match(record.unavailable ?? '', /Restore may not bring back notes\.md as it was before the turn/);
  });

  it('with the real watcher: files changed just before Enter stay, the turn\'s own changes and new folders are restored', async () => {
    const f = await fixture(true);
    await f.checkpoints.prepare(f.folder);
    await fs.mkdir(path.join(f.folder, 'docs'));
    await write(f, 'docs/person.md', 'mine\n');
    await write(f, 'notes.md', 'person\n');
    // Saved a moment before Enter (within a clock tick of it, a change counts as maybe the agent's).
    const moment = new Date(Date.now() - 1_000);
    for (const rel of ['docs/person.md', 'notes.md']) await fs.utimes(path.join(f.folder, rel), moment, moment);
    const updates = f.updates;
    const { turnId, ended } = await f.h.start();
    await waitFor(() => f.updates === updates + 1, 'the before-turn checkpoint');
    await write(f, 'app.ts', 'agent\n');
    await fs.mkdir(path.join(f.folder, 'src/deep'), { recursive: true });
    await write(f, 'src/deep/new.ts', 'new\n');
    await fs.rm(path.join(f.folder, 'docs/person.md'));
    f.h.agent.finish();
    await ended;
    assert.equal((await checkpointOf(f, turnId)).unavailable, undefined);
    assert.deepEqual(await restoredFiles(f, turnId), [['app.ts', 'modified'], ['docs/person.md', 'deleted'], ['src/deep/new.ts', 'added']]);
    assert.equal(await read(f, 'app.ts'), 'v1\n');
    assert.equal(await read(f, 'docs/person.md'), 'mine\n');
    assert.equal(await read(f, 'notes.md'), 'person\n');
    await assert.rejects(fs.access(path.join(f.folder, 'src/deep/new.ts')));
    f.checkpoints.dispose();
  });
});
